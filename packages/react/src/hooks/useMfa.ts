import {
  type AddMfaParameters,
  type AddMfaReturnType,
  type MultiFactor,
  stepUpMethodsOf,
} from "@latchkey/core";
import { useQuery } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import {
  addMfaMutationOptions,
  mfaFactorsQueryOptions,
  removeMfaMutationOptions,
  verifyMfaMutationOptions,
} from "../query/authMethods";
import { useAuthMethodMutation } from "./useAuthMethodMutation";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";
import { useUser } from "./useUser";

/**
 * The signed-in user's second factor (authenticator app, the only kind): the factors, and adding one
 * (`addMfa` answers the otpauth URL to show as a QR code), turning it on with its first code
 * (`verifyMfa`), and removing it (`removeMfa`). The list follows each change. Adding and removing need a
 * fresh sign-in: when the service asks, `stepUpMethods` lists what the user can confirm with, and the
 * call is made again with `stepUp`.
 *
 * @example
 * const { factors, addMfaAsync, verifyMfaAsync, removeMfa } = useMfa();
 * const { multiFactorId, multiFactorTotpUrl } = await addMfaAsync();
 * await verifyMfaAsync({ multiFactorId, multiFactorCode: "123456" });
 */
export function useMfa() {
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const list = useQuery(
    { ...mfaFactorsQueryOptions(signer, user?.userId), enabled: Boolean(user) },
    useLatchkeyQueryClient(),
  );
  const add = useAuthMethodMutation(addMfaMutationOptions(signer));
  const verify = useAuthMethodMutation(verifyMfaMutationOptions(signer));
  const remove = useAuthMethodMutation(removeMfaMutationOptions(signer));
  const factors: MultiFactor[] | undefined = user ? list.data : undefined;
  return {
    factors,
    isLoadingFactors: Boolean(user) && list.isPending,
    addMfa: (params?: AddMfaParameters) => add.mutate(params),
    addMfaAsync: (params?: AddMfaParameters): Promise<AddMfaReturnType> => add.mutateAsync(params),
    verifyMfa: verify.mutate,
    verifyMfaAsync: verify.mutateAsync,
    removeMfa: remove.mutate,
    removeMfaAsync: remove.mutateAsync,
    isPending: add.isPending || verify.isPending || remove.isPending,
    error: remove.error ?? verify.error ?? add.error ?? list.error,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED): call again with `stepUp`. */
    stepUpMethods: stepUpMethodsOf(remove.error ?? verify.error ?? add.error),
  };
}
