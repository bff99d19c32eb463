import type { AuthFailure } from "../flow/step";
import { useTexts } from "../texts/useTexts";
import { ConnectionError } from "./ConnectionError";

/**
 * The error view of an email step (spec §8): 'Connection failed' / 'The code could not be verified',
 * 'Connection timed out' / 'It looks like you need more time.', or 'Permission denied' / 'The request is
 * currently not allowed by the agent or the platform. Try again later.' — with Try again and Use another
 * method.
 */
export function FailureView({
  failure,
  onRetry,
  onAnotherMethod,
}: {
  failure: AuthFailure;
  onRetry: () => void;
  onAnotherMethod: () => void;
}) {
  const texts = useTexts();
  const [title, body] =
    failure === "connection"
      ? [texts.connectionFailed, texts.otpFailedBody]
      : failure === "timeout"
        ? [texts.connectionTimedOut, texts.needMoreTime]
        : [texts.permissionDenied, texts.permissionDeniedBody];
  return <ConnectionError title={title} body={body} onRetry={onRetry} onAnotherMethod={onAnotherMethod} />;
}
