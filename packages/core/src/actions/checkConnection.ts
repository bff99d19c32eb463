import { ErrorCode, signerRoutes } from "@latchkey/protocol/wire";
import { SignerApiError } from "../errors/api";
import { LatchkeyError } from "../errors/base";
import type { CoreErrorCode } from "../errors/codes";
import type { SignerBase } from "../signer/types";

/** What `checkConnection` resolves with. */
export type CheckConnectionReturnType =
  | {
      ok: true;
      /** Where the key holder keeps keys: `memory` means the session ends when the page is reloaded. */
      storage: "persistent" | "memory";
      storageError?: string;
    }
  | {
      ok: false;
      /**
       * `SERVICE_UNREACHABLE` (nothing answers at the service URL), `SERVICE_NOT_FOUND` (something answers,
       * but not a Latchkey service at that path), `ORIGIN_NOT_ALLOWED` (the app does not allow this page's
       * origin), `INVALID_API_KEY`, `FRAME_UNAVAILABLE` / `FRAME_TIMEOUT` (the auth frame did not answer).
       */
      code: CoreErrorCode;
      /** For the developer: what is wrong and how to fix it. */
      message: string;
      error: unknown;
    };
/** The errors `checkConnection` may throw (discriminate on `name` and `code`). */
export type CheckConnectionErrorType = never;

/**
 * Checks, before anyone signs in, that this page can use the service: the signer API answers this origin
 * with this API key, and the key holder (the auth frame in a browser) is ready — and says where its keys
 * live. It never throws: a problem comes back as `{ ok: false, code, message }` naming the cause. The
 * React provider runs it on mount and the modal shows the problem instead of a sign-in that cannot work.
 *
 * @example
 * const check = await checkConnection(signer);
 * if (!check.ok) console.error(check.message);
 */
export async function checkConnection(signer: SignerBase): Promise<CheckConnectionReturnType> {
  const { client, keyHolder } = signer;
  const [api, holder] = await Promise.allSettled([
    client.call(signerRoutes.signerConfig, {}),
    keyHolder.ready?.() ?? Promise.resolve({ storage: "persistent" as const }),
  ]);
  if (api.status === "rejected") return problem(await classifyApiFailure(signer, api.reason), api.reason);
  if (holder.status === "rejected") {
    const error: unknown = holder.reason;
    const code = error instanceof LatchkeyError ? error.code : "FRAME_ERROR";
    return problem({ code, message: error instanceof Error ? error.message : String(error) }, error);
  }
  return { ok: true, ...holder.value };
}

function problem(found: { code: CoreErrorCode; message: string }, error: unknown): CheckConnectionReturnType {
  return { ok: false, ...found, error };
}

async function classifyApiFailure(
  signer: SignerBase,
  error: unknown,
): Promise<{ code: CoreErrorCode; message: string }> {
  const { baseUrl } = signer.client;
  const origin = typeof location === "undefined" ? undefined : location.origin;
  if (error instanceof SignerApiError) {
    if (error.code === ErrorCode.ORIGIN_NOT_ALLOWED)
      return {
        code: error.code,
        message: `The Latchkey app does not allow this page's origin (${origin}): add it to the app's allowed origins`,
      };
    if (error.code === ErrorCode.INVALID_API_KEY || error.code === ErrorCode.UNAUTHENTICATED)
      return {
        code: error.code,
        message: `The Latchkey service at ${baseUrl} refused the API key: ${error.message}`,
      };
    if (error.status === 404)
      return {
        code: "SERVICE_NOT_FOUND",
        message: `No Latchkey service answers at ${baseUrl} (404 for /signer/v1/signer-config): check the service URL`,
      };
    return {
      code: error.code,
      message: `The Latchkey service at ${baseUrl} answered ${error.status}: ${error.message}`,
    };
  }
  // A network failure: nothing answers, something else answers, or the browser refused the answer
  // (CORS: no app allows this origin). The service's open /healthz tells them apart.
  const found = await signer.client.probe();
  if (found === "latchkey")
    return {
      code: ErrorCode.ORIGIN_NOT_ALLOWED,
      message: `The Latchkey service at ${baseUrl} is up but does not allow this page's origin (${origin}): add it to the app's allowed origins`,
    };
  if (found === "other")
    return {
      code: "SERVICE_NOT_FOUND",
      message: `Something answers at ${baseUrl}, but not a Latchkey service: check the service URL`,
    };
  return {
    code: "SERVICE_UNREACHABLE",
    message: `Nothing answers at ${baseUrl}: is the Latchkey service running, and is the URL right?`,
  };
}
