import { timingSafeEqual } from "node:crypto";
import { type CreateSplitWalletResult, ErrorCode } from "@latchkey/protocol";
import {
  combineShares,
  decodeWalletSecret,
  type PublicAccount,
  type WalletSecret,
  WalletSecretError,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import { type DerivedAccount, entropyToMnemonic } from "../../crypto/wallet";
import { openNewServiceShare, openRequestShare, requireShare } from "../../custody/shareKey";
import type { Db } from "../../db";
import { prepared, rowSlots } from "../../db/prepared";
import { apiError } from "../../errors";
import { type ActivityContext, defineActivity } from "../defineActivity";

/** A checked split wallet, ready to record: its id, the service share sealed for it, its public accounts. */
export interface SplitWalletRows {
  walletId: string;
  sealedServiceShare: string;
  accounts: PublicAccount[];
}
type Prepared = SplitWalletRows;

const walletExists = () =>
  apiError(ErrorCode.WALLET_EXISTS, "This user has a wallet already: a user has one wallet");

const mismatch = (what: string) =>
  apiError(ErrorCode.INVALID_REQUEST, `The accounts do not match the wallet the shares make: ${what}`);

/**
 * `create_split_wallet` (docs/split-custody.md §3): the wallet the user's key holder made, split 2-of-2.
 * Checked in order: the user has no wallet (409 WALLET_EXISTS); the request carries the user share
 * (403 USER_SHARE_REQUIRED) and it opens for this body, the service share opens for this organisation,
 * and the two combine to a wallet secret (400 USER_SHARE_INVALID); the service derives the accounts from
 * the secret's entropy itself and requires that they, and the keys inside the secret, are exactly the
 * `accounts` sent (400 INVALID_REQUEST); no other wallet holds one of them (409). Then the service share
 * is stored sealed (`wallet_share:<walletId>`) with the public rows: no phrase, no private key. Every
 * share, the secret and the derived keys are wiped, whatever happens; none is ever recorded.
 */
export const createSplitWallet = defineActivity<"ACTIVITY_TYPE_CREATE_SPLIT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
  async prepare(ctx, { caller, params, share }) {
    if (await hasWallet(ctx.db, caller.user.orgId)) throw walletExists();
    requireShare(share);
    let userShare: Uint8Array | undefined;
    let serviceShare: Uint8Array | undefined;
    try {
      serviceShare = await openNewServiceShare(ctx, {
        sealed: params.serviceShare,
        organizationId: caller.user.orgId,
      });
      userShare = await openRequestShare(ctx, share);
      return await prepareSplitWallet(ctx, { userShare, serviceShare, accounts: params.accounts });
    } finally {
      userShare?.fill(0);
      serviceShare?.fill(0);
    }
  },
  async run(tx, { caller, prepared }): Promise<CreateSplitWalletResult> {
    return recordSplitWallet(tx, { user: caller.user, prepared });
  },
});

/**
 * A new split wallet's checks, outside any transaction (docs/split-custody.md §3): the two opened shares
 * combine to a wallet secret (400 USER_SHARE_INVALID); its entropy is a BIP-39 phrase's, its keys are
 * exactly the ones the entropy derives and `accounts` exactly the derived ones (400 INVALID_REQUEST); no
 * wallet holds one of them (409). Answers the service share sealed for the new wallet and its public rows.
 * The combined secret and the derived keys are wiped here, whatever happens; the caller wipes the shares.
 * Also the sign-in's wallet (`/v1/otp`'s `splitWallet`, features/email/verifyEmailOtp.ts).
 */
export async function prepareSplitWallet(
  ctx: Pick<ActivityContext, "db" | "wallets" | "keyring" | "random">,
  params: { userShare: Uint8Array; serviceShare: Uint8Array; accounts: PublicAccount[] },
): Promise<SplitWalletRows> {
  let encoded: Uint8Array | undefined;
  let secret: WalletSecret | undefined;
  let derived: WalletSecret | undefined;
  let derivedAccounts: DerivedAccount[] = [];
  try {
    try {
      encoded = await combineShares(params.userShare, params.serviceShare);
      secret = decodeWalletSecret(encoded);
    } catch (e) {
      if (e instanceof WalletSecretError) {
        throw apiError(ErrorCode.USER_SHARE_INVALID, "The two shares do not combine to a wallet secret");
      }
      throw e;
    }
    if (secret.entropy.length < 16 || secret.entropy.length > 32 || secret.entropy.length % 4 !== 0) {
      throw mismatch("a split wallet is a BIP-39 phrase of 12 to 24 words");
    }
    // The service's own derivation (its wallet threads: native PBKDF2 and secp256k1), the one every
    // service wallet is made with; protocol/custody's walletOfEntropy derives the same accounts.
    derivedAccounts = await ctx.wallets.derive(entropyToMnemonic(secret.entropy));
    derived = {
      entropy: new Uint8Array(0),
      accounts: derivedAccounts.map((a) => ({ curve: a.curve, privateKey: a.privateKey })),
    };
    checkAccounts(secret, derived, derivedAccounts.map(publicOf), params.accounts);
    await assertUnheld(ctx.db, params.accounts);
    const walletId = ctx.random.uuid();
    return {
      walletId,
      sealedServiceShare: ctx.keyring.seal(params.serviceShare, `wallet_share:${walletId}`),
      accounts: derivedAccounts.map(publicOf),
    };
  } finally {
    encoded?.fill(0);
    if (secret) wipeWalletSecret(secret);
    if (derived) wipeWalletSecret(derived);
    for (const a of derivedAccounts) a.privateKey.fill(0);
  }
}

