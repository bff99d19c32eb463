import { decodeSplitImport, ErrorCode, type ImportSecretKind } from "@latchkey/protocol";
import {
  combineShares,
  decodeWalletSecret,
  mnemonicOfSecret,
  type PublicAccount,
  publicAccountOf,
  type WalletSecret,
  WalletSecretError,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import type { ServiceContext } from "../context";
import type { DerivedAccount } from "../crypto/wallet";
import type { Db } from "../db";
import { apiError } from "../errors";
import { checkAccounts, insertSplitAccounts, publicOf } from "../keyManagement/activities/createSplitWallet";
import { IMPORTED_WALLET_NAME } from "../users/importedWallet";
import { isSplitUser } from "../users/userStore";
import { openRequestShare, type RequestShare, splitUnsupported } from "./shareKey";

/** A wallet imported into a split app, as the service keeps it: its share sealed, its public accounts. */
export interface SplitImportedWallet {
  id: string;
  kind: ImportSecretKind;
  sealedServiceShare: string;
  /** In the wallet secret's order (`secret_index`). */
  accounts: PublicAccount[];
}

const invalidSecret = (what: string) =>
  apiError(ErrorCode.INVALID_IMPORT_SECRET, `The imported secret is ${what}`);

/**
 * A split app's import (docs/split-custody.md §5, Import): `plaintext` is what the import frame sealed to
 * the import key, the service's share only (`split:v1:`…); the request's `X-User-Share` is the user's.
 * As create_split_wallet: both shares are combined once, the secret must be a phrase's (its keys exactly
 * the ones its entropy derives) or one private key, and `accounts` exactly its public accounts in order
 * (400 INVALID_REQUEST). Answers the service share sealed for wallet `walletId`; every share, the secret
 * and the derived keys are wiped whatever happens. A whole secret (a frame that did not split) is refused
 * (400 INVALID_IMPORT_SECRET): a split user's wallet is never stored whole.
 */
export async function openSplitImport(
  ctx: Pick<ServiceContext, "serviceKeys" | "keyring" | "wallets">,
  args: {
    walletId: string;
    plaintext: Uint8Array;
    share: RequestShare | undefined;
    accounts: PublicAccount[] | undefined;
  },
): Promise<SplitImportedWallet> {
  const serviceShare = decodeSplitImport(args.plaintext);
  if (!serviceShare)
    throw invalidSecret("not split: in a split app the import frame keeps the user's share on the device");
  let userShare: Uint8Array | undefined;
  let encoded: Uint8Array | undefined;
  let secret: WalletSecret | undefined;
  let derived: WalletSecret | undefined;
  let derivedAccounts: DerivedAccount[] = [];
  try {
    if (!args.accounts) {
      throw apiError(ErrorCode.INVALID_REQUEST, "A split import names the imported wallet's accounts");
    }
    userShare = await openRequestShare(ctx, args.share);
    try {
      encoded = await combineShares(userShare, serviceShare);
      secret = decodeWalletSecret(encoded);
    } catch (e) {
      if (e instanceof WalletSecretError) {
        throw apiError(ErrorCode.USER_SHARE_INVALID, "The two shares do not combine to a wallet secret");
      }
      throw e;
    }
    let kind: ImportSecretKind;
    let expected: PublicAccount[];
    if (secret.entropy.length > 0) {
      if (secret.entropy.length !== 16 && secret.entropy.length !== 32) {
        throw invalidSecret("not a 12- or 24-word BIP-39 recovery phrase");
      }
      kind = "mnemonic";
      // The service's own derivation, as for create_split_wallet and every imported phrase.
      derivedAccounts = await ctx.wallets.derive(mnemonicOfSecret(secret) ?? "");
      derived = {
        entropy: new Uint8Array(0),
        accounts: derivedAccounts.map((a) => ({ curve: a.curve, privateKey: a.privateKey })),
      };
      expected = derivedAccounts.map(publicOf);
    } else {
      const [only] = secret.accounts;
      if (!only || secret.accounts.length !== 1) {
        throw invalidSecret("neither a phrase nor one private key");
      }
      kind = only.curve === "CURVE_SECP256K1" ? "evm_private_key" : "solana_private_key";
      let account: PublicAccount;
      try {
        account = publicAccountOf(only, "");
      } catch {
        throw invalidSecret("not a private key of its kind");
      }
      // The key is its own derivation: the secret checked against itself, the accounts against it.
      derived = {
        entropy: new Uint8Array(0),
        accounts: [{ curve: only.curve, privateKey: only.privateKey.slice() }],
      };
      expected = [account];
    }
    checkAccounts(secret, derived, expected, args.accounts);
    return {
      id: args.walletId,
      kind,
      sealedServiceShare: ctx.keyring.seal(serviceShare, `wallet_share:${args.walletId}`),
      accounts: expected,
    };
  } finally {
    userShare?.fill(0);
    serviceShare.fill(0);
    encoded?.fill(0);
    if (secret) wipeWalletSecret(secret);
    if (derived) wipeWalletSecret(derived);
    for (const a of derivedAccounts) a.privateKey.fill(0);
  }
}

/**
 * Whether `user`'s import is split: their wallet is split, or will be (isSplitUser). A split app's user
 * whose own wallet is not made yet cannot import (409 SPLIT_CUSTODY_UNSUPPORTED): the key holder keeps
 * the first wallet's share as the organisation's (docs/split-custody.md §5, Import), and core makes that
 * wallet at sign-in, before anything else can run.
 */
export async function splitImportOf(
  ctx: Pick<ServiceContext, "db" | "apps">,
  user: { orgId: string; appId: string },
): Promise<boolean> {
  if (!(await isSplitUser(ctx, user))) return false;
  const wallet = await ctx.db
    .selectFrom("wallets")
    .select("id")
    .where("org_id", "=", user.orgId)
    .executeTakeFirst();
  if (!wallet) throw splitUnsupported("Importing a wallet before the user's own wallet is made");
  return true;
}

/**
 * Stores a split import as one more wallet of the user (`org_id`), in the caller's transaction: the
 * service share sealed, no phrase (`""`), each account's place in the secret and no key (`""`).
 */
export async function insertSplitImportedWallet(
  tx: { db: Db; random: { uuid(): string } },
  params: { wallet: SplitImportedWallet; userId: string; orgId: string; now: number },
): Promise<void> {
  const { wallet, userId, orgId, now } = params;
  await tx.db
    .insertInto("wallets")
    .values({
      id: wallet.id,
      org_id: orgId,
      user_id: userId,
      name: IMPORTED_WALLET_NAME,
      sealed_mnemonic: "",
      custody: "split",
      sealed_service_share: wallet.sealedServiceShare,
      created_at: now,
      imported: wallet.kind,
    })
    .execute();
  await insertSplitAccounts(tx, { walletId: wallet.id, orgId, accounts: wallet.accounts, now });
}
