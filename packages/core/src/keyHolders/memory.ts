import {
  generateP256PrivateKey,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  type StampHeader,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { SignerError } from "../errors";
import type { KeyHolder } from "./types";

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
