import { useMemo, useSyncExternalStore } from "react";
import { useLatchkeyContext } from "../context";
import type { AuthStep } from "../flow/step";
import { type AuthTransitions, authTransitions } from "../flow/transitions";

/**
 * The transitions of the provider's flow, and the current step. They are bound here, in the modal's own
 * chunk, so that the provider does not load them; they hold no state (the flow does).
 */
export function useAuthFlow(): { transitions: AuthTransitions; step: AuthStep } {
  const { flow } = useLatchkeyContext();
  const transitions = useMemo(() => authTransitions(flow), [flow]);
  const step = useSyncExternalStore(
    flow.store.subscribe,
    () => flow.store.getState().step,
    () => flow.store.getState().step,
  );
  return { transitions, step };
}
