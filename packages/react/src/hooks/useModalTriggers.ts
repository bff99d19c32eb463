import { useEffect } from "react";
import { useLatchkeyContext } from "../context";

/**
 * What opens the modal or changes its step from outside (flow/triggers.ts). Both AuthModal and AuthCard
 * run them; the provider's flow registers them once however many hold them.
 */
export function useModalTriggers(): void {
  const { flow } = useLatchkeyContext();
  useEffect(() => flow.holdTriggers(), [flow]);
}
