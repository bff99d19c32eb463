import type { AuthFlow } from "../flow/controller";
import { providerName, startOauth } from "../flow/oauth";
import { strings } from "../strings";
import type { SocialSection } from "../types";
import { MethodStyles } from "./MethodStyles";
import { ProviderLogo } from "./ProviderLogo";

/**
 * The social buttons of one section: full-width 'Continue with {provider}' buttons, or a row of logos
 * when the section has more than two providers.
 */
export function SocialButtons({ flow, providers }: { flow: AuthFlow; providers: SocialSection[] }) {
  const compact = providers.length > 2;
  const buttons = providers.map((p) => {
    const label = strings.continueWith(providerName(p));
    return (
      <button
        key={`${p.authProviderId}-${p.mode ?? "popup"}-${p.auth0Connection ?? ""}`}
        type="button"
        className="lk-btn lk-btn-secondary"
        aria-label={compact ? label : undefined}
        title={compact ? label : undefined}
        data-provider={p.authProviderId}
        // Synchronous in the click: a pop-up can only open here.
        onClick={() => void startOauth(flow, p)}
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
