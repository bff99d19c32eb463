import { stepUpMethodsOf } from "@latchkey/core";
import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { sendVerificationCodeMutationOptions, setEmailMutationOptions } from "../query/email";
import { useAuthMethodMutation } from "./useAuthMethodMutation";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Changes the signed-in user's email sign-in in two steps: `sendVerificationCode` mails a code to the
 * new address, `setEmail` makes it the user's email once the code proves it (`useUser` updates at once).
 * A change needs a fresh sign-in of the account as it is: when the service asks, `stepUpMethods` lists
 * what the user can confirm with (for `email`, a code mailed to the current address), and `setEmail` is
 * called again with `stepUp`.
 *
 * @example
 * const { sendVerificationCodeAsync, setEmailAsync } = useSetEmail();
 * const { otpId } = await sendVerificationCodeAsync({ contact: email });
 * await setEmailAsync({ email, otpId, verificationCode: code });
 */
export function useSetEmail() {
  const { signer } = useLatchkeyContext();
  const send = useMutation(sendVerificationCodeMutationOptions(signer), useLatchkeyQueryClient());
  const set = useAuthMethodMutation(setEmailMutationOptions(signer));
  return {
    sendVerificationCode: send.mutate,
    sendVerificationCodeAsync: send.mutateAsync,
    setEmail: set.mutate,
    setEmailAsync: set.mutateAsync,
    isSendingCode: send.isPending,
    isSettingEmail: set.isPending,
    error: set.error ?? send.error,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(set.error),
    reset: () => {
      send.reset();
      set.reset();
    },
  };
}
