import type { ResolvedUiConfig } from "../config";
import type { AuthFlow } from "../flow/controller";
import type { AuthStep } from "../types";

export interface StepProps {
  flow: AuthFlow;
  step: AuthStep;
  ui: ResolvedUiConfig;
}
