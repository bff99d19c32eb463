import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type * as Pkcs11Js from "pkcs11js";
import { type KeyWrapper, KeyWrapperError } from "./keyWrapper";

/** Where the master key lives in an HSM, from LATCHKEY_PKCS11_* (see `pkcs11SettingsFromEnv`). */
export interface Pkcs11Settings {
  /** The vendor's PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so. */
  module: string;
  /** The token, by label (or `slot`). */
  tokenLabel?: string;
  /** The token, by slot id (as the vendor's tools list it). */
  slot?: number;
  /** The user PIN of the token. */
  pin: string;
  /** The label of the AES key in the token. */
  keyLabel: string;
}

export const DEFAULT_PKCS11_KEY_LABEL = "latchkey-master-key";

/**
 * Reads LATCHKEY_PKCS11_MODULE, LATCHKEY_PKCS11_TOKEN_LABEL or LATCHKEY_PKCS11_SLOT, LATCHKEY_PKCS11_PIN
 * or LATCHKEY_PKCS11_PIN_FILE, and LATCHKEY_PKCS11_KEY_LABEL (default latchkey-master-key).
 */
export function pkcs11SettingsFromEnv(env: NodeJS.ProcessEnv): Pkcs11Settings {
  const module = env.LATCHKEY_PKCS11_MODULE;
  if (!module)
    throw new KeyWrapperError("PKCS#11: set LATCHKEY_PKCS11_MODULE to the HSM vendor's PKCS#11 library");
  const tokenLabel = env.LATCHKEY_PKCS11_TOKEN_LABEL || undefined;
  const slotText = env.LATCHKEY_PKCS11_SLOT || undefined;
  if (!tokenLabel && !slotText)
    throw new KeyWrapperError(
      "PKCS#11: set LATCHKEY_PKCS11_TOKEN_LABEL (or LATCHKEY_PKCS11_SLOT) to name the token",
    );
  if (slotText && !/^\d+$/.test(slotText))
    throw new KeyWrapperError("PKCS#11: LATCHKEY_PKCS11_SLOT takes a slot id (a whole number)");
  let pin = env.LATCHKEY_PKCS11_PIN;
  if (!pin && env.LATCHKEY_PKCS11_PIN_FILE) {
    if (!existsSync(env.LATCHKEY_PKCS11_PIN_FILE))
      throw new KeyWrapperError(`PKCS#11: no PIN file at ${env.LATCHKEY_PKCS11_PIN_FILE}`);
    pin = readFileSync(env.LATCHKEY_PKCS11_PIN_FILE, "utf8").trim();
  }
  if (!pin)
    throw new KeyWrapperError(
      "PKCS#11: set LATCHKEY_PKCS11_PIN or LATCHKEY_PKCS11_PIN_FILE (the token's user PIN)",
    );
  return {
    module,
    ...(tokenLabel ? { tokenLabel } : {}),
    ...(slotText ? { slot: Number(slotText) } : {}),
    pin,
    keyLabel: env.LATCHKEY_PKCS11_KEY_LABEL || DEFAULT_PKCS11_KEY_LABEL,
  };
}

type Pkcs11Lib = typeof Pkcs11Js;
type Handle = Buffer;

/**
 * A PKCS#11 library is initialised once per process (C_Initialize again answers "already initialised") and
 * a token's login is shared by the process's sessions: both are counted here, so several services in one
 * process (tests, the CLI) share them and the last one out finalises.
 */
interface LoadedModule {
  lib: Pkcs11Lib;
  p11: Pkcs11Js.PKCS11;
  users: number;
  /** Per token (slot id hex): a hash of the PIN that logged the process in, and its open sessions. */
  logins: Map<string, { pinHash: string; sessions: number }>;
}
const modules = new Map<string, LoadedModule>();

function loadBinding(): Pkcs11Lib {
  try {
    const require = createRequire(import.meta.url);
    return require("pkcs11js") as Pkcs11Lib;
  } catch (err) {
    throw new KeyWrapperError(
      `PKCS#11: the pkcs11js binding is not installed or did not build (${(err as Error).message.split("\n")[0]}); install it beside @latchkey/server (npm i pkcs11js), which builds it with node-gyp`,
    );
  }
}

