import { ExportAccount } from "@latchkey/react";

/**
 * The account page's wallet export: the library's `<ExportAccount />`. The recovery phrase shows in the
 * service's export frame only; the demo page never holds it. After five minutes from signing in it asks
 * for a fresh code (or the passkey, or the authenticator app) first.
 */
export function ExportWallet() {
  return (
    <div className="method" data-testid="export">
      <ExportAccount />
    </div>
  );
}
