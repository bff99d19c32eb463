import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadNativePbkdf2 } from "../src/crypto/pbkdf2";
import { waitForLine } from "./helpers/waitForLine";

// A PBKDF2 addon that fails its load-time self-test is not used: `serve` says so at start and /healthz
// names node:crypto with the reason. LATCHKEY_PBKDF2_SELFTEST_CORRUPT=1 spoils one expected seed, as a
// miscompiled or mis-detected lane would make the addon disagree with it. Only where the addon loads.
const BIN = resolve(__dirname, "../bin/latchkey.js");

describe.runIf(loadNativePbkdf2())("serve with a PBKDF2 addon that fails its self-test", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill("SIGTERM");
    child = undefined;
  });

  it("computes seeds with node:crypto and says why at start and in /healthz", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-pbkdf2-"));
    child = spawn(process.execPath, [BIN, "serve", "--dev", "--port", "0", "--log-level", "warn"], {
      cwd: dir,
      env: {
        ...process.env,
        LATCHKEY_MASTER_KEY: "",
        LATCHKEY_PBKDF2: "",
        LATCHKEY_PBKDF2_SELFTEST_CORRUPT: "1",
      },
    });
    const out = await waitForLine(child, /Dev mailbox:\s+(\S+)/);
    expect(out).toMatch(
      /Wallet seeds: PBKDF2 by node:crypto \(the native PBKDF2 addon failed its self-test: BIP-39 vector 1 alone gave c55257c360c07c72…\)/,
    );
    const base = /signer service on (http:\/\/\S+)/.exec(out)?.[1] as string;
    const health = (await (await fetch(`${base}/healthz`)).json()) as { pbkdf2: string };
    expect(health.pbkdf2).toBe(
      "node:crypto (addon failed its self-test: BIP-39 vector 1 alone gave c55257c360c07c72…)",
    );
  });
});
