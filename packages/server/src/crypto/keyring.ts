import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Db } from "../db";
import { type KeyWrapper, KeyWrapperError } from "./keyWrap/keyWrapper";
import { LocalKeyWrapper } from "./keyWrap/localKey";

export type { KeyWrapper } from "./keyWrap/keyWrapper";

/** The first data key of a database: a fixed id, so instances starting together on an empty one agree. */
const FIRST_DATA_KEY_ID = "dk-first";

const wrapContext = (id: string) => `data_key:${id}`;
const asWrapper = (key: Buffer | KeyWrapper) => (Buffer.isBuffer(key) ? new LocalKeyWrapper(key) : key);

/**
 * Envelope encryption for secrets at rest (DESIGN §4): each secret is sealed with AES-256-GCM under a
 * data key; data keys are stored wrapped by the master key (KEK) through a `KeyWrapper`: a key held in the
 * process, or a key that never leaves an HSM. The master key never touches the database. Sealed values are
 * bound to their row by associated data, so a sealed key cannot be moved to another account.
 * Data keys are unwrapped once per process and kept: sealing and opening never call the wrapper again.
 */
export class Keyring {
  readonly #wrapper: KeyWrapper;
  readonly #dataKeys = new Map<string, Buffer>();
  #activeId = "";

  /** `masterKey`: 32 bytes, or a wrapper (which `close()` closes). */
  constructor(
    private readonly db: Db,
    masterKey: Buffer | KeyWrapper,
  ) {
    this.#wrapper = asWrapper(masterKey);
  }

  /** The id of the master key that wraps this keyring's data keys. */
  get kekId(): string {
    return this.#wrapper.id;
  }

  /** What the master key is, for messages. */
  get kekDescription(): string {
    return this.#wrapper.description;
  }

  /**
   * Checks that every data key of the database is wrapped by this master key (refusing a database that is
   * wrapped by another one, or half-rotated between two), then opens the active data key, creating the
   * first one on a fresh database. Writes nothing when it refuses.
   */
  async init(): Promise<void> {
    const rows = await this.db.selectFrom("data_keys").select(["id", "kek_id"]).execute();
    const foreign = rows.filter((r) => r.kek_id !== this.#wrapper.id);
    if (foreign.length > 0 && foreign.length === rows.length) {
      const ids = [...new Set(foreign.map((r) => r.kek_id))];
      throw new KeyWrapperError(
        `This database's data keys were wrapped by a different master key (${ids.join(", ")}), not ${this.#wrapper.description} (${this.#wrapper.id}). ${whereTheKeyIs(ids)}`,
      );
    }
    if (foreign.length > 0) {
      throw new KeyWrapperError(
        `This database is half-rotated: ${foreign.length} of ${rows.length} data keys are wrapped by another master key (${[...new Set(foreign.map((r) => r.kek_id))].join(", ")}) than ${this.#wrapper.description} (${this.#wrapper.id}). Run \`latchkey rotate-master-key\` again with both keys to finish it`,
      );
    }
    if (rows.length === 0) {
      const key = randomBytes(32);
      const wrapped = await this.#wrapper.wrap(key, wrapContext(FIRST_DATA_KEY_ID));
      key.fill(0);
      await this.db
        .insertInto("data_keys")
        .values({
          id: FIRST_DATA_KEY_ID,
          wrapped_key: wrapped.toString("base64"),
          kek_id: this.#wrapper.id,
          active: 1,
          created_at: Date.now(),
        })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
    // The oldest active key: every instance picks the same one (keyed hashes derive from it).
    const active = await this.db
      .selectFrom("data_keys")
      .selectAll()
      .where("active", "=", 1)
      .orderBy("created_at", "asc")
      .orderBy("id", "asc")
      .executeTakeFirstOrThrow();
    this.#dataKeys.set(active.id, await this.#unwrap(active.id, active.wrapped_key, active.kek_id));
    this.#activeId = active.id;
  }

  /** Seals `plaintext` for storage; `context` names the row it belongs to (e.g. `wallet_account:<id>`). */
  seal(plaintext: Uint8Array, context: string): string {
    const key = this.#dataKeys.get(this.#activeId);
    if (!key) throw new Error("Keyring not initialised");
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(context));
    const ct = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
    return `v1.${this.#activeId}.${Buffer.concat([iv, ct]).toString("base64url")}`;
  }

  async open(sealed: string, context: string): Promise<Buffer> {
    const [version, keyId, data] = sealed.split(".");
    if (version !== "v1" || !keyId || !data) throw new Error("Unknown sealed secret format");
    let key = this.#dataKeys.get(keyId);
    if (!key) {
      const row = await this.db
        .selectFrom("data_keys")
        .selectAll()
        .where("id", "=", keyId)
        .executeTakeFirst();
      if (!row) throw new Error("Data key not found");
      key = await this.#unwrap(row.id, row.wrapped_key, row.kek_id);
      this.#dataKeys.set(keyId, key);
    }
    const raw = Buffer.from(data, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
  }

  /**
   * A key for keyed hashes (OTP codes), derived from the active data key: it never sits in the database
   * unwrapped, is the same in every instance, and survives a rotation of the master key.
   */
  deriveKey(purpose: string): Buffer {
    const key = this.#dataKeys.get(this.#activeId);
    if (!key) throw new Error("Keyring not initialised");
    return Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), `latchkey:${purpose}`, 32));
  }

  /** Forgets the data keys and closes the master key's wrapper (its HSM session). */
  async close(): Promise<void> {
    for (const key of this.#dataKeys.values()) key.fill(0);
    this.#dataKeys.clear();
    await this.#wrapper.close();
  }

  /**
   * Re-wraps every data key under `to` (a new key, or an HSM's), each opened by whichever of `from` wrapped
   * it (by `kek_id`); sealed secrets are untouched. One transaction: a crash leaves every data key as it
   * was, and a database left mixed by anything else is finished by running it again. Keys already wrapped
   * by `to` are left as they are. Each new wrapping is checked to open before it is written. Returns the
   * number re-wrapped. Wrappers made here from bytes are closed here; given wrappers are not.
   */
  static async rotateMasterKey(
    db: Db,
    from: Buffer | KeyWrapper | (Buffer | KeyWrapper)[],
    to: Buffer | KeyWrapper,
  ): Promise<number> {
    const given = Array.isArray(from) ? from : [from];
    const sources = given.map(asWrapper);
    const target = asWrapper(to);
    const made = [
      ...sources.filter((_, i) => Buffer.isBuffer(given[i])),
      ...(Buffer.isBuffer(to) ? [target] : []),
    ];
    try {
      return await db.transaction().execute(async (trx) => {
        const rows = await trx.selectFrom("data_keys").selectAll().execute();
        let n = 0;
        for (const row of rows) {
          if (row.kek_id === target.id) continue;
          const source = sources.find((s) => s.id === row.kek_id);
          if (!source)
            throw new KeyWrapperError(
              `Data key ${row.id} is wrapped by master key ${row.kek_id}, which is none of the keys given to rotate from (${sources.map((s) => s.id).join(", ") || "none"}); nothing was changed`,
            );
          const key = await source.unwrap(Buffer.from(row.wrapped_key, "base64"), wrapContext(row.id));
          const wrapped = await target.wrap(key, wrapContext(row.id));
          const back = await target.unwrap(wrapped, wrapContext(row.id));
          const same = back.equals(key);
          key.fill(0);
          back.fill(0);
          if (!same)
            throw new Error(`Re-wrapping data key ${row.id} did not round-trip; nothing was changed`);
          await trx
            .updateTable("data_keys")
            .set({ wrapped_key: wrapped.toString("base64"), kek_id: target.id })
            .where("id", "=", row.id)
            .where("kek_id", "=", row.kek_id)
            .execute();
          n++;
        }
        return n;
      });
    } finally {
      for (const w of made) await w.close();
    }
  }

  async #unwrap(id: string, wrapped: string, kekId: string): Promise<Buffer> {
    if (kekId !== this.#wrapper.id) {
      throw new KeyWrapperError("This database's data keys were wrapped by a different master key");
    }
    return this.#wrapper.unwrap(Buffer.from(wrapped, "base64"), wrapContext(id));
  }
}