function acquireModule(path: string): LoadedModule {
  const loaded = modules.get(path);
  if (loaded) {
    loaded.users++;
    return loaded;
  }
  if (!existsSync(path)) throw new KeyWrapperError(`PKCS#11: no module at ${path} (LATCHKEY_PKCS11_MODULE)`);
  const lib = loadBinding();
  const p11 = new lib.PKCS11();
  try {
    p11.load(path);
    p11.C_Initialize();
  } catch (err) {
    if (ckr(err) !== "CKR_CRYPTOKI_ALREADY_INITIALIZED")
      throw new KeyWrapperError(`PKCS#11: the module ${path} did not load: ${(err as Error).message}`);
  }
  const m: LoadedModule = { lib, p11, users: 1, logins: new Map() };
  modules.set(path, m);
  return m;
}

function releaseModule(path: string, m: LoadedModule): void {
  m.users--;
  if (m.users > 0) return;
  modules.delete(path);
  try {
    m.p11.C_Finalize();
  } catch {
    // Finalising a module that a crashed session left behind: nothing more to release.
  }
}

/** The CKR_* name of a PKCS#11 error, if it is one. */
function ckr(err: unknown): string | undefined {
  const message = err instanceof Error ? err.message : "";
  return /CKR_[A-Z_]+/.exec(message)?.[0];
}

const trimLabel = (label: string) => label.replace(/[\s\0]+$/, "");

/** A CK_ULONG attribute or slot id (native byte order, little-endian on the platforms Node runs on). */
const ulong = (b: Buffer) => (b.length >= 8 ? Number(b.readBigUInt64LE(0)) : b.readUInt32LE(0));

interface OpenToken {
  m: LoadedModule;
  session: Handle;
  slotKey: string;
  tokenName: string;
}

/** Finds the token, opens a session and logs in; every failure says which setting is wrong. */
function openToken(settings: Pkcs11Settings, rw: boolean): OpenToken {
  const m = acquireModule(settings.module);
  const { lib, p11 } = m;
  let session: Handle | undefined;
  try {
    const slots = p11.C_GetSlotList(true);
    const tokens = slots.map((slot) => ({ slot, label: trimLabel(p11.C_GetTokenInfo(slot).label) }));
    const found =
      settings.slot !== undefined
        ? tokens.find((t) => ulong(t.slot) === settings.slot)
        : tokens.find((t) => t.label === settings.tokenLabel);
    const wanted =
      settings.slot !== undefined ? `in slot ${settings.slot}` : `labelled "${settings.tokenLabel}"`;
    if (!found) {
      const present = tokens.map((t) => `"${t.label}"`).join(", ") || "none";
      throw new KeyWrapperError(
        `PKCS#11: no token ${wanted} in ${settings.module} (tokens present: ${present}); check LATCHKEY_PKCS11_TOKEN_LABEL / LATCHKEY_PKCS11_SLOT`,
      );
    }
    const tokenName = `token "${found.label}"`;
    session = p11.C_OpenSession(found.slot, lib.CKF_SERIAL_SESSION | (rw ? lib.CKF_RW_SESSION : 0));
    const slotKey = found.slot.toString("hex");
    const pinHash = createHash("sha256").update(settings.pin).digest("hex");
    const login = m.logins.get(slotKey);
    if (login) {
      // The process is logged in already (another service in it): the token is not asked again, so the
      // PIN must at least be the one that logged in.
      if (login.pinHash !== pinHash)
        throw new KeyWrapperError(`PKCS#11: the PIN for ${tokenName} is wrong (LATCHKEY_PKCS11_PIN)`);
      login.sessions++;
    } else {
      try {
        p11.C_Login(session, lib.CKU_USER, settings.pin);
      } catch (err) {
        const code = ckr(err);
        if (code === "CKR_PIN_INCORRECT" || code === "CKR_PIN_LEN_RANGE")
          throw new KeyWrapperError(`PKCS#11: the PIN for ${tokenName} is wrong (LATCHKEY_PKCS11_PIN)`);
        if (code === "CKR_PIN_LOCKED")
          throw new KeyWrapperError(
            `PKCS#11: the user PIN of ${tokenName} is locked; unlock it with the SO PIN`,
          );
        if (code !== "CKR_USER_ALREADY_LOGGED_IN")
          throw new KeyWrapperError(
            `PKCS#11: logging in to ${tokenName} failed: ${code ?? (err as Error).message}`,
          );
      }
      m.logins.set(slotKey, { pinHash, sessions: 1 });
    }
    return { m, session, slotKey, tokenName };
  } catch (err) {
    if (session) {
      try {
        p11.C_CloseSession(session);
      } catch {
        // The session is gone with the error.
      }
    }
    releaseModule(settings.module, m);
    throw err instanceof KeyWrapperError ? err : new KeyWrapperError(`PKCS#11: ${(err as Error).message}`);
  }
}

