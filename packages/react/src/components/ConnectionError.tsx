import type { ReactNode } from "react";
import { MethodStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";

const ErrorMark = () => (
  <svg aria-hidden="true" viewBox="0 0 72 72">
    <circle cx="36" cy="36" r="34" fill="currentColor" opacity=".12" />
    <circle cx="36" cy="36" r="20" fill="currentColor" />
    <path d="M36 26v12M36 45.5v.5" stroke="#fff" strokeWidth="4" strokeLinecap="round" />
  </svg>
);

/**
 * The connection-error view (spec §8): a title, a body, Try again, and optionally Use another method
 * and Skip. Only a view: the transition that shows it also disconnects the signer (spec §4, "Errors and
 * reset"; not for the add-passkey failure, the user stays signed in).
 */
export function ConnectionError({
  title,
  body,
  icon,
  onRetry,
  retryLabel,
  onAnotherMethod,
  onSkip,
  children,
}: {
  title: string;
  body: string;
  icon?: ReactNode;
  onRetry: () => void;
  /** The retry button's label: 'Try again' by default. */
  retryLabel?: string;
  onAnotherMethod?: () => void;
  onSkip?: () => void;
  /** Shown between the body and the buttons (the developer's line of the service check). */
  children?: ReactNode;
}) {
  const texts = useTexts();
  return (
    <div className="lk-center" data-testid="lk-connection-error">
      <MethodStyles />
      <div className="lk-error-badge">{icon ?? <ErrorMark />}</div>
      <h2 className="lk-title">{title}</h2>
      <p className="lk-text" role="alert">
        {body}
      </p>
      {children}
      <div className="lk-actions">
        <button type="button" className="lk-btn lk-btn-primary" onClick={onRetry}>
          {retryLabel ?? texts.tryAgain}
        </button>
        {onAnotherMethod && (
          <button type="button" className="lk-btn lk-btn-secondary" onClick={onAnotherMethod}>
            {texts.useAnotherMethod}
          </button>
        )}
        {onSkip && (
          <button type="button" className="lk-btn lk-btn-ghost" onClick={onSkip}>
            {texts.skip}
          </button>
        )}
      </div>
    </div>
  );
}
