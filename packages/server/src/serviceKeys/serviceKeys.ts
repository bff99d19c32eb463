import { ed25519 } from "@noble/curves/ed25519";
import { p256 } from "@noble/curves/nist";
import { secp256k1 } from "@noble/curves/secp256k1";
import { sha256 } from "@noble/hashes/sha2";
import { base58 } from "@scure/base";
import { type Address, type Hex, hashMessage, toHex } from "viem";
import { privateKeyToAddress, sign } from "viem/accounts";
import type { Keyring } from "../crypto/keyring";
import type { Db } from "../db";

/**
 * Each purpose's curve: the paymaster signs EVM messages (secp256k1); SIWE tokens are ES256 JWTs (P-256);
 * the Solana fee payer signs the transactions it pays for (ed25519); the export signer signs export
 * bundles, which the export frame checks against the key it pins (P-256, DESIGN §3.4).
 */
const CURVES = {
  paymaster: "secp256k1",
  siwe: "p256",
  solanaFeePayer: "ed25519",
  exportSigner: "p256",
  /** Signs import bundles (a fresh key per wallet import), which the import frame checks against the key it pins. */
  importSigner: "p256",
  /** Signs the identity token of a sign-in through an OAuth 2.0 provider that has no ID token (Facebook…). */
  oauthIdentity: "p256",
  /**
   * Split custody's share key (docs/split-custody.md §2): an HPKE (DHKEM P-256) key the user's key holder
   * seals its share to, per request, and a new wallet's service share to. Never signs.
   */
  share: "p256",
} as const;

/** What a service key is for; one key per purpose. */
export type ServiceKeyPurpose = keyof typeof CURVES;
/** The purposes whose key is on `curve`. */
type PurposeOn<C extends string> = {
  [P in ServiceKeyPurpose]: (typeof CURVES)[P] extends C ? P : never;
}[ServiceKeyPurpose];

interface KeyRow {
  id: string;
  /**
   * The EVM address (secp256k1), the compressed public key in hex (P-256) or the Solana address (ed25519,
   * base58 of the public key): the row's `address`.
   */
  publicPart: string;
  sealed: string;
}

/** The public part stored beside a key: what the key is checked against when it is opened. */
function publicPartOf(purpose: ServiceKeyPurpose, key: Uint8Array): string {
  if (CURVES[purpose] === "p256") return Buffer.from(p256.getPublicKey(key, true)).toString("hex");
  if (CURVES[purpose] === "ed25519") return base58.encode(ed25519.getPublicKey(key));
  return privateKeyToAddress(toHex(key));
}

/** What the keys need of the service (the context's Random, structurally: context.ts imports this module). */
interface ServiceKeysContext {
  db: Db;
  keyring: Keyring;
  now: () => number;
  random: { uuid(): string; bytes(n: number): Buffer };
}

/**
 * Keys the service itself holds: the signer of the verifying paymaster (secp256k1), the signer of
 * Sign-In with Ethereum session tokens (P-256) and the Solana fee payer (ed25519). Each is made once (CSPRNG), sealed at rest by the keyring
 * like every secret (`service_key:<id>`), and opened only to sign. Under concurrent first use by several
 * instances, the unique `purpose` decides: the first insert wins and everyone reads that row. A master-key
 * rotation re-wraps the data keys, so these need nothing.
 *
 * @example
 * const address = await ctx.serviceKeys.address("paymaster"); // what the operator registers on-chain
 * const signature = await ctx.serviceKeys.signMessageHash("paymaster", hash);
 * const jws = await ctx.serviceKeys.signEs256("siwe", signingInput); // r‖s, 64 bytes
 * const feePayer = await ctx.serviceKeys.solanaAddress("solanaFeePayer"); // base58, to fund
 * const signature = await ctx.serviceKeys.signEd25519("solanaFeePayer", messageBytes); // 64 bytes
 */
export class ServiceKeys {
  readonly #loaded = new Map<ServiceKeyPurpose, Promise<KeyRow>>();
  readonly #ctx: ServiceKeysContext;

  constructor(ctx: ServiceKeysContext) {
    this.#ctx = ctx;
  }

