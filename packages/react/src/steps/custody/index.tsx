import { lazy, Suspense } from "react";
import type { StepProps } from "../types";

// The split-custody steps and their texts (every shipped language) load when one is shown.
const Protect = lazy(() => import("./WalletProtect").then((m) => ({ default: m.WalletProtectStep })));
const Restore = lazy(() => import("./WalletRestore").then((m) => ({ default: m.WalletRestoreStep })));

const Loading = () => (
  <div className="lk-center">
    <span className="lk-spinner" aria-hidden />
  </div>
);

/** wallet_protect, loaded on first show. */
export function WalletProtectStep(props: StepProps<"wallet_protect">) {
  return (
    <Suspense fallback={<Loading />}>
      <Protect {...props} />
    </Suspense>
  );
}

/** wallet_restore, loaded on first show. */
export function WalletRestoreStep(props: StepProps<"wallet_restore">) {
  return (
    <Suspense fallback={<Loading />}>
      <Restore {...props} />
    </Suspense>
  );
}
