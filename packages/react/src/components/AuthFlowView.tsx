import { useEffect } from "react";
import { useLatchkeyContext } from "../context";
import { showsBack } from "../flow/rules";
import { useSignerStatus } from "../hooks/useSignerStatus";
import { STEP_VIEWS } from "../steps/registry";
import { strings } from "../strings";
import { Footer } from "./Footer";
import { BackIcon, CloseIcon } from "./icons";
import { useFlow } from "./useFlow";

/** Header, the current step's view and the footer: the content of both AuthModal and AuthCard. */
export function AuthFlowView({ closable }: { closable: boolean }) {
  const { ui } = useLatchkeyContext();
  const { flow, step } = useFlow();
  const { isConnected } = useSignerStatus();
  useEffect(() => {
    if (isConnected) flow.onConnected();
  }, [isConnected, flow]);
  const View = STEP_VIEWS[step.type] ?? STEP_VIEWS.initial;
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
                aria-label={strings.back}
                onClick={() => flow.back()}
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
                aria-label={strings.close}
                onClick={() => flow.close()}
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
        {View && <View flow={flow} step={step} ui={ui} />}
      </div>
      <Footer flow={flow} step={step} ui={ui} />
    </>
  );
}
