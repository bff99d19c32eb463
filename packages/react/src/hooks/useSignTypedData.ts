import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { signTypedDataMutationOptions } from "../query/signTypedData";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/** Signs EIP-712 typed data with the user's EVM wallet. */
export function useSignTypedData() {
  const { signer } = useLatchkeyContext();
  const m = useMutation(signTypedDataMutationOptions(signer), useLatchkeyQueryClient());
  return { ...m, signTypedData: m.mutate, signTypedDataAsync: m.mutateAsync };
}
