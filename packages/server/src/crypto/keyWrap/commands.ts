import { parseArgs } from "node:util";
import { openDatabase } from "../../db";
import { Keyring, loadMasterKey, parseMasterKey } from "../keyring";
import { type KeyWrapper, KeyWrapperError } from "./keyWrapper";
import { LocalKeyWrapper } from "./localKey";

/** The master-key settings, for the commands' help. */
export const KEY_ENVIRONMENT = `  LATCHKEY_KEY_BACKEND      Where the master key is: env (default: LATCHKEY_MASTER_KEY or its file) or
                            pkcs11 (an AES key that never leaves an HSM; the settings below)
  LATCHKEY_PKCS11_MODULE    The HSM vendor's PKCS#11 library (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so)
  LATCHKEY_PKCS11_TOKEN_LABEL  The token's label (or LATCHKEY_PKCS11_SLOT, its slot id)
  LATCHKEY_PKCS11_PIN       The token's user PIN (or LATCHKEY_PKCS11_PIN_FILE, a file holding it)
  LATCHKEY_PKCS11_KEY_LABEL The key's label in the token (default latchkey-master-key)
`;

export const HSM_HELP = `Usage: latchkey hsm init [--replace]

Create the master key in an HSM token over PKCS#11: an AES-256 key generated in the token, sensitive and
never extractable, used only to encrypt and decrypt data keys (AES-GCM). The token, its PIN and the key's
label come from the environment below. Refuses, changing nothing, when the token already has a key with
that label. Several instances (and workers) share the token and the key.

Then: a new database needs nothing more (serve with LATCHKEY_KEY_BACKEND=pkcs11); an existing one moves
onto the key with latchkey rotate-master-key --to pkcs11.

Options:
  --replace    Destroy the key with that label first. Every database it wraps stops opening: only for a
               key that wraps nothing
  -h, --help   This help

Environment:
${KEY_ENVIRONMENT}`;

export const ROTATE_HELP = `Usage: latchkey rotate-master-key [--db <url|path>] [--to env|pkcs11]

Re-wrap every data key of the database under another master key; sealed secrets (wallet keys, TOTP
secrets, the paymaster signer) are not touched. Each data key is opened by whichever given key wrapped it
(a database half-way between two keys is finished). One transaction: interrupted, nothing changes; run
it again. Stop the service, rotate, then start it with the new key's settings.

  (no --to)       From LATCHKEY_MASTER_KEY to LATCHKEY_NEW_MASTER_KEY
  --to pkcs11     From LATCHKEY_MASTER_KEY (or LATCHKEY_MASTER_KEY_FILE) to the HSM's key (latchkey hsm
                  init; LATCHKEY_PKCS11_*); then serve with LATCHKEY_KEY_BACKEND=pkcs11 and remove the old
                  key from the environment and the secret store
  --to env        From the HSM's key to LATCHKEY_NEW_MASTER_KEY (or, unset, LATCHKEY_MASTER_KEY or its file);
                  then serve with that key as LATCHKEY_MASTER_KEY and LATCHKEY_KEY_BACKEND=env

Options:
  --db <url|path>    The database (as serve)
  --to <env|pkcs11>  Where the master key goes
  -h, --help         This help

Environment:
  LATCHKEY_MASTER_KEY       The current (or, --to env, the new) master key; or LATCHKEY_MASTER_KEY_FILE
  LATCHKEY_NEW_MASTER_KEY   The new master key (without --to; optional with --to env)
${KEY_ENVIRONMENT}`;

async function openPkcs11(env: NodeJS.ProcessEnv): Promise<KeyWrapper> {
  const { Pkcs11KeyWrapper, pkcs11SettingsFromEnv } = await import("./pkcs11");
  return Pkcs11KeyWrapper.open(pkcs11SettingsFromEnv(env));
}

