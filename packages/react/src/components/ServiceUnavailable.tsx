import { useLatchkeyContext } from "../context";
import { checkService } from "../flow/checkService";
import { useTexts } from "../texts/useTexts";
import { ConnectionError } from "./ConnectionError";

/**
 * Shown in place of the sign-in methods when the provider's connection check failed (the developer's
 * cause is in the console). Try again checks again; the methods come back once the service answers.
 */
export function ServiceUnavailable({ code }: { code: string }) {
  const texts = useTexts();
  const { flow } = useLatchkeyContext();
  return (
    <div data-testid="lk-service-unavailable" data-code={code}>
      <ConnectionError
        title={texts.serviceUnavailable}
        body={texts.serviceUnavailableBody}
        onRetry={() => void checkService(flow).catch(() => {})}
      />
    </div>
  );
}
