import { lazy, Suspense } from "react";
import type { StepProps } from "../types";

// The confirmation step, its texts (every shipped language) and @latchkey/decoder load when a
// confirmation is first shown: the modal's first load does not carry them.
const Confirm = lazy(() => import("./ConfirmSigning").then((m) => ({ default: m.ConfirmSigningStep })));

const Loading = () => (
  <div className="lk-center">
    <span className="lk-spinner" aria-hidden />
  </div>
);

/** confirm_signing, loaded on first show. */
export function ConfirmSigningStep(props: StepProps<"confirm_signing">) {
  return (
    <Suspense fallback={<Loading />}>
      <Confirm {...props} />
    </Suspense>
  );
}
