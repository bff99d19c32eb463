import { type StepUpMethod, stepUpMethodsOf } from "@latchkey/core";
import { useMutation } from "@tanstack/react-query";
import { useLatchkeyContext } from "../context";
import { exportWalletMutationOptions } from "../query/exportWallet";
import { useLatchkeyQueryClient } from "./useLatchkeyQueryClient";

/**
 * Exports the signed-in user's wallet into the service's export frame (`exportWallet` of
 * `@latchkey/core`): the recovery phrase shows in that frame only, never in this page. When the
 * sign-in is older than five minutes the service asks for a fresh one: `stepUpMethods` then lists what
 * the user can confirm with (`email`, `passkey`, `totp`), and the export is made again with `stepUp`.
 * `<ExportAccount />` is this hook with its UI.
 *
 * @example
 * const { exportWalletAsync, stepUpMethods } = useExportAccount();
 * const shown = await exportWalletAsync({ iframeContainer: ref.current });
 * // later: shown.close()
 */
export function useExportAccount() {
  const { signer } = useLatchkeyContext();
  const mutation = useMutation(exportWalletMutationOptions(signer), useLatchkeyQueryClient());
  const stepUpMethods: StepUpMethod[] | undefined = stepUpMethodsOf(mutation.error);
  return {
    exportWallet: mutation.mutate,
    exportWalletAsync: mutation.mutateAsync,
    /** What the frame shows (its word count) and how to close it, once shown. */
    data: mutation.data,
    isExporting: mutation.isPending,
    error: mutation.error,
    /** Set when the service asked for a fresh sign-in (STEP_UP_REQUIRED). */
    stepUpMethods,
    reset: mutation.reset,
  };
}
