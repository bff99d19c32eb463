import { AuthFlowView } from "./AuthFlowView";
import { Root } from "./Root";

/** The sign-in flow inline in the page, without a dialog around it. */
export function AuthCard({ className }: { className?: string }) {
  return (
    <Root className={className}>
      <section className="lk-card" aria-label="Sign in">
        <AuthFlowView closable={false} />
      </section>
    </Root>
  );
}
