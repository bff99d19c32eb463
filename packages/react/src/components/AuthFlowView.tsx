import { useEffect, useSyncExternalStore } from "react";
import { useLatchkeyContext } from "../context";
import { showsBack } from "../flow/rules";
import { useAuthFlow } from "../hooks/useAuthFlow";
import { useSignerStatus } from "../hooks/useSignerStatus";
import { StepView } from "../steps/registry";
import { useTexts } from "../texts/useTexts";
import { Footer } from "./Footer";
import { BackIcon, CloseIcon } from "./icons";
import { ServiceUnavailable } from "./ServiceUnavailable";

/** Header, the current step's view and the footer: the content of both AuthModal and AuthCard. */
export function AuthFlowView({ closable }: { closable: boolean }) {
  const texts = useTexts();
  const { ui, store } = useLatchkeyContext();
  const serviceProblem = useSyncExternalStore(
    store.subscribe,
    () => store.getState().serviceProblem,
    () => undefined,
  );
  const { transitions, step } = useAuthFlow();
  const { isConnected } = useSignerStatus();
  useEffect(() => {
    if (isConnected) transitions.navigation.connected();
  }, [isConnected, transitions]);
  const back = !ui.hideBack && showsBack(step.type);
  const close = closable && !ui.hideClose;
  return (
    <>
      {!ui.hideHeader && (
        <header className="lk-header">
          <div>
            {back && (
              <button
                type="button"
                className="lk-icon-btn"
                aria-label={texts.back}
                onClick={() => transitions.navigation.back()}
              >
                <BackIcon />
              </button>
            )}
          </div>
          <div className="lk-header-center">{ui.header}</div>
          <div>
            {close && (
              <button
                type="button"
                className="lk-icon-btn"
                aria-label={texts.close}
                onClick={() => transitions.navigation.close()}
              >
                <CloseIcon />
              </button>
            )}
          </div>
        </header>
      )}
      <div
        className="lk-content"
        data-step={step.type}
        style={ui.hideHeader ? { paddingTop: 24 } : undefined}
      >
        {serviceProblem && step.type === "initial" ? (
          <ServiceUnavailable code={serviceProblem.code} message={serviceProblem.message} />
        ) : (
          <StepView transitions={transitions} step={step} ui={ui} />
        )}
      </div>
      <Footer transitions={transitions} step={step} ui={ui} />
    </>
  );
}
