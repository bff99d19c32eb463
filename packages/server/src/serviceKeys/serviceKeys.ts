import { secp256k1 } from "@noble/curves/secp256k1";
import { type Address, type Hex, hashMessage, toHex } from "viem";
import { privateKeyToAddress, sign } from "viem/accounts";
import type { Keyring } from "../crypto/keyring";
import type { Db } from "../db";

/** What a service key is for; one key per purpose. */
export type ServiceKeyPurpose = "paymaster";

interface KeyRow {
  id: string;
  address: Address;
  sealed: string;
}

/** What the keys need of the service (the context's Random, structurally: context.ts imports this module). */
interface ServiceKeysContext {
  db: Db;
  keyring: Keyring;
  now: () => number;
  random: { uuid(): string; bytes(n: number): Buffer };
}

/**
 * secp256k1 keys the service itself holds, such as the signer of the verifying paymaster. Each is made
 * once (CSPRNG), sealed at rest by the keyring like every secret (`service_key:<id>`), and opened only to
 * sign. Under concurrent first use by several instances, the unique `purpose` decides: the first insert
 * wins and everyone reads that row. A master-key rotation re-wraps the data keys, so these need nothing.
 *
 * @example
 * const address = await ctx.serviceKeys.address("paymaster"); // what the operator registers on-chain
 * const signature = await ctx.serviceKeys.signMessageHash("paymaster", hash);
 */
export class ServiceKeys {
  readonly #loaded = new Map<ServiceKeyPurpose, Promise<KeyRow>>();
  readonly #ctx: ServiceKeysContext;

  constructor(ctx: ServiceKeysContext) {
    this.#ctx = ctx;
  }

  /** The key's address, creating the key on first use. */
  async address(purpose: ServiceKeyPurpose): Promise<Address> {
    return (await this.#row(purpose)).address;
  }

  /** An EIP-191 signature (`personal_sign`) over 32 bytes, as a verifying paymaster checks it. */
  async signMessageHash(purpose: ServiceKeyPurpose, hash: Hex): Promise<Hex> {
    const row = await this.#row(purpose);
    const key = await this.#ctx.keyring.open(row.sealed, `service_key:${row.id}`);
    try {
      return await sign({ hash: hashMessage({ raw: hash }), privateKey: toHex(key), to: "hex" });
    } finally {
      key.fill(0);
    }
  }

  #row(purpose: ServiceKeyPurpose): Promise<KeyRow> {
    let loaded = this.#loaded.get(purpose);
    if (!loaded) {
      loaded = this.#loadOrCreate(purpose);
      this.#loaded.set(purpose, loaded);
      // A failure (database down, wrong master key) is not remembered: the next use tries again.
      loaded.catch(() => this.#loaded.delete(purpose));
    }
    return loaded;
  }

  async #loadOrCreate(purpose: ServiceKeyPurpose): Promise<KeyRow> {
    const { db, keyring } = this.#ctx;
    const read = () =>
      db.selectFrom("service_keys").selectAll().where("purpose", "=", purpose).executeTakeFirst();
    let row = await read();
    if (!row) {
      const id = this.#ctx.random.uuid();
      const key = this.#newKey();
      try {
        await db
          .insertInto("service_keys")
          .values({
            id,
            purpose,
            address: privateKeyToAddress(toHex(key)),
            sealed_key: keyring.seal(key, `service_key:${id}`),
            created_at: this.#ctx.now(),
          })
          .onConflict((oc) => oc.column("purpose").doNothing())
          .execute();
      } finally {
        key.fill(0);
      }
      row = await read();
      if (!row) throw new Error(`The ${purpose} service key could not be stored`);
    }
    // Opened once here: a key that does not open (another master key) or does not match its address is
    // an error at first use, not a bad signature later.
    const key = await keyring.open(row.sealed_key, `service_key:${row.id}`);
    try {
      if (privateKeyToAddress(toHex(key)) !== row.address)
        throw new Error(`The ${purpose} service key does not match its address`);
    } finally {
      key.fill(0);
    }
    return { id: row.id, address: row.address as Address, sealed: row.sealed_key };
  }

  #newKey(): Buffer {
    for (let i = 0; i < 16; i++) {
      const key = this.#ctx.random.bytes(32);
      if (secp256k1.utils.isValidPrivateKey(key)) return key;
      key.fill(0);
    }
    throw new Error("The random source gave no valid secp256k1 key");
  }
}
