import type { ResolvedUiConfig } from "../config";
import type { AuthStepOf, AuthStepType } from "../flow/step";
import type { AuthTransitions } from "../flow/transitions";

/** What a step's view gets: the flow's transitions, its own step variant, the UI config. */
export interface StepProps<T extends AuthStepType = AuthStepType> {
  transitions: AuthTransitions;
  step: AuthStepOf<T>;
  ui: ResolvedUiConfig;
}
