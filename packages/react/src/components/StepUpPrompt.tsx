import type { StepUp, StepUpMethod } from "@latchkey/core";
import { useState } from "react";
import { useLatchkeyContext } from "../context";
import { useUser } from "../hooks/useUser";
import { useTexts } from "../texts/useTexts";
import { OtpInput } from "./OtpInput";

/** A code the user is typing to confirm it's them: mailed to their email, or from their app. */
type PendingCode = { type: "email"; otpId: string; email: string } | { type: "totp"; multiFactorId: string };

/**
 * 'Confirm it's you': the fresh sign-in the service asked for (STEP_UP_REQUIRED) — a code to the user's
 * email, their passkey or their authenticator app, as `methods` lists. `onProof` runs the refused request
 * again with the proof and answers an error text to show (the code boxes then clear) or null. A failed
 * request for a code goes to `onError` as `describeError` words it (the error's text by default).
 */
export function StepUpPrompt({
  methods,
  body,
  disabled,
  onProof,
  onError,
  onCancel,
  onSendCode,
  describeError,
}: {
  methods: StepUpMethod[];
  /** What needs it, e.g. 'Importing needs a recent sign-in. Confirm with one of these:'. */
  body: string;
  disabled?: boolean;
  onProof: (proof: StepUp) => Promise<string | null>;
  onError: (text: string) => void;
  onCancel: () => void;
  /** Runs as a code is asked for (e.g. to clear an earlier error). */
  onSendCode?: () => void;
  describeError?: (error: unknown) => string;
}) {
  const texts = useTexts();
  const { signer } = useLatchkeyContext();
  const user = useUser();
  const [pending, setPending] = useState<PendingCode | null>(null);
  const [busy, setBusy] = useState(false);

  async function startCode(method: "email" | "totp") {
    setBusy(true);
    onSendCode?.();
    try {
      if (method === "email") {
        const email = user?.email;
        if (!email) return;
        const { otpId } = await signer.sendVerificationCode({ contact: email });
        setPending({ type: "email", otpId, email });
      } else {
        const [factor] = await signer.getMfaFactors();
        if (factor) setPending({ type: "totp", multiFactorId: factor.multiFactorId });
      }
    } catch (e) {
      const err = e as { code?: string; message?: string } | null;
      onError(
        describeError
          ? describeError(e)
          : (err?.code && texts.errors[err.code]) || err?.message || texts.errorBody,
      );
    } finally {
      setBusy(false);
    }
  }

  const working = disabled || busy;
  return (
    <section className="lk-step-up" aria-label={texts.stepUpTitle} style={{ display: "grid", gap: 8 }}>
      <h3 style={{ margin: 0 }}>{texts.stepUpTitle}</h3>
      {pending ? (
        <>
          <p style={{ margin: 0 }}>
            {pending.type === "email" ? texts.stepUpCodeSent(pending.email) : texts.enterAuthenticatorCode}
          </p>
          <OtpInput
            disabled={working}
            onInvalid={onError}
            onSubmit={(code) =>
              onProof(
                pending.type === "email"
                  ? { type: "email", otpId: pending.otpId, verificationCode: code }
                  : { type: "totp", multiFactorId: pending.multiFactorId, code },
              )
            }
          />
        </>
      ) : (
        <>
          <p style={{ margin: 0 }}>{body}</p>
          {methods.includes("email") && user?.email ? (
            <button
              type="button"
              className="lk-btn lk-btn-secondary"
              disabled={working}
              onClick={() => void startCode("email")}
            >
              {texts.stepUpSendCode}
            </button>
          ) : null}
          {methods.includes("passkey") ? (
            <button
              type="button"
              className="lk-btn lk-btn-secondary"
              disabled={working}
              onClick={() => void onProof({ type: "passkey" })}
            >
              {texts.stepUpUsePasskey}
            </button>
          ) : null}
          {methods.includes("totp") ? (
            <button
              type="button"
              className="lk-btn lk-btn-secondary"
              disabled={working}
              onClick={() => void startCode("totp")}
            >
              {texts.stepUpUseTotp}
            </button>
          ) : null}
        </>
      )}
      <button type="button" className="lk-btn lk-btn-secondary" disabled={working} onClick={onCancel}>
        {texts.cancel}
      </button>
    </section>
  );
}
