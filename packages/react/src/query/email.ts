import type { RemoveEmailParameters, SetEmailParameters, SetEmailReturnType, Signer } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/** Mutation options of `sendVerificationCode`: mails a code that proves the new address. */
export function sendVerificationCodeMutationOptions(
  signer: Signer,
): MutationOptions<{ otpId: string }, Error, { contact: string }> {
  return {
    mutationKey: ["latchkey", "sendVerificationCode"],
    mutationFn: ({ contact }) => signer.sendVerificationCode({ contact }),
  };
}

/** Mutation options of `setEmail`: the proven address becomes the user's email sign-in. */
export function setEmailMutationOptions(
  signer: Signer,
): MutationOptions<SetEmailReturnType, Error, SetEmailParameters> {
  return { mutationKey: ["latchkey", "setEmail"], mutationFn: (params) => signer.setEmail(params) };
}

/** Mutation options of `removeEmail`: turns off email sign-in (never the last way in). */
export function removeEmailMutationOptions(
  signer: Signer,
): MutationOptions<SetEmailReturnType, Error, RemoveEmailParameters | undefined> {
  return { mutationKey: ["latchkey", "removeEmail"], mutationFn: (params) => signer.removeEmail(params) };
}
