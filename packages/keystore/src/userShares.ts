// Static, not loaded on use: a dynamic import of the crypto index makes a bundler initialise its modules
// lazily, and the auth frame's stamp then ran before its constants were set.
import { encodeSplitImport, encryptToImportKey, type ImportSecret } from "@latchkey/protocol/crypto";
import type { PublicAccount, RecoveryBlob } from "@latchkey/protocol/custody";

/**
 * The user's shares of split-custody wallets (docs/split-custody.md): the device's half of each wallet,
 * by record name. Kept apart from the session: signing out forgets the session key, never a share.
 * Record names (docs/split-custody.md §5, Import): the organisation's id holds its first wallet's share
 * (the one core makes at sign-in or splits, as before wallets were keyed); `<organizationId>/<walletId>`
 * a further wallet's (an import); `<organizationId>#wallets` the list of those further wallets and their
 * addresses (UTF-8 JSON, {@link WalletShareEntry}), so the holder picks a signature's share by its account.
 */
export interface UserShareStorage {
  get(name: string): Promise<Uint8Array | null>;
  put(name: string, share: Uint8Array): Promise<void>;
}

/** A further wallet whose share a holder keeps (an imported one): its id and its public addresses. */
export interface WalletShareEntry {
  walletId: string;
  addresses: string[];
}

/** The record name of a further wallet's share. */
export const walletShareName = (organizationId: string, walletId: string) => `${organizationId}/${walletId}`;
const indexName = (organizationId: string) => `${organizationId}#wallets`;
const sameAddress = (a: string, b: string) =>
  a === b || (a.startsWith("0x") && b.startsWith("0x") && a.toLowerCase() === b.toLowerCase());

/** The further wallets whose shares `storage` keeps for `organizationId`, oldest first. */
export async function walletShareEntries(
  storage: UserShareStorage,
  organizationId: string,
): Promise<WalletShareEntry[]> {
  const bytes = await storage.get(indexName(organizationId));
  if (!bytes) return [];
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    return Array.isArray(parsed)
      ? parsed.filter(
          (e): e is WalletShareEntry =>
            typeof e?.walletId === "string" &&
            Array.isArray(e.addresses) &&
            e.addresses.every((a: unknown) => typeof a === "string"),
        )
      : [];
  } catch {
    return [];
  }
}

/**
 * Keeps a further wallet's share (an imported wallet's) under its id, and lists it with its addresses:
 * what the import frame does in the auth frame's storage, and a Node key holder in its own.
 */
export async function putWalletShare(
  storage: UserShareStorage,
  args: { organizationId: string; walletId: string; addresses: string[]; share: Uint8Array },
): Promise<void> {
  const { organizationId, walletId, addresses, share } = args;
  await storage.put(walletShareName(organizationId, walletId), share);
  const entries = (await walletShareEntries(storage, organizationId)).filter((e) => e.walletId !== walletId);
  entries.push({ walletId, addresses: [...addresses] });
  await storage.put(indexName(organizationId), new TextEncoder().encode(JSON.stringify(entries)));
}

/**
 * The record name of the share a body should carry: the further wallet that holds the body's account
 * (`signWith`, or the first of `accounts` for an import), or that it names (`walletId`); for a grant,
 * which signs with the newest EVM account (the one the app uses), the newest further wallet with one; the
 * organisation's first wallet otherwise (a held signature's completion names no account: docs §5).
 */
async function shareNameFor(
  storage: UserShareStorage,
  organizationId: string,
  body: string,
): Promise<string> {
  const entries = await walletShareEntries(storage, organizationId);
  if (entries.length === 0) return organizationId;
  let parsed: { type?: unknown; parameters?: Record<string, unknown> };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return organizationId;
  }
  const p = parsed.parameters ?? {};
  const accounts = Array.isArray(p.accounts) ? (p.accounts as { address?: unknown }[]) : [];
  const address =
    typeof p.signWith === "string"
      ? p.signWith
      : typeof accounts[0]?.address === "string"
        ? accounts[0].address
        : undefined;
  const byAddress = address && entries.find((e) => e.addresses.some((a) => sameAddress(a, address)));
  if (byAddress) return walletShareName(organizationId, byAddress.walletId);
  const byId = typeof p.walletId === "string" && entries.find((e) => e.walletId === p.walletId);
  if (byId) return walletShareName(organizationId, byId.walletId);
  if (parsed.type === "OPERATION_TYPE_CREATE_GRANT") {
    const newest = [...entries].reverse().find((e) => e.addresses.some((a) => a.startsWith("0x")));
    if (newest) return walletShareName(organizationId, newest.walletId);
  }
  return organizationId;
}