function closeToken(settings: Pkcs11Settings, t: OpenToken): void {
  const login = t.m.logins.get(t.slotKey);
  if (login) {
    login.sessions--;
    // Closing a token's last session logs the process out of it.
    if (login.sessions === 0) t.m.logins.delete(t.slotKey);
  }
  try {
    t.m.p11.C_CloseSession(t.session);
  } catch {
    // Already closed (the module was finalised under it).
  }
  releaseModule(settings.module, t.m);
}

function findKeys(t: OpenToken, label: string): Handle[] {
  const { lib, p11 } = t.m;
  p11.C_FindObjectsInit(t.session, [
    { type: lib.CKA_CLASS, value: lib.CKO_SECRET_KEY },
    { type: lib.CKA_LABEL, value: label },
  ]);
  try {
    return p11.C_FindObjects(t.session, 16);
  } finally {
    p11.C_FindObjectsFinal(t.session);
  }
}

const GCM_IV_BYTES = 12;
const GCM_TAG_BYTES = 16;

/**
 * The master key as a non-extractable, sensitive AES-256 key in an HSM token, used through PKCS#11 with
 * CKM_AES_GCM: the key never leaves the token, so it never exists in this process. Output
 * iv (12) ‖ ciphertext ‖ tag (16), the layout of the local key's.
 * Its id is `p11-` and the key's CKA_ID (random, set by `initPkcs11Key`): instances that share the token,
 * or tokens holding a replicated copy of the key, open each other's data keys.
 */
export class Pkcs11KeyWrapper implements KeyWrapper {
  readonly id: string;
  readonly description: string;
  #token: OpenToken | undefined;
  readonly #key: Handle;
  readonly #settings: Pkcs11Settings;

  private constructor(settings: Pkcs11Settings, token: OpenToken, key: Handle, keyId: Buffer) {
    this.#settings = settings;
    this.#token = token;
    this.#key = key;
    this.id = `p11-${keyId.toString("hex")}`;
    this.description = `the AES key "${settings.keyLabel}" in PKCS#11 ${token.tokenName}`;
  }

  /** Logs in to the token and finds the key; refuses (KeyWrapperError) on a wrong PIN, no token or no key. */
  static open(settings: Pkcs11Settings): Pkcs11KeyWrapper {
    const token = openToken(settings, false);
    try {
      const { lib, p11 } = token.m;
      const keys = findKeys(token, settings.keyLabel);
      if (keys.length === 0)
        throw new KeyWrapperError(
          `PKCS#11: no key labelled "${settings.keyLabel}" in ${token.tokenName}; create it with \`latchkey hsm init\` (LATCHKEY_PKCS11_KEY_LABEL)`,
        );
      if (keys.length > 1)
        throw new KeyWrapperError(
          `PKCS#11: ${keys.length} keys are labelled "${settings.keyLabel}" in ${token.tokenName}; keep one`,
        );
      const key = keys[0] as Handle;
      const attrs = p11.C_GetAttributeValue(token.session, key, [
        { type: lib.CKA_ID },
        { type: lib.CKA_KEY_TYPE },
        { type: lib.CKA_EXTRACTABLE },
        { type: lib.CKA_SENSITIVE },
      ]);
      const [idAttr, typeAttr, extractable, sensitive] = attrs.map((a) => a.value as Buffer | undefined);
      if (!typeAttr || ulong(typeAttr) !== lib.CKK_AES)
        throw new KeyWrapperError(
          `PKCS#11: the key "${settings.keyLabel}" in ${token.tokenName} is not an AES key`,
        );
      if (extractable?.[0] || !sensitive?.[0])
        throw new KeyWrapperError(
          `PKCS#11: the key "${settings.keyLabel}" in ${token.tokenName} can leave the token (extractable or not sensitive); make a new one with \`latchkey hsm init\``,
        );
      if (!idAttr || idAttr.length === 0)
        throw new KeyWrapperError(
          `PKCS#11: the key "${settings.keyLabel}" in ${token.tokenName} has no CKA_ID; make it with \`latchkey hsm init\``,
        );
      return new Pkcs11KeyWrapper(settings, token, key, idAttr);
    } catch (err) {
      closeToken(settings, token);
      throw err;
    }
  }

