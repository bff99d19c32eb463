import {
  type ImportedWallet,
  type ImportWalletParameters,
  type ImportWalletReturnType,
  importWallet,
  type Signer,
  type StepUp,
} from "@latchkey/core";
import type { MutationOptions } from "@tanstack/react-query";

/** What the second step takes: the open import, and a fresh sign-in when the service asked for one. */
export interface SubmitImportVariables {
  open: ImportWalletReturnType;
  stepUp?: StepUp;
}

/**
 * Mutation options of `importWallet`'s first step: opens the service's import frame, where the user types
 * the secret.
 *
 * @example
 * const { mutateAsync } = useMutation(importWalletMutationOptions(signer));
 * const open = await mutateAsync({ iframeContainer: element, kind: "mnemonic" });
 */
export function importWalletMutationOptions(
  signer: Signer,
): MutationOptions<ImportWalletReturnType, Error, ImportWalletParameters> {
  return { mutationKey: ["latchkey", "importWallet"], mutationFn: (params) => importWallet(signer, params) };
}

/**
 * Mutation options of the import's second step: seals what the user typed and imports it (again with a
 * `stepUp` after STEP_UP_REQUIRED).
 *
 * @example
 * const { mutateAsync } = useMutation(submitImportMutationOptions());
 * const { address } = await mutateAsync({ open });
 */
export function submitImportMutationOptions(): MutationOptions<ImportedWallet, Error, SubmitImportVariables> {
  return {
    mutationKey: ["latchkey", "importWallet", "submit"],
    mutationFn: ({ open, stepUp }) => open.submit(stepUp ? { stepUp } : {}),
  };
}
