import {
  BundleError,
  decodeImportSecret,
  ErrorCode,
  ImportSecretError,
  openEncryptedImportBundle,
  readEncryptedImportBundle,
} from "@latchkey/protocol";
import {
  insertSplitImportedWallet,
  openSplitImport,
  type SplitImportedWallet,
  splitImportOf,
} from "../../custody/splitImport";
import type { Db } from "../../db";
import { isUniqueViolation } from "../../db/uniqueViolation";
import { apiError } from "../../errors";
import { hit } from "../../limits/rateLimit";
import { walletImportedMail } from "../../mail/templates";
import { requireFreshSignIn, type StepUpProofUsed, spendStepUpToken } from "../../sessions/stepUp";
import {
  type ImportedWallet,
  insertImportedWallet,
  isBip39Mnemonic,
  sealImportedWallet,
} from "../../users/importedWallet";
import { userAddresses } from "../../users/userStore";
import { defineActivity } from "../defineActivity";
import { addressKey } from "./createSplitWallet";

interface Prepared {
  keyId: string;
  wallet: ImportedWallet | (SplitImportedWallet & { split: true });
  stepUp: StepUpProofUsed;
  /** The verification token's code, spent in the transaction (single use). */
  spendOtpId?: string;
  /** The addresses the app used before: the audit entry names what the import replaced. */
  before: { address?: string; solanaAddress?: string };
}

/**
 * `import_wallet`: a recovery phrase or a private key the user typed into the import frame, sealed there
 * to a key from `init_import_wallet`. Checked in order: the user's import rate; a fresh sign-in (step-up,
 * sessions/stepUp.ts, as for export); the bundle names an import key of this user
 * (INVALID_IMPORT_BUNDLE), unused (IMPORT_KEY_USED) and alive (IMPORT_KEY_EXPIRED); it opens with that key;
 * what it holds is a 12- or 24-word BIP-39 phrase or a key of its kind (INVALID_IMPORT_SECRET); its
 * accounts are not the user's already (WALLET_ALREADY_IMPORTED) nor any other user's, in any app
 * (WALLET_HELD_BY_ANOTHER_USER: checked again in the transaction). Then, in one transaction, the key is spent
 * (its private half erased), the wallet stored (sealed like every wallet) and audited; the account's email
 * is told. The imported accounts are the ones the app uses from now on (the newest account of each chain:
 * users/userStore.ts `userAddresses`); the earlier wallet stays the user's, unchanged.
 *
 * A split user's import (docs/split-custody.md §5, Import): the bundle holds only the service's share, the
 * request's `X-User-Share` the user's, and `accounts` the public accounts; both shares are combined once
 * and checked as create_split_wallet's (custody/splitImport.ts), and the wallet is stored split (its
 * service share sealed, no phrase, no key) under the import key's id, the id the frame kept its share under.
 */
