import type { ExportWalletParameters, ExportWalletReturnType, Signer } from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/**
 * Mutation options of `exportWallet`: shows the recovery phrase in the service's export frame.
 *
 * @example
 * const { mutateAsync } = useMutation(exportWalletMutationOptions(signer));
 * const shown = await mutateAsync({ iframeContainer: element });
 */
export function exportWalletMutationOptions(
  signer: Signer,
): MutationOptions<ExportWalletReturnType, Error, ExportWalletParameters> {
  return { mutationKey: ["latchkey", "exportWallet"], mutationFn: (params) => signer.exportWallet(params) };
}
