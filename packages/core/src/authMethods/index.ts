import type { SignerAuthMethods } from "../signer/types";
import { email } from "./email";
import { oauth } from "./oauth";
import { passkey } from "./passkey";

/**
 * The auth methods every signer has, made per signer (their pending attempts are per signer). A new way
 * to sign in is a new file here plus one line below and in `SignerAuthMethods`.
 */
export function createAuthMethods(): SignerAuthMethods {
  return { email: email(), passkey: passkey(), oauth: oauth() };
}
