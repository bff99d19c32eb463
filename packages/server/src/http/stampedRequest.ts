import { ErrorCode, type StampedBinding, type StampedRequest } from "@latchkey/protocol";
import type { App } from "../apps/appDirectory";
import { authenticateStamp, type StampedCaller } from "../auth/stamps/authenticateStamp";
import type { OperationBinding } from "../auth/stamps/operationBinding";
import type { ServiceContext } from "../context";
import { apiError } from "../errors";

/**
 * Authenticates the key-management request a signer endpoint carries (`stampedRequest`, DESIGN §3.1):
 * its url must name the endpoint's key-management path, its stamp must verify (auth/stamps), its body
 * must name the endpoint's operation, and the caller must belong to the app whose key called.
 *
 * @example
 * const { caller, raw } = await unwrapStampedRequest(ctx, { stampedRequest, app }, signerApi.signPayload.stamped);
 */
export async function unwrapStampedRequest(
  ctx: Pick<ServiceContext, "db" | "now" | "caches" | "apps">,
  request: { stampedRequest: StampedRequest; app: App },
  binding: StampedBinding,
  options: { passkey?: { allowRootOrg: boolean } } = {},
): Promise<{ caller: StampedCaller; raw: string }> {
  const { stampedRequest, app } = request;
  let path: string;
  try {
    path = new URL(stampedRequest.url, "http://x").pathname;
  } catch {
    throw apiError(ErrorCode.INVALID_REQUEST, "stampedRequest.url is not a URL");
  }
  if (path !== binding.url)
    throw apiError(ErrorCode.INVALID_REQUEST, `stampedRequest.url must be ${binding.url}`);
  const operation: OperationBinding =
    binding.kind === "submit"
      ? { kind: "submit", types: [binding.type] }
      : { kind: binding.kind, type: binding.type };
  const caller = await authenticateStamp(ctx, {
    body: stampedRequest.body,
    headerName: stampedRequest.stamp.stampHeaderName,
    headerValue: stampedRequest.stamp.stampHeaderValue,
    operation,
    ...(options.passkey ? { passkey: options.passkey } : {}),
  });
  if (caller.user.appId !== app.id) {
    throw apiError(ErrorCode.FORBIDDEN, "This session belongs to another app");
  }
  return { caller, raw: stampedRequest.body };
}
