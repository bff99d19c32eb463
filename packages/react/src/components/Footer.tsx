import { RESEND_CONFIRMATION_MS } from "@latchkey/protocol/constants";
import { useEffect, useState } from "react";
import type { ResolvedUiConfig } from "../config";
import { footerKind } from "../flow/rules";
import type { AuthStep, AuthStepOf } from "../flow/step";
import type { AuthTransitions } from "../flow/transitions";
import { useTexts } from "../texts/useTexts";
import { ShieldIcon } from "./icons";

function Resend({
  transitions,
  step,
}: {
  transitions: AuthTransitions;
  step: AuthStepOf<"email_verify" | "otp_verify">;
}) {
  const texts = useTexts();
  const [done, setDone] = useState(false);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    if (!done) return;
    const t = setTimeout(() => setDone(false), RESEND_CONFIRMATION_MS);
    return () => clearTimeout(t);
  }, [done]);
  const busy = step.status === "verifying" || step.status === "success";
  return (
    <div>
      {texts.emailNotReceived}{" "}
      <button
        type="button"
        className="lk-link"
        disabled={busy || sending || done}
        onClick={() => {
          setSending(true);
          transitions.email
            .resend()
            .then(() => setDone(true))
            .catch(() => {})
            .finally(() => setSending(false));
        }}
      >
        {done ? texts.resendDone : texts.resend}
      </button>
    </div>
  );
}

/** Footer by step (spec §2): terms, resend, or support, then the 'protected by' badge. */
export function Footer({
  transitions,
  step,
  ui,
}: {
  transitions: AuthTransitions;
  step: AuthStep;
  ui: ResolvedUiConfig;
}) {
  const texts = useTexts();
  const kind = footerKind(step.type, ui.supportUrl);
  return (
    <footer className="lk-footer">
      {kind === "terms" && (
        <div>
          {texts.termsPrefix}
          {ui.termsUrl ? (
            <a href={ui.termsUrl} target="_blank" rel="noreferrer">
              {texts.termsOfService}
            </a>
          ) : (
            texts.termsOfService
          )}
          {texts.termsSuffix}
        </div>
      )}
      {/* An error view has its own Try again: no resend link under it. */}
      {kind === "resend" && (step.type === "email_verify" || step.type === "otp_verify") && !step.failure && (
        <Resend transitions={transitions} step={step} />
      )}
      {kind === "support" && (
        <div>
          {texts.needHelp}{" "}
          <a href={ui.supportUrl} target="_blank" rel="noreferrer">
            {texts.contactSupport}
          </a>
        </div>
      )}
      <div className="lk-badge">
        <ShieldIcon />
        {texts.protectedBy} <strong>{texts.brand}</strong>
      </div>
    </footer>
  );
}
