import { ImportWallet as LibraryImportWallet } from "@latchkey/react";

/**
 * The account page's "Import a wallet": the library's `<ImportWallet />`. The user picks a recovery phrase
 * or a private key, reads what the import replaces, and types the secret into the service's import frame;
 * the demo page never holds it. The addresses shown above change to the imported ones.
 */
export function ImportWallet() {
  return (
    <div className="method" data-testid="import">
      <LibraryImportWallet />
    </div>
  );
}