/** Parses a master key given as 64 hex characters or base64 of 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, "hex") : Buffer.from(t, "base64");
  if (key.length !== 32) throw new Error("The master key must be 32 bytes (64 hex characters or base64)");
  return key;
}

/**
 * The master key from `LATCHKEY_MASTER_KEY`, else from a key file. In dev mode a missing key file is
 * created with 0600 permissions; elsewhere a missing key is an error (never silently a new key).
 */
/** Where the master key a database needs is, by its id, for the message that refuses another one. */
function whereTheKeyIs(ids: readonly string[]): string {
  if (ids.every((id) => id.startsWith("p11-"))) {
    return "Start with the HSM that holds it: LATCHKEY_KEY_BACKEND=pkcs11 and the LATCHKEY_PKCS11_* settings (module, token, PIN, key label) the database was created with";
  }
  return 'Start with the master key this database was created with: the LATCHKEY_MASTER_KEY or LATCHKEY_MASTER_KEY_FILE it ran with (a restored backup needs the key in use when it was made), or, for a `serve --dev` database, the .latchkey/master.key file in the directory it first ran in. A key\'s id is the first 16 hex digits of SHA-256("latchkey-kek-id" ‖ key); `latchkey rotate-master-key` moves a database from one key to another';
}

export function loadMasterKey(opts: { env: NodeJS.ProcessEnv; keyFile?: string; dev: boolean }): Buffer {
  if (opts.env.LATCHKEY_MASTER_KEY) return parseMasterKey(opts.env.LATCHKEY_MASTER_KEY);
  const file = opts.env.LATCHKEY_MASTER_KEY_FILE ?? opts.keyFile;
  if (file && existsSync(file)) return parseMasterKey(readFileSync(file, "utf8"));
  if (file && opts.dev) {
    mkdirSync(dirname(file), { recursive: true });
    const key = randomBytes(32);
    writeFileSync(file, `${key.toString("hex")}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return key;
  }
  throw new Error(
    "No master key: set LATCHKEY_MASTER_KEY (64 hex characters) or LATCHKEY_MASTER_KEY_FILE, or run with --dev",
  );
}
