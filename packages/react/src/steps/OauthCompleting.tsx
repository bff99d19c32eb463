import { ConnectionError } from "../components/ConnectionError";
import { ProviderLogo } from "../components/ProviderLogo";
import { MethodStyles } from "../styles/Styles";
import { useTexts } from "../texts/useTexts";
import { providerName } from "../ui/providerName";
import type { StepProps } from "./types";

/**
 * oauth_completing (spec §2): the provider's pop-up (or redirect) is under way. A failure shows
 * "Couldn't connect to {provider}" with Try again and Use another method.
 */
export function OauthCompletingStep({ transitions, step }: StepProps<"oauth_completing">) {
  const texts = useTexts();
  const { config } = step;
  const name = providerName(config);
  const logo = (
    <div className="lk-provider-badge">
      <ProviderLogo config={config} />
    </div>
  );
  if (step.error)
    return (
      <ConnectionError
        icon={logo}
        title={texts.couldNotConnect(name)}
        body={texts.oauthFailedBody}
        // Synchronous in the click: a pop-up can only open here.
        onRetry={() => void transitions.oauth.retry(config)}
        onAnotherMethod={() => transitions.navigation.toInitial()}
      />
    );
  return (
    <div className="lk-center" aria-busy="true">
      <MethodStyles />
      <div className="lk-pulse">{logo}</div>
      <h2 className="lk-title">{texts.continueWith(name)}</h2>
      <p className="lk-text">{texts.followPopup(name)}</p>
      <div className="lk-spinner" aria-hidden />
    </div>
  );
}
