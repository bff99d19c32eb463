import type { Signer } from "@latchkey/core";
import { useLatchkeyContext } from "../context";

/**
 * The provider's signer (@latchkey/core), for anything the hooks do not cover.
 *
 * @example
 * const signer = useSigner();
 * const methods = await signer.listAuthMethods();
 */
export function useSigner(): Signer {
  return useLatchkeyContext().signer;
}
