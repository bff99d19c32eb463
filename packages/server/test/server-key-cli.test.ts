/**
 * `latchkey server-key create`: a P-256 key for an app's backend, written once with mode 0600; the key it
 * prints is the one the file holds, and the entry it prints is what an app's `serverKeys` takes.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { fromHex, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { describe, expect, it } from "vitest";
import { appConfigSchema } from "../src/config";

const BIN = resolve(__dirname, "../bin/latchkey.js");
const run = promisify(execFile);

describe("latchkey server-key create", () => {
  it("writes a private key the printed public key and serverKeys entry belong to, and never overwrites it", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "latchkey-server-key-")), "bot.key");
    const { stdout } = await run(process.execPath, [
      BIN,
      "server-key",
      "create",
      "--out",
      out,
      "--name",
      "bot",
    ]);
    const privateKey = readFileSync(out, "utf8").trim();
    expect(privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const publicKey = toHex(p256PublicKeyFromPrivate(fromHex(privateKey), true));
    expect(stdout).toContain(`Public key: ${publicKey}`);
    const entry = JSON.parse(/For the app's serverKeys: (.*)/.exec(stdout)?.[1] ?? "null");
    expect(entry).toEqual({ name: "bot", publicKey });
    const app = appConfigSchema.parse({ id: "shop", name: "Shop", serverKeys: [entry] });
    expect(app.serverKeys).toEqual([entry]);
    await expect(run(process.execPath, [BIN, "server-key", "create", "--out", out])).rejects.toThrow();
    expect(readFileSync(out, "utf8").trim()).toBe(privateKey);
    const help = (await run(process.execPath, [BIN, "server-key", "create", "--help"])).stdout;
    expect(help).toContain("Usage: latchkey server-key create");
    expect((await run(process.execPath, [BIN, "--help"])).stdout).toContain("server-key create");
  });

  it("refuses a serverKeys entry that is not a compressed P-256 key, or one listed twice", () => {
    const key = { name: "bot", publicKey: `02${"ab".repeat(32)}` };
    expect(
      appConfigSchema.safeParse({ id: "a", name: "A", serverKeys: [{ name: "x", publicKey: "04ab" }] })
        .success,
    ).toBe(false);
    expect(appConfigSchema.safeParse({ id: "a", name: "A", serverKeys: [key, key] }).success).toBe(false);
  });
});
