import { Fragment, type ReactNode } from "react";
import { EmailForm } from "../components/EmailForm";
import { ExternalWalletsButton } from "../components/ExternalWalletsButton";
import { AlertIcon } from "../components/icons";
import { PasskeyButtons } from "../components/PasskeyButtons";
import { SocialButtons } from "../components/SocialButtons";
import { errorText } from "../flow/errors";
import { useTexts } from "../texts/useTexts";
import type { AuthSection, SocialSection } from "../types";
import type { StepProps } from "./types";

/** initial: heading, error banner, sections of sign-in methods separated by 'or' (spec §2). */
export function InitialStep({ transitions, step, ui }: StepProps<"initial">) {
  const texts = useTexts();
  const hasEmail = ui.sections.some((s) => s.some((m) => m.type === "email"));
  const method = (m: Exclude<AuthSection, SocialSection>, key: number) => {
    if (m.type === "email")
      return <EmailForm key={key} section={m} onSubmit={(email) => transitions.email.submit(email)} />;
    if (m.type === "external_wallets")
      return <ExternalWalletsButton key={key} transitions={transitions} section={m} />;
    return <PasskeyButtons key={key} transitions={transitions} section={m} label={hasEmail} />;
  };
  // Social buttons next to each other in a section are one group (a row of logos when many).
  const items = (section: AuthSection[]) => {
    const out: ReactNode[] = [];
    let social: SocialSection[] = [];
    const flush = () => {
      if (social.length)
        out.push(<SocialButtons key={`social-${out.length}`} transitions={transitions} providers={social} />);
      social = [];
    };
    section.forEach((m, i) => {
      if (m.type === "social") social.push(m);
      else {
        flush();
        out.push(method(m, i));
      }
    });
    flush();
    return out;
  };
  return (
    <div>
      {!ui.hideHeading && <h2 className="lk-heading">{texts.signIn}</h2>}
      {step.error && (
        <div className="lk-banner" role="alert">
          <AlertIcon />
          <div>
            <div className="lk-banner-title">
              {step.failure === "permission" ? texts.permissionDenied : texts.errorTitle}
            </div>
            <div className="lk-banner-body">
              {step.failure === "permission" ? texts.permissionDeniedBody : texts.errorBody}
            </div>
            <div className="lk-banner-body" data-testid="lk-error-detail">
              {errorText(step.error, texts)}
            </div>
          </div>
        </div>
      )}
      {ui.sections.map((section, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: sections are positional config
        <Fragment key={i}>
          {i > 0 && <div className="lk-divider">{texts.or}</div>}
          <div className="lk-stack">{items(section)}</div>
        </Fragment>
      ))}
    </div>
  );
}
