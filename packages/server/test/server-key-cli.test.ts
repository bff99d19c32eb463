/**
 * `latchkey server-key create`: a P-256 key for an app's backend, written once with mode 0600; the key it
 * prints is the one the file holds, and the entry it prints is what an app's `serverKeys` takes.
 */
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromHex, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { describe, expect, it } from "vitest";
import { appConfigSchema } from "../src/config";
import { latchkey } from "./helpers/latchkey";

/** `latchkey <args>` in this process, which must exit 0: its stdout. */
async function stdoutOf(args: string[]): Promise<string> {
  const { code, stdout, stderr } = await latchkey(args);
  expect(code, stderr).toBe(0);
  return stdout;
}

describe("latchkey server-key create", () => {
  it("writes a private key the printed public key and serverKeys entry belong to, and never overwrites it", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "latchkey-server-key-")), "bot.key");
    const stdout = await stdoutOf(["server-key", "create", "--out", out, "--name", "bot"]);
    const privateKey = readFileSync(out, "utf8").trim();
    expect(privateKey).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const publicKey = toHex(p256PublicKeyFromPrivate(fromHex(privateKey), true));
    expect(stdout).toContain(`Public key: ${publicKey}`);
    const entry = JSON.parse(/For the app's serverKeys: (.*)/.exec(stdout)?.[1] ?? "null");
    expect(entry).toEqual({ name: "bot", publicKey });
    const app = appConfigSchema.parse({ id: "shop", name: "Shop", serverKeys: [entry] });
    expect(app.serverKeys).toEqual([entry]);
    expect((await latchkey(["server-key", "create", "--out", out])).code).not.toBe(0);
    expect(readFileSync(out, "utf8").trim()).toBe(privateKey);
    const help = await stdoutOf(["server-key", "create", "--help"]);
    expect(help).toContain("Usage: latchkey server-key create");
    expect(await stdoutOf(["--help"])).toContain("server-key create");
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
