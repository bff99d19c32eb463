import type { PublicAccount, RecoveryBlob } from "@latchkey/protocol/custody";

/**
 * The user's shares of split-custody wallets (docs/split-custody.md), one per organisation: the device's
 * half of the wallet. Kept apart from the session: signing out forgets the session key, never a share.
 */
export interface UserShareStorage {
  get(organizationId: string): Promise<Uint8Array | null>;
  put(organizationId: string, share: Uint8Array): Promise<void>;
}

/** A new split wallet as the key holder answers it: the service's share sealed to the share key, and the public accounts. */
export interface CreatedSplitWallet {
  serviceShare: string;
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
  hasUserShare(args: { organizationId: string }): Promise<boolean>;
  /** The user share encrypted under a PRF output, or under a new code (answered once, with the blob). */
  protectShare(args: {
    organizationId: string;
    walletId: string;
    prfOutput?: Uint8Array;
  }): Promise<ProtectedShare>;
  /** Opens a recovery blob with the PRF output or the code, and keeps the share. RecoveryError when it does not open. */
  restoreShare(
    args: { organizationId: string; walletId: string; blob: RecoveryBlob } & RecoveryInput,
  ): Promise<void>;
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
  return {
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
    async hasUserShare({ organizationId }) {
      const share = await storage.get(organizationId);
      share?.fill(0);
      return share !== null;
    },
    async protectShare({ organizationId, walletId, prfOutput }) {
      const custody = await loadCustody();
      const userShare = await storage.get(organizationId);
      if (!userShare) throw new custody.RecoveryError("this device holds no share of the wallet");
      const code = prfOutput ? undefined : custody.newRecoveryCode();
      const ikm = prfOutput ?? custody.recoveryCodeBytes(code ?? "");
      try {
        const blob = await custody.encryptRecoveryShare({ userShare, walletId, ikm });
        return code ? { blob, code } : { blob };
      } finally {
        userShare.fill(0);
        if (!prfOutput) ikm.fill(0);
      }
    },
    async restoreShare({ organizationId, walletId, blob, prfOutput, code }) {
      const custody = await loadCustody();
      const ikm = prfOutput ?? custody.recoveryCodeBytes(code ?? "");
      try {
        const userShare = await custody.decryptRecoveryShare({ blob, walletId, ikm });
        try {
          await storage.put(organizationId, userShare);
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
      const userShare = await storage.get(organizationId);
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
