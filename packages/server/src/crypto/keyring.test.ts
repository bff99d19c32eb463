import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../db/index";
import { Keyring, loadMasterKey, parseMasterKey } from "./keyring";
import { loadKeyWrapper } from "./keyWrap/loadKeyWrapper";
import { LocalKeyWrapper, localKeyId } from "./keyWrap/localKey";

const KEY_A = Buffer.alloc(32, 1);
const KEY_B = Buffer.alloc(32, 2);

let opened: OpenedDatabase;
let db: Db;
beforeEach(async () => {
  opened = openDatabase(":memory:");
  db = opened.db;
  await migrate(db);
});
afterEach(() => opened.close());

const ready = async (key: Buffer = KEY_A) => {
  const k = new Keyring(db, Buffer.from(key));
  await k.init();
  return k;
};

describe("LocalKeyWrapper", () => {
  it("wraps to iv ‖ ciphertext ‖ tag, bound to its context, under a 32-byte key only", async () => {
    const w = new LocalKeyWrapper(KEY_A);
    const dataKey = Buffer.alloc(32, 7);
    const wrapped = await w.wrap(dataKey, "data_key:x");
    expect(wrapped.length).toBe(12 + 32 + 16);
    expect(await w.unwrap(wrapped, "data_key:x")).toEqual(dataKey);
    await expect(w.unwrap(wrapped, "data_key:y")).rejects.toThrow();
    await expect(new LocalKeyWrapper(KEY_B).unwrap(wrapped, "data_key:x")).rejects.toThrow();
    expect(() => new LocalKeyWrapper(Buffer.alloc(31))).toThrow("The master key must be 32 bytes");
    expect(w.id).toBe(localKeyId(KEY_A));
    expect(w.id).toMatch(/^[0-9a-f]{16}$/);
    expect(localKeyId(KEY_B)).not.toBe(w.id);
    expect(w.description).toBe("the master key from LATCHKEY_MASTER_KEY or its key file");
  });

  it("keeps its own copy of the key, and wipes it on close", async () => {
    const key = Buffer.from(KEY_A);
    const w = new LocalKeyWrapper(key);
    key.fill(9);
    const wrapped = await w.wrap(Buffer.alloc(32, 7), "c");
    expect(await new LocalKeyWrapper(KEY_A).unwrap(wrapped, "c")).toEqual(Buffer.alloc(32, 7));
    await w.close();
    // Wiped: the wrapper now holds the all-zero key.
    const zero = await new LocalKeyWrapper(Buffer.alloc(32)).wrap(Buffer.alloc(32, 3), "c");
    expect(await w.unwrap(zero, "c")).toEqual(Buffer.alloc(32, 3));
  });
});

describe("Keyring", () => {
  it("seals to a row: opens with the same context only, and not before init", async () => {
    const cold = new Keyring(db, KEY_A);
    expect(() => cold.seal(Buffer.from("x"), "c")).toThrow("Keyring not initialised");
    expect(() => cold.deriveKey("otp")).toThrow("Keyring not initialised");
    const k = await ready();
    const sealed = k.seal(new TextEncoder().encode("secret words"), "wallet:1");
    expect(sealed).toMatch(/^v1\.dk-first\.[A-Za-z0-9_-]+$/);
    expect((await k.open(sealed, "wallet:1")).toString()).toBe("secret words");
    await expect(k.open(sealed, "wallet:2")).rejects.toThrow();
    expect(k.seal(Buffer.from("a"), "c")).not.toBe(k.seal(Buffer.from("a"), "c"));
  });

  it("refuses a sealed value of another format, or of an unknown data key", async () => {
    const k = await ready();
    const sealed = k.seal(Buffer.from("s"), "c");
    const [, , data] = sealed.split(".");
    await expect(k.open(`v2.dk-first.${data}`, "c")).rejects.toThrow("Unknown sealed secret format");
    await expect(k.open(`v1..${data}`, "c")).rejects.toThrow("Unknown sealed secret format");
    await expect(k.open("v1.dk-first.", "c")).rejects.toThrow("Unknown sealed secret format");
    await expect(k.open(`v1.dk-nope.${data}`, "c")).rejects.toThrow("Data key not found");
  });

  it("opens in another process (a fresh keyring) by reading the data key from the database", async () => {
    const sealed = (await ready()).seal(Buffer.from("s"), "c");
    const again = new Keyring(db, KEY_A);
    await again.init();
    expect((await again.open(sealed, "c")).toString()).toBe("s");
    expect(again.kekId).toBe(localKeyId(KEY_A));
    expect(again.kekDescription).toBe("the master key from LATCHKEY_MASTER_KEY or its key file");
    const rows = await db.selectFrom("data_keys").selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: "dk-first", kek_id: localKeyId(KEY_A), active: 1 });
  });

  it("opens a value sealed under a data key not in memory, reading it once from the database", async () => {
    const sealed = (await ready()).seal(Buffer.from("s"), "c");
    const cold = new Keyring(db, KEY_A);
    expect((await cold.open(sealed, "c")).toString()).toBe("s");
    await db.deleteFrom("data_keys").execute();
    expect((await cold.open(sealed, "c")).toString()).toBe("s");
    await expect(new Keyring(db, KEY_A).open(sealed, "c")).rejects.toThrow("Data key not found");
  });

  it("refuses a database wrapped by another master key, or half-rotated, writing nothing", async () => {
    await ready(KEY_A);
    await expect(ready(KEY_B)).rejects.toThrow(
      `This database's data keys were wrapped by a different master key (${localKeyId(KEY_A)}), not the master key from LATCHKEY_MASTER_KEY or its key file (${localKeyId(KEY_B)})`,
    );
    await db
      .insertInto("data_keys")
      .values({ id: "dk-b", wrapped_key: "", kek_id: localKeyId(KEY_B), active: 0, created_at: 1 })
      .execute();
    await expect(ready(KEY_A)).rejects.toThrow(
      `This database is half-rotated: 1 of 2 data keys are wrapped by another master key (${localKeyId(KEY_B)})`,
    );
    expect(await db.selectFrom("data_keys").select("id").execute()).toHaveLength(2);
  });

  it("derives the same keyed-hash key in every instance, distinct per purpose", async () => {
    const a = (await ready()).deriveKey("otp");
    const b = (await ready()).deriveKey("otp");
    expect(a).toHaveLength(32);
    expect(a).toEqual(b);
    expect((await ready()).deriveKey("other")).not.toEqual(a);
  });

  it("forgets its data keys on close", async () => {
    const k = await ready();
    await k.close();
    expect(() => k.seal(Buffer.from("x"), "c")).toThrow("Keyring not initialised");
  });

  it("rotates the master key: sealed values still open under the new one, the old one is refused", async () => {
    const sealed = (await ready(KEY_A)).seal(Buffer.from("s"), "c");
    expect(await Keyring.rotateMasterKey(db, Buffer.from(KEY_A), Buffer.from(KEY_B))).toBe(1);
    expect((await (await ready(KEY_B)).open(sealed, "c")).toString()).toBe("s");
    await expect(ready(KEY_A)).rejects.toThrow("different master key");
    // Again: nothing left to re-wrap.
    expect(await Keyring.rotateMasterKey(db, [Buffer.from(KEY_A)], Buffer.from(KEY_B))).toBe(0);
    await expect(Keyring.rotateMasterKey(db, [], Buffer.from(KEY_A))).rejects.toThrow(
      `Data key dk-first is wrapped by master key ${localKeyId(KEY_B)}, which is none of the keys given to rotate from (none); nothing was changed`,
    );
  });
});

