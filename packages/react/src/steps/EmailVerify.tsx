import { Illustration } from "../components/Illustration";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/** email_verify: the magic link is on its way (spec §2). */
export function EmailVerifyStep({ step, ui }: StepProps<"email_verify">) {
  const texts = useTexts();
  return (
    <div className="lk-center">
      <Illustration name="mail" style={ui.illustrationStyle} animated />
      <h2 className="lk-title">{texts.checkYourEmail}</h2>
      <p className="lk-text">
        {texts.emailVerifyBody} <span className="lk-strong lk-email">{step.email}</span>
      </p>
      <p className="lk-text" style={{ marginTop: 8 }}>
        {texts.emailVerifyHint}
      </p>
    </div>
  );
}