/** The record name of wallet `walletId`'s share: a listed further wallet's, else the first wallet's. */
async function shareNameOf(storage: UserShareStorage, organizationId: string, walletId?: string) {
  if (!walletId) return organizationId;
  const entries = await walletShareEntries(storage, organizationId);
  return entries.some((e) => e.walletId === walletId)
    ? walletShareName(organizationId, walletId)
    : organizationId;
}

/** A new split wallet as the key holder answers it: the service's share sealed to the share key, and the public accounts. */
export interface CreatedSplitWallet {
  serviceShare: string;
  accounts: PublicAccount[];
}

/**
 * A new user's wallet for the sign-in that issues their first session (`/v1/otp`'s `splitWallet`): both
 * shares sealed to the share key for that sign-in, and the public accounts.
 */
export interface SignInWallet {
  sealed: string;
  accounts: PublicAccount[];
}

/** A recovery factor's input: a passkey's PRF output, or a recovery code. */
export type RecoveryInput =
  | { prfOutput: Uint8Array; code?: undefined }
  | { code: string; prfOutput?: undefined };

/** What protecting a share answers: the blob for the service and, for a code, the code to show once. */
export interface ProtectedShare {
  blob: RecoveryBlob;
  code?: string;
}

/**
 * The split-custody operations every key holder runs the same way (the auth frame, the in-page WebCrypto
 * holder, the memory holder), over its own share storage. The protocol's custody code (BIP-39, BIP-32,
 * Shamir) loads on first use.
 */
export interface ShareHolder {
  /** Makes a wallet, keeps the user share, answers the service share sealed to `shareKey` and the accounts. */
  createSplitWallet(args: { organizationId: string; shareKey: string }): Promise<CreatedSplitWallet>;
  /**
   * A new user's wallet carried by the sign-in that issues their first session (docs/split-custody.md
   * §3): made here, both shares sealed to `shareKey` for that sign-in (organisation, code id, session
   * key), the user share kept **pending** in memory until {@link ShareHolder.keepSignInWallet} (a wrong
   * code, a sign-in refused: nothing is stored). A second call for the organisation replaces it.
   */
  prepareSignInWallet(args: {
    organizationId: string;
    shareKey: string;
    otpId: string;
    targetPublicKey: string;
  }): Promise<SignInWallet>;
  /**
   * The sign-in answered: keeps the pending share as the organisation's first wallet's when the service
   * recorded that wallet (`address`, the user's EVM address it answered, is the pending wallet's) and
   * answers true; otherwise forgets it and answers false. The pending share is wiped either way.
   */
  keepSignInWallet(args: { organizationId: string; address: string }): Promise<boolean>;
  /** Whether the device keeps the share of the first wallet, or with `walletId`, of that further (imported) wallet. */
  hasUserShare(args: { organizationId: string; walletId?: string }): Promise<boolean>;
  /**
   * The share of wallet `walletId` (a further wallet's when it is one, else the first wallet's) encrypted
   * under a PRF output, or under `code`, or a new code (answered once, with the blob).
   */
  protectShare(args: {
    organizationId: string;
    walletId: string;
    prfOutput?: Uint8Array;
    code?: string;
  }): Promise<ProtectedShare>;
  /**
   * Opens a recovery blob with the PRF output or the code, and keeps the share: as the first wallet's, or,
   * with `addresses`, as the further wallet `walletId`'s. RecoveryError when it does not open.
   */
  restoreShare(
    args: {
      organizationId: string;
      walletId: string;
      blob: RecoveryBlob;
      addresses?: string[];
    } & RecoveryInput,
  ): Promise<void>;
  /** The further wallets (imported ones) whose shares this device keeps, oldest first. */
  walletShares(args: { organizationId: string }): Promise<WalletShareEntry[]>;
  /**
   * Imports a phrase or a key into a split app as the import frame does (docs/split-custody.md §5,
   * Import): splits it, keeps the user share under `walletId` (the id the import bundle names), and
   * answers the service share sealed to the import key (`targetPublicKey`) and the public accounts,
   * what `import_wallet` takes. The caller checked the bundle.
   */
  importSplitWallet(args: {
    organizationId: string;
    walletId: string;
    targetPublicKey: string;
    secret: ImportSecret;
  }): Promise<{ encryptedBundle: string; accounts: PublicAccount[] }>;
  /** The share sealed to `shareKey` for `body`, when the body is one that carries it and a share is held. */
  userShareFor(body: string, shareKey: string | null): Promise<string | undefined>;
  /**
   * Moving a whole wallet to split custody (docs/split-custody.md §3.1), first step: a new ephemeral
   * P-256 key for this organisation's split (replacing an earlier one), its private half non-extractable
   * and in memory only. Answers its public key (uncompressed hex): begin_split_wallet's `targetPublicKey`.
   */
  beginSplit(args: { organizationId: string }): Promise<{ targetPublicKey: string }>;
  /**
   * Second step: opens begin_split_wallet's `userShare` with the ephemeral key and keeps it as the
   * organisation's share (complete_split_wallet then carries it). UserShareError when it does not open.
   */
  acceptSplitShare(args: { organizationId: string; walletId: string; userShare: string }): Promise<void>;
  /**
   * Whether the holder may stamp `body`: a begin_split_wallet only with the ephemeral key this holder
   * made for its organisation, so the page that asks for the stamp cannot have the share sealed to its own.
   */
  mayStamp(body: string): boolean;
}

