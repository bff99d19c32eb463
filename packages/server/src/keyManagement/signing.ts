import { createHash } from "node:crypto";
import {
  ErrorCode,
  type HashFunction,
  type PayloadEncoding,
  type SignRawPayloadResult,
} from "@latchkey/protocol";
import { keccak_256 } from "@noble/hashes/sha3";
import { signEd25519, signSecp256k1 } from "../crypto/wallet";
import { type UserShareSource, withSplitKey } from "../custody/splitKey";
import { apiError } from "../errors";
import type { ActivityContext } from "./defineActivity";
import { isStructuredEncoding, readStructuredPayload, structuredDigest } from "./policies/structuredPayloads";

function payloadBytes(payload: string, encoding: PayloadEncoding): Uint8Array {
  if (encoding === "PAYLOAD_ENCODING_TEXT_UTF8") return new TextEncoder().encode(payload);
  const h = payload.replace(/^0x/, "");
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) {
    throw apiError(ErrorCode.INVALID_REQUEST, "payload is not valid hex for PAYLOAD_ENCODING_HEXADECIMAL");
  }
  return new Uint8Array(Buffer.from(h, "hex"));
}

function hashPayload(bytes: Uint8Array, fn: HashFunction): Uint8Array {
  if (fn === "HASH_FUNCTION_SHA256") return new Uint8Array(createHash("sha256").update(bytes).digest());
  if (fn === "HASH_FUNCTION_KECCAK256") return keccak_256(bytes);
  return bytes;
}

const MAX_CACHED_ACCOUNTS = 10_000;

/**
 * The organisation's account `signWith` (an EVM or Solana address), still sealed; 404 ACCOUNT_NOT_FOUND
 * if it has none. Wallet accounts never change once made, so their rows are cached for the signing path;
 * except a split app's whole wallet, which changes once, when it is split (docs/split-custody.md §3.1).
 */
export async function findSigningAccount(
  ctx: Pick<ActivityContext, "db" | "caches">,
  params: { orgId: string; signWith: string },
) {
  const key = params.signWith.startsWith("0x") ? params.signWith.toLowerCase() : params.signWith;
  const cacheKey = `${params.orgId}/${key}`;
  const cache = ctx.caches.signingAccounts;
  let account = cache.get(cacheKey);
  if (!account) {
    const row = await ctx.db
      .selectFrom("wallet_accounts")
      .innerJoin("wallets", "wallets.id", "wallet_accounts.wallet_id")
      .innerJoin("users", "users.id", "wallets.user_id")
      .innerJoin("apps", "apps.id", "users.app_id")
      .select([
        "apps.custody as app_custody",
        "wallet_accounts.id",
        "wallet_accounts.curve",
        "wallet_accounts.sealed_private_key",
        "wallet_accounts.secret_index",
        "wallet_accounts.public_key",
        "wallet_accounts.wallet_id",
        "wallets.custody",
        "wallets.sealed_service_share",
      ])
      .where("wallet_accounts.org_id", "=", params.orgId)
      .where("wallet_accounts.address_key", "=", key)
      .executeTakeFirst();
    if (!row) {
      throw apiError(
        ErrorCode.ACCOUNT_NOT_FOUND,
        `No wallet account ${params.signWith} in this organization`,
      );
    }
    account = {
      id: row.id,
      curve: row.curve,
      sealed: row.sealed_private_key,
      ...(row.custody === "split" && row.sealed_service_share && row.secret_index != null
        ? {
            split: {
              walletId: row.wallet_id,
              secretIndex: Number(row.secret_index),
              publicKey: row.public_key,
              sealedServiceShare: row.sealed_service_share,
            },
          }
        : {}),
    };
    // A whole wallet of a split app is split at its user's next sign-in (complete_split_wallet destroys
    // the whole key): its row is read each time, so no process (worker) keeps naming the destroyed key.
    if (row.custody === "split" || row.app_custody !== "split") {
      if (cache.size >= MAX_CACHED_ACCOUNTS) cache.delete(cache.keys().next().value as string);
      cache.set(cacheKey, account);
    }
  }
  return account;
}

/**
 * Signs one payload: secp256k1 over a 32-byte digest (r, s, recovery id), or ed25519 over the bytes;
 * typed data, an authorization or a message over the hash the service computes of it.
 */
export function signOne(
  curve: "CURVE_SECP256K1" | "CURVE_ED25519",
  privateKey: Uint8Array,
  params: { payload: string; encoding: PayloadEncoding; hashFunction: HashFunction },
): SignRawPayloadResult {
  if (isStructuredEncoding(params.encoding)) {
    // Typed data, an authorization, a message: the service computes what is signed (its policy read it).
    if (curve !== "CURVE_SECP256K1")
      throw apiError(ErrorCode.INVALID_REQUEST, `${params.encoding} is signed by an EVM account`);
    const payload = readStructuredPayload(params.payload, params.encoding, params.hashFunction);
    const sig = signSecp256k1(structuredDigest(payload), privateKey);
    return { r: sig.r, s: sig.s, v: sig.v.toString(16).padStart(2, "0") };
  }
  const message = hashPayload(payloadBytes(params.payload, params.encoding), params.hashFunction);
  if (curve === "CURVE_SECP256K1") {
    if (params.hashFunction === "HASH_FUNCTION_NOT_APPLICABLE") {
      throw apiError(
        ErrorCode.INVALID_REQUEST,
        "secp256k1 accounts need a hash function (HASH_FUNCTION_NO_OP for a ready digest)",
      );
    }
    if (message.length !== 32) {
      throw apiError(ErrorCode.INVALID_REQUEST, "secp256k1 signs a 32-byte digest; payload is not 32 bytes");
    }
    const sig = signSecp256k1(message, privateKey);
    return { r: sig.r, s: sig.s, v: sig.v.toString(16).padStart(2, "0") };
  }
  const sig = signEd25519(message, privateKey);
  const hex = Buffer.from(sig).toString("hex");
  return { r: hex.slice(0, 64), s: hex.slice(64), v: "00" };
}

/**
 * Runs `sign` with the opened key of the caller's account `signWith`, and wipes the key after, whatever
 * happens. Call it only once every rule (policy, grant, approval, step-up) has passed. A split wallet's
 * account (docs/split-custody.md) needs the request's user share (`share`): its key is put together
 * from both shares for this one signature (custody/splitKey.ts), and without a share nothing is opened
 * (403 USER_SHARE_REQUIRED). Under a grant the share is the one the grant holds (`HeldShare`).
 */
export async function withSigningKey<T>(
  ctx: Pick<ActivityContext, "db" | "keyring" | "caches" | "serviceKeys">,
  params: { orgId: string; signWith: string; share?: UserShareSource | undefined },
  sign: (curve: "CURVE_SECP256K1" | "CURVE_ED25519", privateKey: Uint8Array) => T,
): Promise<T> {
  const account = await findSigningAccount(ctx, params);
  if (account.split)
    return withSplitKey(ctx, { curve: account.curve, split: account.split }, params.share, sign);
  const privateKey = await ctx.keyring.open(account.sealed, `wallet_account:${account.id}`);
  try {
    return sign(account.curve, privateKey);
  } finally {
    privateKey.fill(0);
  }
}