  /** The key's address, creating the key on first use. */
  async address(purpose: PurposeOn<"secp256k1">): Promise<Address> {
    return (await this.#row(purpose)).publicPart as Address;
  }

  /** The key's public key, compressed SEC1 (33 bytes), creating the key on first use. */
  async publicKey(purpose: PurposeOn<"p256">): Promise<Uint8Array> {
    return Buffer.from((await this.#row(purpose)).publicPart, "hex");
  }

  /** The key's Solana address (base58 of the ed25519 public key), creating the key on first use. */
  async solanaAddress(purpose: PurposeOn<"ed25519">): Promise<string> {
    return (await this.#row(purpose)).publicPart;
  }

  /** An ed25519 signature (RFC 8032, 64 bytes) over `message`, as Solana checks a transaction's. */
  async signEd25519(purpose: PurposeOn<"ed25519">, message: Uint8Array): Promise<Uint8Array> {
    const row = await this.#row(purpose);
    const key = await this.#ctx.keyring.open(row.sealed, `service_key:${row.id}`);
    try {
      return ed25519.sign(message, key);
    } finally {
      key.fill(0);
    }
  }

  /** An EIP-191 signature (`personal_sign`) over 32 bytes, as a verifying paymaster checks it. */
  async signMessageHash(purpose: PurposeOn<"secp256k1">, hash: Hex): Promise<Hex> {
    const row = await this.#row(purpose);
    const key = await this.#ctx.keyring.open(row.sealed, `service_key:${row.id}`);
    try {
      return await sign({ hash: hashMessage({ raw: hash }), privateKey: toHex(key), to: "hex" });
    } finally {
      key.fill(0);
    }
  }

  /** An ECDSA P-256 signature over SHA-256(`data`) in DER, low s: what an export bundle carries. */
  async signP256Der(purpose: PurposeOn<"p256">, data: Uint8Array): Promise<Uint8Array> {
    const row = await this.#row(purpose);
    const key = await this.#ctx.keyring.open(row.sealed, `service_key:${row.id}`);
    try {
      return p256.sign(sha256(data), key, { lowS: true }).toDERRawBytes();
    } finally {
      key.fill(0);
    }
  }

  /** An ES256 signature (JWS, RFC 7518 §3.4): ECDSA P-256 over SHA-256(`data`), r‖s in 64 bytes. */
  async signEs256(purpose: PurposeOn<"p256">, data: Uint8Array): Promise<Uint8Array> {
    const row = await this.#row(purpose);
    const key = await this.#ctx.keyring.open(row.sealed, `service_key:${row.id}`);
    try {
      return p256.sign(sha256(data), key).toCompactRawBytes();
    } finally {
      key.fill(0);
    }
  }

  /**
   * Runs `use` with the opened private key of a P-256 purpose (the share key's HPKE opening), and wipes
   * the key after, whatever happens.
   */
  async withPrivateKey<T>(
    purpose: PurposeOn<"p256">,
    use: (privateKey: Uint8Array) => Promise<T>,
  ): Promise<T> {
    const row = await this.#row(purpose);
    const key = await this.#ctx.keyring.open(row.sealed, `service_key:${row.id}`);
    try {
      return await use(key);
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
      const key = this.#newKey(purpose);
      try {
        await db
          .insertInto("service_keys")
          .values({
            id,
            purpose,
            address: publicPartOf(purpose, key),
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
    // Opened once here: a key that does not open (another master key) or does not match its public part
    // is an error at first use, not a bad signature later.
    const key = await keyring.open(row.sealed_key, `service_key:${row.id}`);
    try {
      if (publicPartOf(purpose, key) !== row.address)
        throw new Error(`The ${purpose} service key does not match its public key`);
    } finally {
      key.fill(0);
    }
    return { id: row.id, publicPart: row.address, sealed: row.sealed_key };
  }

  #newKey(purpose: ServiceKeyPurpose): Buffer {
    // Any 32 bytes are an ed25519 secret key (RFC 8032 §5.1.5 hashes them).
    if (CURVES[purpose] === "ed25519") return this.#ctx.random.bytes(32);
    const curve = CURVES[purpose] === "p256" ? p256 : secp256k1;
    for (let i = 0; i < 16; i++) {
      const key = this.#ctx.random.bytes(32);
      if (curve.utils.isValidPrivateKey(key)) return key;
      key.fill(0);
    }
    throw new Error(`The random source gave no valid ${CURVES[purpose]} key`);
  }
}