/**
 * Records a prepared split wallet in the caller's transaction: the user's row locked (two creations at
 * once: one wins, the other 409 WALLET_EXISTS), the wallet, its public accounts and `wallet.created`.
 */
export async function recordSplitWallet(
  tx: Pick<ActivityContext, "db" | "now" | "random" | "audit">,
  params: { user: { id: string; orgId: string; appId: string }; prepared: SplitWalletRows },
): Promise<CreateSplitWalletResult> {
  const { user, prepared } = params;
  // Serialises two creations for one user (PostgreSQL takes the row's lock; SQLite has one writer).
  await lockUser(tx.db, { id: user.id });
  if (await hasWallet(tx.db, user.orgId)) throw walletExists();
  const now = tx.now();
  await insertWallet(tx.db, {
    id: prepared.walletId,
    org_id: user.orgId,
    user_id: user.id,
    name: "Default wallet",
    sealed_mnemonic: "",
    custody: "split",
    sealed_service_share: prepared.sealedServiceShare,
    created_at: now,
  });
  await insertSplitAccounts(tx, {
    walletId: prepared.walletId,
    orgId: user.orgId,
    accounts: prepared.accounts,
    now,
  });
  const addresses = prepared.accounts.map((a) => a.address);
  await tx.audit(
    "wallet.created",
    {
      appId: user.appId,
      userId: user.id,
      details: { walletId: prepared.walletId, custody: "split", addresses },
    },
    tx.db,
  );
  return { walletId: prepared.walletId, addresses };
}

export const publicOf = (a: DerivedAccount): PublicAccount => ({
  curve: a.curve,
  path: a.path,
  addressFormat: a.addressFormat,
  address: a.address,
  publicKey: a.publicKey,
});

export const addressKey = (a: PublicAccount) =>
  a.addressFormat === "ADDRESS_FORMAT_ETHEREUM" ? a.address.toLowerCase() : a.address;

// A split sign-up's transaction: each statement compiled once (db/prepared.ts).
const lockUser = prepared((db, $) =>
  db
    .updateTable("users")
    .set({ id: $("id") })
    .where("id", "=", $("id")),
);
const walletOfOrg = prepared((db, $) =>
  db.selectFrom("wallets").select("id").where("org_id", "=", $("orgId")).limit(1),
);
const insertWallet = prepared((db, $) =>
  db
    .insertInto("wallets")
    .values(
      rowSlots($, [
        "id",
        "org_id",
        "user_id",
        "name",
        "sealed_mnemonic",
        "custody",
        "sealed_service_share",
        "created_at",
      ] as const),
    ),
);
const insertAccount = prepared((db, $) =>
  db
    .insertInto("wallet_accounts")
    .values(
      rowSlots($, [
        "id",
        "wallet_id",
        "org_id",
        "curve",
        "path",
        "address_format",
        "address",
        "address_key",
        "public_key",
        "sealed_private_key",
        "secret_index",
        "created_at",
      ] as const),
    ),
);

/**
 * A split wallet's public accounts, each with its place in the secret (`secret_index`) and no key (`""`):
 * made by a key holder (`create_split_wallet`) or split in the import frame (custody/splitImport.ts).
 */
export async function insertSplitAccounts(
  tx: { db: Db; random: { uuid(): string } },
  params: { walletId: string; orgId: string; accounts: readonly PublicAccount[]; now: number },
): Promise<void> {
  for (const [i, a] of params.accounts.entries()) {
    await insertAccount(tx.db, {
      id: tx.random.uuid(),
      wallet_id: params.walletId,
      org_id: params.orgId,
      curve: a.curve,
      path: a.path,
      address_format: a.addressFormat,
      address: a.address,
      address_key: addressKey(a),
      public_key: a.publicKey,
      sealed_private_key: "",
      secret_index: i,
      created_at: params.now,
    });
  }
}

async function hasWallet(db: Db, orgId: string): Promise<boolean> {
  return (await walletOfOrg(db, { orgId })).length > 0;
}

/**
 * The secret's keys must be the ones its entropy derives (a key holder cannot slip another key in), and
 * the accounts sent must be exactly the derived ones, in order.
 */
export function checkAccounts(
  secret: WalletSecret,
  derived: WalletSecret,
  derivedAccounts: PublicAccount[],
  sent: PublicAccount[],
): void {
  if (secret.accounts.length !== derived.accounts.length) throw mismatch("the number of accounts");
  for (const [i, key] of secret.accounts.entries()) {
    const expected = derived.accounts[i];
    if (!expected || key.curve !== expected.curve || !timingSafeEqual(key.privateKey, expected.privateKey)) {
      throw mismatch(`account ${i} is not the one the phrase derives`);
    }
  }
  if (sent.length !== derivedAccounts.length) throw mismatch("the number of accounts");
  for (const [i, a] of derivedAccounts.entries()) {
    const s = sent[i];
    if (
      !s ||
      s.curve !== a.curve ||
      s.path !== a.path ||
      s.addressFormat !== a.addressFormat ||
      s.address !== a.address ||
      s.publicKey.toLowerCase() !== a.publicKey
    ) {
      throw mismatch(`account ${i} (${s?.address ?? "missing"})`);
    }
  }
}

/** 409 when another wallet (this user's or anyone's) holds one of the accounts already. */
async function assertUnheld(db: ActivityContext["db"], accounts: PublicAccount[]): Promise<void> {
  const held = await db
    .selectFrom("wallet_accounts")
    .select("address")
    .where("address_key", "in", accounts.map(addressKey))
    .executeTakeFirst();
  if (held) {
    throw apiError(
      ErrorCode.WALLET_HELD_BY_ANOTHER_USER,
      `The account ${held.address} belongs to another wallet`,
    );
  }
}
