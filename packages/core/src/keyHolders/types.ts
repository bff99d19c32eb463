import type {
  CreatedSplitWallet,
  ProtectedShare,
  RecoveryInput,
  SignInWallet,
  WalletShareEntry,
} from "@latchkey/keystore";
import type { ImportSecret, StampHeader } from "@latchkey/protocol";
import type { PublicAccount } from "@latchkey/protocol/custody";
import type { RecoveryShareRecord } from "@latchkey/protocol/wire";

export type {
  CreatedSplitWallet,
  ProtectedShare,
  RecoveryInput,
  SignInWallet,
  WalletShareEntry,
} from "@latchkey/keystore";

/**
 * A stamp, and the user's share of a split-custody wallet sealed to the service for that exact body when
 * the body signs with it (docs/split-custody.md §2): `X-User-Share` beside `X-Stamp`.
 */
export type KeyHolderStamp = StampHeader & {
  userShare?: string;
  /**
   * Enforced confirmations (issue 46): the auth frame's confirmation of this exact body, made when the
   * user pressed Confirm in the frame (`X-Confirmation`).
   */
  confirmation?: string;
};

/**
 * What a key holder does for split custody (docs/split-custody.md): it makes the wallet, keeps the user's
 * share (by organisation; a share survives sign-out), and attaches it to the stamps of bodies that sign.
 * `shareKey` is the service's share key from its signer config; the auth frame ignores it and uses the
 * one its own page carries.
 */
export interface SplitCustodyKeyHolder {
  /** Makes a wallet, keeps the user share and answers the sealed service share and the public accounts. */
  createSplitWallet(args: { organizationId: string; shareKey: string }): Promise<CreatedSplitWallet>;
  /**
   * A new user's wallet carried by the sign-in that issues their first session (docs/split-custody.md §3):
   * both shares sealed to the share key for that sign-in; the user share stays pending until
   * `keepSignInWallet`. Optional: without it, the wallet is made after the sign-in (create_split_wallet).
   */
  prepareSignInWallet?(args: {
    organizationId: string;
    shareKey: string;
    otpId: string;
    targetPublicKey: string;
  }): Promise<SignInWallet>;
  /** Keeps the pending sign-in wallet's share when the service answered its `address` (true); else forgets it. */
  keepSignInWallet?(args: { organizationId: string; address: string }): Promise<boolean>;
  /**
   * Whether this holder keeps the share of the organisation's first wallet, or with `walletId` of that
   * further (imported) wallet (and, for holders that need it, learns the share key).
   */
  hasUserShare(args: { organizationId: string; shareKey: string; walletId?: string }): Promise<boolean>;
  /**
   * Wallet `walletId`'s share (an imported wallet's, or the first wallet's) encrypted under a PRF output,
   * or under `code`, or under a new recovery code (answered once).
   */
  protectShare(args: {
    organizationId: string;
    walletId: string;
    prfOutput?: Uint8Array;
    code?: string;
  }): Promise<ProtectedShare>;
  /** The further (imported) wallets whose shares this holder keeps, oldest first (docs/split-custody.md §5). */
  walletShares?(args: { organizationId: string }): Promise<WalletShareEntry[]>;
  /**
   * Node holders (the browser's import frame does this itself): an import into a split app, split here;
   * keeps the user share under `walletId` and answers what `import_wallet` takes.
   */
  importSplitWallet?(args: {
    organizationId: string;
    walletId: string;
    targetPublicKey: string;
    secret: ImportSecret;
    shareKey: string;
  }): Promise<{ encryptedBundle: string; accounts: PublicAccount[] }>;
  /**
   * Moving a whole wallet to split (docs/split-custody.md §3.1): a new ephemeral key for this
   * organisation's split; its public key is begin_split_wallet's `targetPublicKey`.
   */
  beginSplit(args: { organizationId: string; walletId: string; shareKey: string }): Promise<{
    targetPublicKey: string;
  }>;
  /** Opens begin_split_wallet's sealed `userShare` with that key and keeps the share (throws when it does not open). */
  acceptSplitShare(args: {
    organizationId: string;
    walletId: string;
    userShare: string;
    shareKey: string;
  }): Promise<void>;
  /**
   * Opens a recovery blob with a PRF output or a code and keeps the share (throws when it does not open):
   * as the first wallet's, or with `addresses` as that further (imported) wallet's.
   */
  restoreShare(
    args: {
      organizationId: string;
      walletId: string;
      blob: RecoveryShareRecord["blob"];
      shareKey: string;
      addresses?: string[];
    } & RecoveryInput,
  ): Promise<void>;
}

/** Where a key holder keeps its target key; `storageError` is what the browser answered when refused. */
export interface KeyHolderStorage {
  storage: "persistent" | "memory";
  storageError?: string;
}

/**
 * Where the keys of a session live. The target key receives credential bundles; the session key they
 * carry stamps requests. Implementations: iframe (browser default), in-page WebCrypto, memory.
 */
export interface KeyHolder {
  readonly kind: "iframe" | "webcrypto" | "memory";
  /** Makes the target key if there is none (else keeps it) and returns its public key, uncompressed hex. */
  initTargetKey(): Promise<string>;
  /** The target public key, or null when none was made yet. */
  getTargetPublicKey(): Promise<string | null>;
  /** Opens a credential bundle with the target key and holds the session key; returns its public key. */
  injectCredentialBundle(bundle: string): Promise<string>;
  /**
   * Stamps `body` with the session key (X-Stamp, DESIGN §3.2); with the user's share sealed for it when
   * the holder keeps one for the body's organisation and the body signs (split custody).
   */
  stamp(body: string): Promise<KeyHolderStamp>;
  /**
   * Enforced confirmations (issue 46): shows the signing request `body` to the user in the auth frame
   * (a page of the service the host page cannot script), and stamps it with the frame's confirmation
   * once they press Confirm there; Cancel throws USER_REJECTED. Only the iframe holder has it: the
   * others cannot prove a confirmation, so an app that requires one refuses their signatures.
   */
  confirmStamp?(body: string, options?: { locale?: string }): Promise<KeyHolderStamp>;
  /**
   * Forgets the session key; with `targetKey` (the default) also deletes the target key, so the next
   * sign-in makes a fresh one.
   */
  clear(options?: { targetKey?: boolean }): Promise<void>;
  /**
   * Resolves when the holder can take requests, saying where its keys live (`memory` when the browser
   * refused storage: the session then lasts as long as the page); rejects with a `LatchkeyError` when it
   * cannot (the auth frame did not load or answer). Holders that are always ready may omit it.
   */
  ready?(): Promise<KeyHolderStorage>;
  /** Releases resources (iframe, listeners). */
  destroy?(): void;
  /** Split custody; a holder without it cannot serve a split app (SPLIT_CUSTODY_UNSUPPORTED_HOLDER). */
  custody?: SplitCustodyKeyHolder;
}
