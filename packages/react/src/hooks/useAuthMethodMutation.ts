import { type MutationOptions, useMutation } from "@tanstack/react-query";
import { AUTH_METHODS_KEY } from "../query/authMethods";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * A mutation that changes the user's sign-in methods: once it succeeds, every query of them
 * (`useAuthMethods`, `useMfa`) is fetched again, so a list on screen shows the change at once.
 * Internal to the hooks.
 */
export function useAuthMethodMutation<TData, TVariables>(options: MutationOptions<TData, Error, TVariables>) {
  const client = useLatchkeyQueryClient();
  return useMutation(
    {
      ...options,
      onSuccess: () => client.invalidateQueries({ queryKey: AUTH_METHODS_KEY }),
    },
    client,
  );
}
