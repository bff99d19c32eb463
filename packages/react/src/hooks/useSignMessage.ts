import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { signMessageMutationOptions } from "../query/signMessage";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Signs an EIP-191 message with the user's EVM wallet.
 *
 * @example
 * const { signMessageAsync } = useSignMessage();
 * const signature = await signMessageAsync({ message: "hello" });
 */
export function useSignMessage() {
  const { signer } = useLatchkeyContext();
  const m = useMutation(signMessageMutationOptions(signer), useLatchkeyQueryClient());
  return { ...m, signMessage: m.mutate, signMessageAsync: m.mutateAsync };
}
