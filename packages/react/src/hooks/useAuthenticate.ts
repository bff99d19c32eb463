import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { authenticateMutationOptions } from "../query/authenticate";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Starts or finishes a sign-in: `{type: "email"}`, `{type: "otp"}`, `{type: "passkey"}` or `{type: "oauth"}`.
 *
 * @example
 * const { authenticateAsync } = useAuthenticate();
 * await authenticateAsync({ type: "email", email, emailMode: "otp" });
 */
export function useAuthenticate() {
  const { signer } = useLatchkeyContext();
  const m = useMutation(authenticateMutationOptions(signer), useLatchkeyQueryClient());
  return { ...m, authenticate: m.mutate, authenticateAsync: m.mutateAsync };
}
