import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pkcs11KeyWrapper, pkcs11SettingsFromEnv } from "../../src/crypto/keyWrap/pkcs11";
import { latchkey } from "./latchkey";

export interface SoftHsmToken {
  /** The service's environment for HSM mode on this token (LATCHKEY_KEY_BACKEND=pkcs11, module, label, PIN). */
  env: Record<string, string>;
  /** The token as whoever holds its PIN opens it: a key wrapper on its master key. */
  open(): Pkcs11KeyWrapper;
  /** Deletes the token's folder. */
  close(): void;
}

/**
 * A SoftHSM2 token of its own in a temp folder, with the master key `latchkey hsm init` makes in it
 * (run in this process). SOFTHSM2_CONF points this process's PKCS#11 library at it: one token per test
 * file (hsm-master-key.test.ts makes its own, to test `hsm init` itself).
 */
export async function softHsmToken(label: string): Promise<SoftHsmToken> {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-softhsm-"));
  mkdirSync(join(dir, "tokens"));
  const conf = join(dir, "softhsm2.conf");
  writeFileSync(
    conf,
    `directories.tokendir = ${join(dir, "tokens")}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  const pin = "246810";
  execFileSync("softhsm2-util", [
    "--init-token",
    "--free",
    "--label",
    label,
    "--so-pin",
    "13579111",
    "--pin",
    pin,
  ]);
  const env = {
    LATCHKEY_KEY_BACKEND: "pkcs11",
    LATCHKEY_PKCS11_MODULE: "/usr/lib/softhsm/libsofthsm2.so",
    LATCHKEY_PKCS11_TOKEN_LABEL: label,
    LATCHKEY_PKCS11_PIN: pin,
  };
  const made = await latchkey(["hsm", "init"], {
    env: { ...process.env, LATCHKEY_MASTER_KEY: "", LATCHKEY_MASTER_KEY_FILE: "", ...env },
  });
  if (made.code !== 0) throw new Error(`latchkey hsm init failed: ${made.stdout}${made.stderr}`);
  return {
    env,
    open: () => Pkcs11KeyWrapper.open(pkcs11SettingsFromEnv(env)),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
