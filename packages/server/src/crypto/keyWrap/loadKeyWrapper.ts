import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { loadMasterKey } from "../keyring";
import { type KeyWrapper, KeyWrapperError } from "./keyWrapper";
import { LocalKeyWrapper } from "./localKey";

export type KeyBackend = "env" | "pkcs11";

/** LATCHKEY_KEY_BACKEND: `env` (the default: LATCHKEY_MASTER_KEY or its file) or `pkcs11` (an HSM). */
export function keyBackend(env: NodeJS.ProcessEnv): KeyBackend {
  const backend = (env.LATCHKEY_KEY_BACKEND || "env").toLowerCase();
  if (backend !== "env" && backend !== "pkcs11")
    throw new KeyWrapperError(`LATCHKEY_KEY_BACKEND takes env or pkcs11, not "${env.LATCHKEY_KEY_BACKEND}"`);
  return backend;
}

/**
 * The wrapper the configuration names. PKCS#11 (and its native binding) is loaded only when configured.
 * Throws KeyWrapperError, touching nothing, when the key cannot be reached (no key, a wrong PIN, no token).
 */
export async function loadKeyWrapper(opts: {
  env: NodeJS.ProcessEnv;
  keyFile?: string;
  dev: boolean;
  backend?: KeyBackend;
}): Promise<KeyWrapper> {
  const backend = opts.backend ?? keyBackend(opts.env);
  if (backend === "pkcs11") {
    const { Pkcs11KeyWrapper, pkcs11SettingsFromEnv } = await import("./pkcs11");
    return Pkcs11KeyWrapper.open(pkcs11SettingsFromEnv(opts.env));
  }
  const file = opts.env.LATCHKEY_MASTER_KEY_FILE ?? opts.keyFile;
  // Said before loading: in dev a missing key file is written now, and a message must tell them apart.
  const source = opts.env.LATCHKEY_MASTER_KEY
    ? "the master key in LATCHKEY_MASTER_KEY"
    : file && existsSync(file)
      ? `the master key in the key file ${resolve(file)}`
      : file
        ? `a new master key, just written to ${resolve(file)} because no key file was there`
        : undefined;
  return new LocalKeyWrapper(
    loadMasterKey({ env: opts.env, dev: opts.dev, ...(opts.keyFile ? { keyFile: opts.keyFile } : {}) }),
    source,
  );
}