const loadCustody = () => import("@latchkey/protocol/custody");

/** Quick check without the custody code: most stamped bodies (queries, other submits) carry no share. */
const mightBearShare = (body: string) =>
  body.includes('"ACTIVITY_TYPE_') || body.includes('"OPERATION_TYPE_CREATE_GRANT"');

/** The body's `organizationId`, if it is a JSON object naming one. */
function organizationOf(body: string): string | null {
  try {
    const { organizationId } = JSON.parse(body) as { organizationId?: unknown };
    return typeof organizationId === "string" ? organizationId : null;
  } catch {
    return null;
  }
}

/**
 * The custody operations over `storage`.
 *
 * @example
 * const shares = createShareHolder(memoryUserShares());
 * const { serviceShare, accounts } = await shares.createSplitWallet({ organizationId, shareKey });
 */
export function createShareHolder(storage: UserShareStorage): ShareHolder {
  // Ephemeral keys of splits begun, by organisation (memory only: a reload begins again).
  const splits = new Map<string, { privateKey: CryptoKey; publicKey: string }>();
  // Sign-in wallets waiting for the service's answer, by organisation (memory only).
  const pending = new Map<string, { userShare: Uint8Array; address: string }>();
  const forgetPending = (organizationId: string) => {
    pending.get(organizationId)?.userShare.fill(0);
    pending.delete(organizationId);
  };
  return {
    async prepareSignInWallet({ organizationId, shareKey, otpId, targetPublicKey }) {
      const custody = await loadCustody();
      const { secret, accounts } = await custody.newWalletSecret();
      const encoded = custody.encodeWalletSecret(secret);
      custody.wipeWalletSecret(secret);
      const { userShare, serviceShare } = await custody.splitWalletSecret(encoded);
      encoded.fill(0);
      try {
        const sealed = await custody.sealSignInWallet({
          userShare,
          serviceShare,
          shareKey,
          organizationId,
          otpId,
          targetPublicKey,
        });
        forgetPending(organizationId);
        pending.set(organizationId, { userShare: userShare.slice(), address: accounts[0]?.address ?? "" });
        return { sealed, accounts };
      } finally {
        userShare.fill(0);
        serviceShare.fill(0);
      }
    },
    async keepSignInWallet({ organizationId, address }) {
      const made = pending.get(organizationId);
      try {
        if (!made?.address || made.address.toLowerCase() !== address.toLowerCase()) return false;
        await storage.put(organizationId, made.userShare);
        return true;
      } finally {
        forgetPending(organizationId);
      }
    },
    async beginSplit({ organizationId }) {
      const pair = (await globalThis.crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, false, [
        "deriveBits",
      ])) as CryptoKeyPair;
      const raw = new Uint8Array(await globalThis.crypto.subtle.exportKey("raw", pair.publicKey));
      const publicKey = Array.from(raw, (b) => b.toString(16).padStart(2, "0")).join("");
      splits.set(organizationId, { privateKey: pair.privateKey, publicKey });
      return { targetPublicKey: publicKey };
    },
    async acceptSplitShare({ organizationId, walletId, userShare }) {
      const custody = await loadCustody();
      const key = splits.get(organizationId);
      if (!key) throw new custody.UserShareError("no split of this wallet was begun here");
      const share = await custody.openSplitShare({ sealed: userShare, walletId, key });
      try {
        await storage.put(organizationId, share);
        splits.delete(organizationId);
      } finally {
        share.fill(0);
      }
    },
    mayStamp(body) {
      if (!body.includes('"ACTIVITY_TYPE_BEGIN_SPLIT_WALLET"')) return true;
      try {
        const parsed = JSON.parse(body) as {
          type?: unknown;
          organizationId?: unknown;
          parameters?: { targetPublicKey?: unknown };
        };
        if (parsed.type !== "ACTIVITY_TYPE_BEGIN_SPLIT_WALLET") return true;
        const key = typeof parsed.organizationId === "string" ? splits.get(parsed.organizationId) : undefined;
        const target = parsed.parameters?.targetPublicKey;
        return key !== undefined && typeof target === "string" && target.toLowerCase() === key.publicKey;
      } catch {
        return true;
      }
    },
    async createSplitWallet({ organizationId, shareKey }) {
      const custody = await loadCustody();
      const { secret, accounts } = await custody.newWalletSecret();
      const encoded = custody.encodeWalletSecret(secret);
      custody.wipeWalletSecret(secret);
      const { userShare, serviceShare } = await custody.splitWalletSecret(encoded);
      encoded.fill(0);
      try {
        const sealed = await custody.sealServiceShare({ serviceShare, shareKey, organizationId });
        await storage.put(organizationId, userShare);
        return { serviceShare: sealed, accounts };
      } finally {
        userShare.fill(0);
        serviceShare.fill(0);
      }
    },
    async hasUserShare({ organizationId, walletId }) {
      const name = walletId ? walletShareName(organizationId, walletId) : organizationId;
      const share = await storage.get(name);
      share?.fill(0);
      return share !== null;
    },
    walletShares: ({ organizationId }) => walletShareEntries(storage, organizationId),
    async importSplitWallet({ organizationId, walletId, targetPublicKey, secret: imported }) {
      const custody = await loadCustody();
      const { secret, accounts } = await custody.walletOfImport(imported);
      const encoded = custody.encodeWalletSecret(secret);
      custody.wipeWalletSecret(secret);
      const { userShare, serviceShare } = await custody.splitWalletSecret(encoded);
      encoded.fill(0);
      const plaintext = encodeSplitImport(serviceShare);
      try {
        const encryptedBundle = await encryptToImportKey({ plaintext, targetPublicKey });
        await putWalletShare(storage, {
          organizationId,
          walletId,
          addresses: accounts.map((a) => a.address),
          share: userShare,
        });
        return { encryptedBundle, accounts };
      } finally {
        userShare.fill(0);
        serviceShare.fill(0);
        plaintext.fill(0);
      }
    },
    async protectShare({ organizationId, walletId, prfOutput, code: given }) {
      const custody = await loadCustody();
      const userShare = await storage.get(await shareNameOf(storage, organizationId, walletId));
      if (!userShare) throw new custody.RecoveryError("this device holds no share of the wallet");
      const code = prfOutput ? undefined : (given ?? custody.newRecoveryCode());
      const ikm = prfOutput ?? custody.recoveryCodeBytes(code ?? "");
      try {
        const blob = await custody.encryptRecoveryShare({ userShare, walletId, ikm });
        return code ? { blob, code } : { blob };
      } finally {
        userShare.fill(0);
        if (!prfOutput) ikm.fill(0);
      }
    },
    async restoreShare({ organizationId, walletId, blob, prfOutput, code, addresses }) {
      const custody = await loadCustody();
      const ikm = prfOutput ?? custody.recoveryCodeBytes(code ?? "");
      try {
        const userShare = await custody.decryptRecoveryShare({ blob, walletId, ikm });
        try {
          if (addresses) {
            await putWalletShare(storage, { organizationId, walletId, addresses, share: userShare });
          } else {
            await storage.put(organizationId, userShare);
          }
        } finally {
          userShare.fill(0);
        }
      } finally {
        if (!prfOutput) ikm.fill(0);
      }
    },
    async userShareFor(body, shareKey) {
      if (!shareKey || !mightBearShare(body)) return undefined;
      const organizationId = organizationOf(body);
      if (!organizationId) return undefined;
      // A holder with no share for this organisation (every service-custody app) stops here, before the
      // custody code loads.
      const userShare = await storage.get(await shareNameFor(storage, organizationId, body));
      if (!userShare) return undefined;
      try {
        const custody = await loadCustody();
        if (custody.shareBearingOrganization(body) !== organizationId) return undefined;
        return await custody.sealUserShare({ userShare, shareKey, body });
      } finally {
        userShare.fill(0);
      }
    },
  };
}

/** Shares in this process's memory (copies in, copies out), optionally mirrored to `persist`. */
export function memoryUserShares(
  initial: Record<string, Uint8Array> = {},
  persist?: (organizationId: string, share: Uint8Array) => void | Promise<void>,
): UserShareStorage {
  const shares = new Map(Object.entries(initial).map(([k, v]) => [k, v.slice()]));
  return {
    async get(organizationId) {
      return shares.get(organizationId)?.slice() ?? null;
    },
    async put(organizationId, share) {
      shares.get(organizationId)?.fill(0);
      shares.set(organizationId, share.slice());
      await persist?.(organizationId, share.slice());
    },
  };
}
