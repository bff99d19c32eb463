import { useLatchkeyContext } from "../context";
import { checkService } from "../flow/checkService";
import { useTexts } from "../texts/useTexts";
import { ConnectionError } from "./ConnectionError";

/** The label of the developer's line under the user's message (development builds only). */
export const DEVELOPER_LABEL = "For the developer:";

/**
 * The developer's line for a failed connection check: the cause and its fix (the console's line), or
 * nothing. Only in a development build (`process.env.NODE_ENV !== "production"`, as React decides; the
 * app's bundler replaces it, and a production build drops this line and its text).
 */
export function developerNote(message: string | undefined, dev: boolean): string | undefined {
  return dev && message ? message : undefined;
}

/**
 * Shown in place of the sign-in methods when the provider's connection check failed: the user's short
 * message and, in a development build, the cause for the developer under it (it is also in the console).
 * Try again checks again; the methods come back once the service answers.
 */
export function ServiceUnavailable({ code, message }: { code: string; message?: string }) {
  const texts = useTexts();
  const { flow } = useLatchkeyContext();
  // Written out here (not behind a helper) so that the bundler's replacement makes it a constant and the
  // minifier drops the whole line from a production build.
  const note = process.env.NODE_ENV !== "production" ? developerNote(message, true) : undefined;
  return (
    <div data-testid="lk-service-unavailable" data-code={code}>
      <ConnectionError
        title={texts.serviceUnavailable}
        body={texts.serviceUnavailableBody}
        onRetry={() => void checkService(flow).catch(() => {})}
      >
        {process.env.NODE_ENV !== "production" && note ? (
          <p
            data-testid="lk-developer-note"
            lang="en"
            style={{
              margin: "0 0 16px",
              padding: "8px 10px",
              borderRadius: 8,
              background: "var(--lk-surface)",
              border: "1px dashed var(--lk-border)",
              color: "var(--lk-muted)",
              fontFamily: "ui-monospace,SFMono-Regular,Menlo,Consolas,monospace",
              fontSize: 12,
              lineHeight: 1.4,
              textAlign: "left",
              overflowWrap: "anywhere",
            }}
          >
            {DEVELOPER_LABEL} {note}
          </p>
        ) : null}
      </ConnectionError>
    </div>
  );
}
