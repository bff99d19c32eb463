import type { AuthFlow } from "../createAuthFlow";
import { flowInternals } from "../internals";
import { confirmTransitions } from "./confirm";
import { custodyTransitions } from "./custody";
import { emailTransitions } from "./email";
import { eoaTransitions } from "./eoa";
import { grantTransitions } from "./grant";
import { navigationTransitions } from "./navigation";
import { oauthTransitions } from "./oauth";
import { otpTransitions } from "./otp";
import { passkeyTransitions } from "./passkey";
import { passkeyOnSignupTransitions } from "./passkeyOnSignup";
import { totpTransitions } from "./totp";

/**
 * Every transition of the modal, grouped by sign-in method, over the one flow instance. They hold no
 * state of their own (the flow does), so binding them again gives the same behaviour.
 */
export function authTransitions(instance: AuthFlow) {
  const flow = flowInternals(instance);
  return {
    navigation: navigationTransitions(flow),
    email: emailTransitions(flow),
    otp: otpTransitions(flow),
    totp: totpTransitions(flow),
    passkey: passkeyTransitions(flow),
    passkeyOnSignup: passkeyOnSignupTransitions(flow),
    oauth: oauthTransitions(flow),
    eoa: eoaTransitions(flow),
    grant: grantTransitions(flow),
    custody: custodyTransitions(flow),
    confirm: confirmTransitions(flow),
  };
}

export type AuthTransitions = ReturnType<typeof authTransitions>;
