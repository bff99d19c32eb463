import type { ShareHolder } from "@latchkey/keystore";
import { toHex } from "@latchkey/protocol/wire";
import { SignerError } from "../errors";
import { shareHolderCustody } from "./shareHolderCustody";
import type { KeyHolder, KeyHolderStamp } from "./types";

/** Where the memory holder keeps the user shares of split-custody wallets (docs/split-custody.md). */
export interface MemoryKeyHolderOptions {
  /**
   * Shares to start with, by record name: every record `onUserShare` was given before (a restarted process
   * that kept them signs without restoring the wallet). Names: the organisation id (its first wallet's
   * share, as before wallets were keyed), `<organizationId>/<walletId>` (a wallet imported into the split
   * app) and `<organizationId>#wallets` (the list of those, with their addresses: docs/split-custody.md §5).
   */
  userShares?: Record<string, Uint8Array>;
  /**
   * Called with each record the holder keeps, by name (a wallet made, imported or restored; the list of
   * imported wallets). A share is the user's half of a wallet: keep it where the user's secrets are kept
   * (it alone cannot sign). Keep every record under its name and give them back as `userShares`.
   */
  onUserShare?: (name: string, userShare: Uint8Array) => void | Promise<void>;
}

// The custody code (BIP-39, BIP-32, Shamir) loads with the first split wallet.
const loadKeyStore = () => import("@latchkey/keystore");

// P-256 and HPKE load with the first key, not with the module: core's root exports this holder, and a
// bundler that splits by files reached (esbuild) would otherwise put them in a page's first load.
const loadCrypto = () => import("@latchkey/protocol/crypto");

/**
 * Keys held in this process's memory: for Node programs, tests and server-side use. The session is not
 * persisted, so a restarted process needs a new sign-in; the user shares of split wallets can be
 * (`onUserShare`, `userShares`).
 *
 * @example
 * const signer = createSigner({ baseUrl, apiKey, keyHolder: createMemoryKeyHolder() });
 */
export function createMemoryKeyHolder(options: MemoryKeyHolderOptions = {}): KeyHolder {
  let target: { privateKey: Uint8Array; publicKeyHex: string } | undefined;
  let sessionKey: Uint8Array | undefined;
  let shares: Promise<ShareHolder> | undefined;
  const shareHolder = () =>
    (shares ??= loadKeyStore().then((m) =>
      m.createShareHolder(m.memoryUserShares(options.userShares, options.onUserShare)),
    ));
  const split = shareHolderCustody(shareHolder);
  return {
    kind: "memory",
    async initTargetKey() {
      const { generateP256PrivateKey, p256PublicKeyFromPrivate } = await loadCrypto();
      if (!target) {
        try {
          const privateKey = generateP256PrivateKey();
          target = { privateKey, publicKeyHex: toHex(p256PublicKeyFromPrivate(privateKey, false)) };
        } catch (cause) {
          throw new SignerError("CREATE_API_KEY_FAILED", { cause });
        }
      }
      return target.publicKeyHex;
    },
    async getTargetPublicKey() {
      return target?.publicKeyHex ?? null;
    },
    async injectCredentialBundle(bundle) {
      const { openCredentialBundle, p256PublicKeyFromPrivate } = await loadCrypto();
      if (!target) throw new SignerError("INJECT_BUNDLE_FAILED");
      try {
        const key = await openCredentialBundle({
          bundle,
          targetPrivateKey: target.privateKey,
          targetPublicKey: target.publicKeyHex,
        });
        const publicKey = toHex(p256PublicKeyFromPrivate(key, true));
        sessionKey?.fill(0);
        sessionKey = key;
        return publicKey;
      } catch (cause) {
        throw new SignerError("INJECT_BUNDLE_FAILED", { cause });
      }
    },
    async stamp(body): Promise<KeyHolderStamp> {
      const { stampWithPrivateKey } = await loadCrypto();
      if (!sessionKey) throw new SignerError("NOT_AUTHENTICATED");
      const stamp = stampWithPrivateKey(body, sessionKey);
      return split.withUserShare(body, stamp);
    },
    custody: split.custody,
    async clear(options) {
      sessionKey?.fill(0);
      sessionKey = undefined;
      if (options?.targetKey ?? true) {
        target?.privateKey.fill(0);
        target = undefined;
      }
    },
  };
}
