import { Signer } from "./Signer";
import type { SignerOptions } from "./signer/types";

/**
 * Creates a {@link Signer}: the key holder (the auth iframe in a browser, memory elsewhere), the session
 * manager, the service client, the store and the auth methods. Nothing runs until `init()` or the first
 * call, so it is safe during server-side rendering.
 *
 * @example
 * const signer = createSigner({ baseUrl: "https://auth.example.com", apiKey: "pk_…" });
 * await signer.init();
 * signer.store.subscribe((s) => s.user, (user) => console.log(user?.address));
 */
export function createSigner(options: SignerOptions): Signer {
  return new Signer(options);
}