describe("master key", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-key-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("parses 64 hex characters or base64 of 32 bytes, trimmed, and nothing else", () => {
    expect(parseMasterKey(` ${"ab".repeat(32)}\n`)).toEqual(Buffer.alloc(32, 0xab));
    expect(parseMasterKey(Buffer.alloc(32, 3).toString("base64"))).toEqual(Buffer.alloc(32, 3));
    expect(() => parseMasterKey("ab".repeat(31))).toThrow("The master key must be 32 bytes");
  });

  it("comes from LATCHKEY_MASTER_KEY, else the key file; dev mode creates a missing file 0600", () => {
    const hex = "cd".repeat(32);
    const file = join(dir, "sub", "master.key");
    expect(loadMasterKey({ env: { LATCHKEY_MASTER_KEY: hex }, keyFile: file, dev: true })).toEqual(
      Buffer.from(hex, "hex"),
    );
    expect(() => loadMasterKey({ env: {}, keyFile: file, dev: false })).toThrow("No master key");
    const made = loadMasterKey({ env: {}, keyFile: file, dev: true });
    expect(made).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(`${made.toString("hex")}\n`);
    expect(loadMasterKey({ env: {}, keyFile: file, dev: false })).toEqual(made);
    const other = join(dir, "other.key");
    writeFileSync(other, "ef".repeat(32));
    expect(loadMasterKey({ env: { LATCHKEY_MASTER_KEY_FILE: other }, keyFile: file, dev: false })).toEqual(
      Buffer.alloc(32, 0xef),
    );
    expect(() => loadMasterKey({ env: {}, dev: true })).toThrow("No master key");
  });

  it("refusing another key, says which key was tried and where the database's own key is", async () => {
    const file = join(dir, ".latchkey", "master.key");
    const first = await loadKeyWrapper({ env: {}, keyFile: file, dev: true });
    await new Keyring(db, first).init();
    const firstKey = readFileSync(file, "utf8").trim();
    // The id the message gives is the one it explains how to compute.
    expect(first.id).toBe(
      createHash("sha256")
        .update("latchkey-kek-id")
        .update(Buffer.from(firstKey, "hex"))
        .digest("hex")
        .slice(0, 16),
    );
    // A dev whose .latchkey/master.key went away: a new one is written, and the database refuses it.
    rmSync(file);
    const fresh = await loadKeyWrapper({ env: {}, keyFile: file, dev: true });
    await expect(new Keyring(db, fresh).init()).rejects.toThrow(
      `This database's data keys were wrapped by a different master key (${first.id}), not a new master key, just written to ${file} because no key file was there (${fresh.id}). Start with the master key this database was created with: the LATCHKEY_MASTER_KEY or LATCHKEY_MASTER_KEY_FILE it ran with`,
    );
    const fromEnv = await loadKeyWrapper({ env: { LATCHKEY_MASTER_KEY: "ab".repeat(32) }, dev: false });
    await expect(new Keyring(db, fromEnv).init()).rejects.toThrow(
      `not the master key in LATCHKEY_MASTER_KEY (${fromEnv.id}). Start with`,
    );
    const fromFile = await loadKeyWrapper({ env: {}, keyFile: file, dev: false });
    await expect(new Keyring(db, fromFile).init()).rejects.toThrow(
      `not the master key in the key file ${file} (`,
    );
    // With the right key back, it opens.
    writeFileSync(file, firstKey);
    await new Keyring(db, await loadKeyWrapper({ env: {}, keyFile: file, dev: false })).init();
  });
});