  #session(): OpenToken {
    if (!this.#token) throw new Error("The PKCS#11 key wrapper is closed");
    return this.#token;
  }

  #gcm(iv: Buffer, context: string): Pkcs11Js.Mechanism {
    const { lib } = this.#session().m;
    const parameter: Pkcs11Js.AesGCM = {
      type: lib.CK_PARAMS_AES_GCM,
      iv,
      aad: Buffer.from(context),
      ivBits: GCM_IV_BYTES * 8,
      tagBits: GCM_TAG_BYTES * 8,
    };
    return { mechanism: lib.CKM_AES_GCM, parameter };
  }

  async wrap(dataKey: Buffer, context: string): Promise<Buffer> {
    const t = this.#session();
    const iv = randomBytes(GCM_IV_BYTES);
    t.m.p11.C_EncryptInit(t.session, this.#gcm(iv, context), this.#key);
    const out = t.m.p11.C_Encrypt(t.session, dataKey, Buffer.alloc(dataKey.length + GCM_TAG_BYTES));
    return Buffer.concat([iv, out]);
  }

  async unwrap(wrapped: Buffer, context: string): Promise<Buffer> {
    const t = this.#session();
    const iv = wrapped.subarray(0, GCM_IV_BYTES);
    t.m.p11.C_DecryptInit(t.session, this.#gcm(Buffer.from(iv), context), this.#key);
    try {
      return Buffer.from(
        t.m.p11.C_Decrypt(
          t.session,
          Buffer.from(wrapped.subarray(GCM_IV_BYTES)),
          Buffer.alloc(wrapped.length),
        ),
      );
    } catch (err) {
      throw new Error(
        `PKCS#11: the data key does not open with ${this.description} (${ckr(err) ?? "error"})`,
      );
    }
  }

  async close(): Promise<void> {
    const t = this.#token;
    this.#token = undefined;
    if (t) closeToken(this.#settings, t);
  }
}

/**
 * `latchkey hsm init`: generates the master key in the token (CKM_AES_KEY_GEN, 256 bits): a token object,
 * private, sensitive, never extractable, for encrypt/decrypt only, with a random CKA_ID. Refuses when a key
 * with the label exists, unless `replace` (which destroys it: whatever it wrapped no longer opens).
 */
export function initPkcs11Key(
  settings: Pkcs11Settings,
  opts: { replace?: boolean } = {},
): { id: string; token: string } {
  const token = openToken(settings, true);
  try {
    const { lib, p11 } = token.m;
    const existing = findKeys(token, settings.keyLabel);
    if (existing.length > 0 && !opts.replace)
      throw new KeyWrapperError(
        `PKCS#11: ${token.tokenName} already has a key labelled "${settings.keyLabel}"; nothing was changed (--replace destroys it, and every database it wraps stops opening)`,
      );
    for (const key of existing) p11.C_DestroyObject(token.session, key);
    const keyId = randomBytes(8);
    p11.C_GenerateKey(token.session, { mechanism: lib.CKM_AES_KEY_GEN }, [
      { type: lib.CKA_CLASS, value: lib.CKO_SECRET_KEY },
      { type: lib.CKA_KEY_TYPE, value: lib.CKK_AES },
      { type: lib.CKA_VALUE_LEN, value: 32 },
      { type: lib.CKA_LABEL, value: settings.keyLabel },
      { type: lib.CKA_ID, value: keyId },
      { type: lib.CKA_TOKEN, value: true },
      { type: lib.CKA_PRIVATE, value: true },
      { type: lib.CKA_SENSITIVE, value: true },
      { type: lib.CKA_EXTRACTABLE, value: false },
      { type: lib.CKA_MODIFIABLE, value: false },
      { type: lib.CKA_ENCRYPT, value: true },
      { type: lib.CKA_DECRYPT, value: true },
      { type: lib.CKA_WRAP, value: false },
      { type: lib.CKA_UNWRAP, value: false },
      { type: lib.CKA_SIGN, value: false },
      { type: lib.CKA_VERIFY, value: false },
      { type: lib.CKA_DERIVE, value: false },
    ]);
    return { id: `p11-${keyId.toString("hex")}`, token: token.tokenName };
  } finally {
    closeToken(settings, token);
  }
}
