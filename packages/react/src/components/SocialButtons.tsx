import type { AuthTransitions } from "../flow/transitions";
import { MethodStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import type { SocialSection } from "../types";
import { providerName } from "../ui/providerName";
import { ProviderLogo } from "./ProviderLogo";

/**
 * The social buttons of one section: full-width 'Continue with {provider}' buttons, or a row of logos
 * when the section has more than two providers.
 */
export function SocialButtons({
  transitions,
  providers,
}: {
  transitions: AuthTransitions;
  providers: SocialSection[];
}) {
  const texts = useTexts();
  const compact = providers.length > 2;
  const buttons = providers.map((p) => {
    const label = texts.continueWith(providerName(p));
    return (
      <button
        key={`${p.authProviderId}-${p.mode ?? "popup"}-${p.auth0Connection ?? ""}`}
        type="button"
        className="lk-btn lk-btn-secondary"
        aria-label={compact ? label : undefined}
        title={compact ? label : undefined}
        data-provider={p.authProviderId}
        // Synchronous in the click: a pop-up can only open here.
        onClick={() => void transitions.oauth.start(p)}
      >
        <ProviderLogo config={p} />
        {!compact && label}
      </button>
    );
  });
  return (
    <>
      <MethodStyles />
      {compact ? <div className="lk-social-row">{buttons}</div> : buttons}
    </>
  );
}
