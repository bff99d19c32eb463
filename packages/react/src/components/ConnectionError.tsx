import { SignerStatus } from "@latchkey/core";
import { type ReactNode, useEffect } from "react";
import type { AuthFlow } from "../flow/controller";
import { strings } from "../strings";
import { MethodStyles } from "./MethodStyles";

const ErrorMark = () => (
  <svg aria-hidden="true" viewBox="0 0 72 72">
    <circle cx="36" cy="36" r="34" fill="currentColor" opacity=".12" />
    <circle cx="36" cy="36" r="20" fill="currentColor" />
    <path d="M36 26v12M36 45.5v.5" stroke="#fff" strokeWidth="4" strokeLinecap="round" />
  </svg>
);

/**
 * The connection-error view (spec §8): a title, a body, Try again, and optionally Use another method
 * and Skip. Shown, it disconnects the signer by default (`disconnect={false}` for the add-passkey
 * failure: the user stays signed in).
 */
export function ConnectionError({
  flow,
  title,
  body,
  icon,
  onRetry,
  onAnotherMethod,
  onSkip,
  disconnect = true,
}: {
  flow: AuthFlow;
  title: string;
  body: string;
  icon?: ReactNode;
  onRetry: () => void;
  onAnotherMethod?: () => void;
  onSkip?: () => void;
  disconnect?: boolean;
}) {
  useEffect(() => {
    const { status } = flow.signer;
    if (disconnect && status !== SignerStatus.DISCONNECTED && status !== SignerStatus.INITIALIZING)
      void flow.signer.disconnect().catch(() => {});
  }, [flow, disconnect]);
  return (
    <div className="lk-center" data-testid="lk-connection-error">
      <MethodStyles />
      <div className="lk-error-badge">{icon ?? <ErrorMark />}</div>
      <h2 className="lk-title">{title}</h2>
      <p className="lk-text" role="alert">
        {body}
      </p>
      <div className="lk-actions">
        <button type="button" className="lk-btn lk-btn-primary" onClick={onRetry}>
          {strings.tryAgain}
        </button>
        {onAnotherMethod && (
          <button type="button" className="lk-btn lk-btn-secondary" onClick={onAnotherMethod}>
            {strings.useAnotherMethod}
          </button>
        )}
        {onSkip && (
          <button type="button" className="lk-btn lk-btn-ghost" onClick={onSkip}>
            {strings.skip}
          </button>
        )}
      </div>
    </div>
  );
}
