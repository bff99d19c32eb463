import type { MultiFactor } from "./api";
import { LatchkeyError } from "./base";
import { type SignerErrorCode, SignerErrorMessages } from "./codes";

/** A state or precondition error of the signer, with the catalogue's exact message. */
export class SignerError<C extends SignerErrorCode = SignerErrorCode> extends LatchkeyError<C> {
  override name = "SignerError" as const;
  constructor(code: C, options?: { cause?: unknown }) {
    super(code, SignerErrorMessages[code], options);
  }
}

/** The service needs a second factor before it issues a session (email auth or OTP with MFA). */
export class MfaRequiredError extends LatchkeyError<"MFA_REQUIRED"> {
  override name = "MfaRequiredError" as const;
  readonly multiFactors: MultiFactor[];
  constructor(multiFactors: MultiFactor[], options?: { cause?: unknown }) {
    super("MFA_REQUIRED", SignerErrorMessages.MFA_REQUIRED, options);
    this.multiFactors = multiFactors;
  }
}