/** `latchkey hsm init [--replace]` */
export async function hsmCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const [verb, ...rest] = args;
  if (verb !== "init") {
    process.stderr.write(HSM_HELP);
    return 1;
  }
  const { values } = parseArgs({ args: rest, options: { replace: { type: "boolean", default: false } } });
  const { initPkcs11Key, pkcs11SettingsFromEnv } = await import("./pkcs11");
  const settings = pkcs11SettingsFromEnv(env);
  const made = initPkcs11Key(settings, { replace: values.replace });
  process.stdout.write(
    `Created the AES-256 master key "${settings.keyLabel}" (${made.id}) in PKCS#11 ${made.token}.\n` +
      "New database: serve with LATCHKEY_KEY_BACKEND=pkcs11. Existing one: latchkey rotate-master-key --to pkcs11.\n",
  );
  return 0;
}

/** `latchkey rotate-master-key [--db] [--to env|pkcs11]` */
export async function rotateMasterKeyCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  defaultDb: string,
): Promise<number> {
  const { values } = parseArgs({ args, options: { db: { type: "string" }, to: { type: "string" } } });
  const to = values.to;
  if (to !== undefined && to !== "env" && to !== "pkcs11") throw new Error("--to takes env or pkcs11");
  const hasEnvKey = Boolean(env.LATCHKEY_MASTER_KEY || env.LATCHKEY_MASTER_KEY_FILE);
  const wrappers: KeyWrapper[] = [];
  const keep = <T extends KeyWrapper>(w: T): T => {
    wrappers.push(w);
    return w;
  };
  try {
    let sources: KeyWrapper[];
    let target: KeyWrapper;
    if (to === undefined) {
      if (!env.LATCHKEY_MASTER_KEY || !env.LATCHKEY_NEW_MASTER_KEY)
        throw new Error(
          "Set LATCHKEY_MASTER_KEY (current) and LATCHKEY_NEW_MASTER_KEY (or use --to env|pkcs11)",
        );
      sources = [keep(new LocalKeyWrapper(parseMasterKey(env.LATCHKEY_MASTER_KEY)))];
      target = keep(new LocalKeyWrapper(parseMasterKey(env.LATCHKEY_NEW_MASTER_KEY)));
    } else if (to === "pkcs11") {
      if (!hasEnvKey)
        throw new Error("--to pkcs11 rotates from LATCHKEY_MASTER_KEY (or LATCHKEY_MASTER_KEY_FILE): set it");
      // The HSM first: a wrong PIN or a missing key stops here, before anything is read.
      target = keep(await openPkcs11(env));
      sources = [keep(new LocalKeyWrapper(loadMasterKey({ env, dev: false })))];
    } else {
      sources = [keep(await openPkcs11(env))];
      if (env.LATCHKEY_NEW_MASTER_KEY) {
        target = keep(new LocalKeyWrapper(parseMasterKey(env.LATCHKEY_NEW_MASTER_KEY)));
        if (hasEnvKey) sources.push(keep(new LocalKeyWrapper(loadMasterKey({ env, dev: false }))));
      } else if (hasEnvKey) target = keep(new LocalKeyWrapper(loadMasterKey({ env, dev: false })));
      else
        throw new Error("--to env needs the new key: set LATCHKEY_NEW_MASTER_KEY (or LATCHKEY_MASTER_KEY)");
    }
    const opened = openDatabase(values.db ?? env.LATCHKEY_DB ?? defaultDb);
    try {
      const n = await Keyring.rotateMasterKey(opened.db, sources, target);
      process.stdout.write(
        `Re-wrapped ${n} data key(s) under ${target.description} (${target.id}). Start the service with ${
          to === "pkcs11" ? "LATCHKEY_KEY_BACKEND=pkcs11" : "the new master key"
        }.\n`,
      );
    } finally {
      await opened.close();
    }
    return 0;
  } catch (err) {
    if (err instanceof KeyWrapperError) {
      process.stderr.write(`rotate-master-key: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    for (const w of wrappers) await w.close();
  }
}
