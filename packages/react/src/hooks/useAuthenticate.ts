import { QueryClient, useMutation } from "@tanstack/react-query";
import {
  authenticateMutationOptions,
  logoutMutationOptions,
  signMessageMutationOptions,
  signTypedDataMutationOptions,
} from "../actions";
import { type LatchkeyContextValue, useLatchkeyContext } from "../context";

// Made here, on first use of a hook, so an app that only shows the modal does not load TanStack Query.
function client(ctx: LatchkeyContextValue): QueryClient {
  ctx.query.client ??= new QueryClient();
  return ctx.query.client;
}

/** Starts or finishes a sign-in: `{type: "email"}`, `{type: "otp"}` or `{type: "passkey"}`. */
export function useAuthenticate() {
  const ctx = useLatchkeyContext();
  const m = useMutation(authenticateMutationOptions(ctx.signer), client(ctx));
  return { ...m, authenticate: m.mutate, authenticateAsync: m.mutateAsync };
}

/** Signs out everywhere (this tab and the others). */
export function useLogout() {
  const ctx = useLatchkeyContext();
  const m = useMutation(logoutMutationOptions(ctx.signer), client(ctx));
  return { ...m, logout: () => m.mutate(), logoutAsync: () => m.mutateAsync() };
}

/** Signs an EIP-191 message with the user's EVM wallet. */
export function useSignMessage() {
  const ctx = useLatchkeyContext();
  const m = useMutation(signMessageMutationOptions(ctx.signer), client(ctx));
  return { ...m, signMessage: m.mutate, signMessageAsync: m.mutateAsync };
}

/** Signs EIP-712 typed data with the user's EVM wallet. */
export function useSignTypedData() {
  const ctx = useLatchkeyContext();
  const m = useMutation(signTypedDataMutationOptions(ctx.signer), client(ctx));
  return { ...m, signTypedData: m.mutate, signTypedDataAsync: m.mutateAsync };
}
