import type { StampHeader } from "@latchkey/protocol";
import { toHex } from "@latchkey/protocol/wire";
import { SignerError } from "../errors";
import type { KeyHolder } from "./types";

// P-256 and HPKE load with the first key, not with the module: core's root exports this holder, and a
// bundler that splits by files reached (esbuild) would otherwise put them in a page's first load.
const loadCrypto = () => import("@latchkey/protocol/crypto");

/**
 * Keys held in this process's memory: for Node programs, tests and server-side use. Nothing is
 * persisted, so a restarted process needs a new sign-in.
 *
 * @example
 * const signer = createSigner({ baseUrl, apiKey, keyHolder: createMemoryKeyHolder() });
 */
export function createMemoryKeyHolder(): KeyHolder {
  let target: { privateKey: Uint8Array; publicKeyHex: string } | undefined;
  let sessionKey: Uint8Array | undefined;
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
    async stamp(body): Promise<StampHeader> {
      const { stampWithPrivateKey } = await loadCrypto();
      if (!sessionKey) throw new SignerError("NOT_AUTHENTICATED");
      return stampWithPrivateKey(body, sessionKey);
    },
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
