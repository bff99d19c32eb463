import { type StepUpMethod, stepUpMethodsOf } from "@latchkey/core";
import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { AUTH_METHODS_KEY } from "../query/authMethods";
import { importWalletMutationOptions, submitImportMutationOptions } from "../query/importWallet";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Imports a wallet into the signed-in user's account (`importWallet` of `@latchkey/core`), in two steps:
 * `startImportAsync` opens the service's import frame, where the user types the recovery phrase or key
 * (never in this page); `submitImportAsync({ open })` seals and imports it. When the sign-in is older than
 * five minutes the service asks for a fresh one: `stepUpMethods` then lists what the user can confirm
 * with, and the submit is made again with `stepUp`. `<ImportWallet />` is this hook with its UI.
 *
 * @example
 * const { startImportAsync, submitImportAsync } = useImportWallet();
 * const open = await startImportAsync({ iframeContainer: ref.current, kind: "mnemonic" });
 * const { address } = await submitImportAsync({ open });
 */
export function useImportWallet() {
  const { signer } = useLatchkeyContext();
  const client = useLatchkeyQueryClient();
  const start = useMutation(importWalletMutationOptions(signer), client);
  const submit = useMutation(
    {
      ...submitImportMutationOptions(),
      // The security activity shows the import.
      onSuccess: () => client.invalidateQueries({ queryKey: [...AUTH_METHODS_KEY, "audit"] }),
    },
    client,
  );
  const stepUpMethods: StepUpMethod[] | undefined = stepUpMethodsOf(submit.error);
  return {
    startImport: start.mutate,
    startImportAsync: start.mutateAsync,
    /** The open import (its frame shows the field), once started. */
    open: start.data,
    submitImport: submit.mutate,
    submitImportAsync: submit.mutateAsync,
    /** What the import did: the new wallet and the addresses the app now uses. */
    imported: submit.data,
    isStarting: start.isPending,
    isImporting: submit.isPending,
    error: submit.error ?? start.error,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED). */
    stepUpMethods,
    reset: () => {
      start.data?.close();
      start.reset();
      submit.reset();
    },
  };
}