export const importWallet = defineActivity<"ACTIVITY_TYPE_IMPORT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_IMPORT_WALLET",
  async prepare(ctx, { caller, params, share }) {
    const user = caller.user;
    const split = await splitImportOf(ctx, user);
    if (!split && params.accounts) {
      throw apiError(ErrorCode.INVALID_REQUEST, "Only a split wallet's import names its accounts");
    }
    // Before the step-up: a refused attempt counts too, so guessing codes here is bounded.
    await hit(ctx, {
      key: `import-wallet:${user.id}`,
      limit: ctx.limits.exportsPerUser,
      message: "Too many wallet imports. Try again later.",
    });
    const { spendOtpId, used } = await requireFreshSignIn(ctx, {
      caller,
      appId: user.appId,
      proof: { verificationToken: params.verificationToken, multiFactor: params.multiFactor },
    });
    let targetPublicKey: string;
    try {
      targetPublicKey = readEncryptedImportBundle(params.encryptedBundle).targetPublicKey;
    } catch {
      throw apiError(
        ErrorCode.INVALID_IMPORT_BUNDLE,
        "The encrypted bundle is not one the import frame makes",
      );
    }
    const key = await ctx.db
      .selectFrom("import_keys")
      .select(["id", "sealed_private_key", "expires_at", "used_at"])
      .where("public_key", "=", targetPublicKey)
      .where("user_id", "=", user.id)
      .executeTakeFirst();
    if (!key)
      throw apiError(
        ErrorCode.INVALID_IMPORT_BUNDLE,
        "The encrypted bundle is sealed to no import key of yours",
      );
    if (key.used_at != null)
      throw apiError(ErrorCode.IMPORT_KEY_USED, "This import key was used already: start the import again");
    if (Number(key.expires_at) <= ctx.now())
      throw apiError(ErrorCode.IMPORT_KEY_EXPIRED, "This import key has expired: start the import again");
    const importPrivateKey = await ctx.keyring.open(key.sealed_private_key, `import_key:${key.id}`);
    let plaintext: Uint8Array;
    try {
      plaintext = await openEncryptedImportBundle({
        encryptedBundle: params.encryptedBundle,
        importPrivateKey,
      });
    } catch (e) {
      if (!(e instanceof BundleError)) throw e;
      throw apiError(
        ErrorCode.INVALID_IMPORT_BUNDLE,
        "The encrypted bundle does not open with its import key",
      );
    } finally {
      importPrivateKey.fill(0);
    }
    let wallet: Prepared["wallet"];
    try {
      wallet = split
        ? {
            ...(await openSplitImport(ctx, {
              walletId: key.id,
              plaintext,
              share,
              accounts: params.accounts,
            })),
            split: true,
          }
        : await sealImportedWallet(ctx, decodeImportSecret(plaintext, isBip39Mnemonic));
    } catch (e) {
      if (!(e instanceof ImportSecretError)) throw e;
      throw apiError(ErrorCode.INVALID_IMPORT_SECRET, `The imported secret is ${e.message}`);
    } finally {
      plaintext.fill(0);
    }
    const owned = await ctx.db
      .selectFrom("wallet_accounts")
      .select("address")
      .where("org_id", "=", user.orgId)
      .where("address_key", "in", addressKeys(wallet))
      .execute();
    if (owned.length > 0) throw alreadyImported();
    await refuseHeldByOthers(ctx.db, user.orgId, wallet);
    return {
      keyId: key.id,
      wallet,
      stepUp: used,
      before: await userAddresses(ctx.db, user.orgId),
      ...(spendOtpId ? { spendOtpId } : {}),
    };
  },
  async run(tx, { caller, prepared }) {
    const user = caller.user;
    const now = tx.now();
    // Spent once, whatever races it: the private half goes with it.
    const spent = await tx.db
      .updateTable("import_keys")
      .set({ used_at: now, sealed_private_key: "" })
      .where("id", "=", prepared.keyId)
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1)
      throw apiError(ErrorCode.IMPORT_KEY_USED, "This import key was used already: start the import again");
    if (prepared.spendOtpId) await spendStepUpToken(tx, prepared.spendOtpId);
    // Again in the transaction: another user may have imported the same key since prepare looked.
    await refuseHeldByOthers(tx.db, user.orgId, prepared.wallet);
    try {
      const { wallet } = prepared;
      if ("split" in wallet) {
        await insertSplitImportedWallet(tx, { wallet, userId: user.id, orgId: user.orgId, now });
      } else {
        await insertImportedWallet(tx.db, { wallet, userId: user.id, orgId: user.orgId, now });
      }
    } catch (e) {
      if (isUniqueViolation(e)) throw alreadyImported();
      throw e;
    }
    const importedAddresses = prepared.wallet.accounts.map((a) => a.address);
    await tx.audit(
      "wallet.imported",
      {
        appId: user.appId,
        userId: user.id,
        details: {
          walletId: prepared.wallet.id,
          kind: prepared.wallet.kind,
          ...("split" in prepared.wallet ? { custody: "split" } : {}),
          addresses: importedAddresses,
          replaced: prepared.before,
          stepUp: prepared.stepUp,
        },
      },
      tx.db,
    );
    const after = await userAddresses(tx.db, user.orgId);
    return {
      walletId: prepared.wallet.id,
      kind: prepared.wallet.kind,
      address: after.address,
      solanaAddress: after.solanaAddress ?? "",
      importedAddresses,
    };
  },
  afterCommit(ctx, { caller }) {
    const to = caller.user.email;
    if (!to) return;
    ctx.mailer.sendOnceBuilt(
      ctx.apps
        .byId(caller.user.appId)
        .then((app) => app && walletImportedMail({ to, appName: app.name, locale: app.locale })),
    );
  },
});

/**
 * WALLET_HELD_BY_ANOTHER_USER when an account of `wallet` is in another organisation (another user, of
 * this app or another): whoever holds either account could spend from both. Found by `address_key`
 * (indexed: wallet_accounts_address_key).
 */
async function refuseHeldByOthers(db: Db, orgId: string, wallet: Prepared["wallet"]): Promise<void> {
  const held = await db
    .selectFrom("wallet_accounts")
    .select("org_id")
    .where("address_key", "in", addressKeys(wallet))
    .where("org_id", "!=", orgId)
    .limit(1)
    .executeTakeFirst();
  if (held)
    throw apiError(
      ErrorCode.WALLET_HELD_BY_ANOTHER_USER,
      "This wallet is another account's: a key can be imported into one account only",
    );
}

function alreadyImported() {
  return apiError(ErrorCode.WALLET_ALREADY_IMPORTED, "This wallet is already in your account");
}

/** The `address_key`s of the imported accounts (lower-case EVM addresses, Solana's as they are). */
function addressKeys(wallet: Prepared["wallet"]): string[] {
  return "split" in wallet ? wallet.accounts.map(addressKey) : wallet.accounts.map((a) => a.address_key);
}
