/** Whether the browser says it evaluates WebAuthn's PRF: true, false, or undefined when it does not say. */
export type GetPasskeyPrfSupportReturnType = boolean | undefined;

/**
 * Whether this browser can protect a split wallet with a passkey (WebAuthn's `prf` extension), as
 * `PublicKeyCredential.getClientCapabilities()` says; undefined when the browser does not say (then try,
 * and fall back to a recovery code on PASSKEY_PRF_UNSUPPORTED).
 *
 * @example
 * const passkeyFirst = (await getPasskeyPrfSupport()) !== false;
 */
export async function getPasskeyPrfSupport(): Promise<GetPasskeyPrfSupportReturnType> {
  return (await import("../authMethods/passkey/prf")).browserHasPrf();
}
