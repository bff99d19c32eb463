import { useModalTriggers } from "../hooks/useModalTriggers";
import { useTexts } from "../texts/useTexts";
import { AuthFlowView } from "./AuthFlowView";
import { Root } from "./Root";

/**
 * The sign-in flow inline in the page, without a dialog around it. It runs the same triggers as the
 * modal (an error from a social sign-in redirect, an account-linking prompt, add-passkey-on-signup), so
 * an app may render only the card.
 *
 * @example
 * <AuthCard /> // the sign-in flow inline, e.g. on a /login page
 */
export function AuthCard({ className }: { className?: string }) {
  useModalTriggers();
  const texts = useTexts();
  return (
    <Root className={className}>
      <section className="lk-card" aria-label={texts.signIn}>
        <AuthFlowView closable={false} />
      </section>
    </Root>
  );
}
