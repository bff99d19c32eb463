import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Db } from "../db";

/**
 * Envelope encryption for secrets at rest (DESIGN §4): each secret is sealed with AES-256-GCM under a
 * data key; data keys are stored wrapped (AES-256-GCM) by the master key (KEK), which never touches the
 * database. Sealed values are bound to their row by associated data, so a sealed key cannot be moved to
 * another account.
 */
export class Keyring {
  readonly #kek: Buffer;
  readonly #kekId: string;
  readonly #dataKeys = new Map<string, Buffer>();
  #activeId = "";

  constructor(
    private readonly db: Db,
    masterKey: Buffer,
  ) {
    if (masterKey.length !== 32) throw new Error("The master key must be 32 bytes");
    this.#kek = masterKey;
    this.#kekId = createHash("sha256").update("latchkey-kek-id").update(masterKey).digest("hex").slice(0, 16);
  }

  get kekId(): string {
    return this.#kekId;
  }

  /** Loads the active data key, creating the first one on a fresh database. */
  async init(): Promise<void> {
    const active = await this.db
      .selectFrom("data_keys")
      .selectAll()
      .where("active", "=", 1)
      .orderBy("created_at", "desc")
      .executeTakeFirst();
    if (active) {
      this.#dataKeys.set(active.id, this.#unwrap(active.id, active.wrapped_key, active.kek_id));
      this.#activeId = active.id;
      return;
    }
    const id = randomUUID();
    const key = randomBytes(32);
    await this.db
      .insertInto("data_keys")
      .values({
        id,
        wrapped_key: this.#wrap(id, key),
        kek_id: this.#kekId,
        active: 1,
        created_at: Date.now(),
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
    this.#dataKeys.set(id, key);
    this.#activeId = id;
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
      key = this.#unwrap(row.id, row.wrapped_key, row.kek_id);
      this.#dataKeys.set(keyId, key);
    }
    const raw = Buffer.from(data, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
  }

  /** A key for keyed hashes (OTP codes), derived from the master key so it never sits in the database. */
  deriveKey(purpose: string): Buffer {
    return Buffer.from(hkdfSync("sha256", this.#kek, Buffer.alloc(0), `latchkey:${purpose}`, 32));
  }

  /** Re-wraps every data key under a new master key; sealed secrets are untouched. */
  static async rotateMasterKey(db: Db, oldKey: Buffer, newKey: Buffer): Promise<number> {
    const oldRing = new Keyring(db, oldKey);
    const newRing = new Keyring(db, newKey);
    return db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom("data_keys").selectAll().execute();
      for (const row of rows) {
        const key = oldRing.#unwrap(row.id, row.wrapped_key, row.kek_id);
        await trx
          .updateTable("data_keys")
          .set({ wrapped_key: newRing.#wrap(row.id, key), kek_id: newRing.#kekId })
          .where("id", "=", row.id)
          .execute();
      }
      return rows.length;
    });
  }

  #wrap(id: string, key: Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#kek, iv);
    cipher.setAAD(Buffer.from(`data_key:${id}`));
    return Buffer.concat([iv, cipher.update(key), cipher.final(), cipher.getAuthTag()]).toString("base64");
  }

  #unwrap(id: string, wrapped: string, kekId: string): Buffer {
    if (kekId !== this.#kekId) {
      throw new Error("This database's data keys were wrapped by a different master key");
    }
    const raw = Buffer.from(wrapped, "base64");
    const decipher = createDecipheriv("aes-256-gcm", this.#kek, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(`data_key:${id}`));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
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
