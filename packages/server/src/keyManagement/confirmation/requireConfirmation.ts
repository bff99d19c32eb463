import { createHash, createPublicKey, verify } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import { CONFIRMATION_TTL_MS, confirmationMessage } from "@latchkey/protocol/frame";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import { apiError } from "../../errors";
import type { ActivityContext } from "../defineActivity";
import type { SigningRequest } from "../policies/evaluatePolicy";
import { type ConfirmationKind, SIMPLE_7702_ACCOUNT, type SigningPolicy } from "../policies/policySchema";

/**
 * Enforced confirmations (issue 46, "what you sign is what you see"): an app's signing policy may say
 * that its users confirm some signatures (`confirmation.required`). The confirmation step then runs in
 * the service's auth frame, a page on the service's origin that the host page cannot script: the frame
 * asks the service what the request does (`preview_signing`), draws it, and when the user presses
 * Confirm there signs `confirmationMessage(sha256(body), confirmedAtMs)` with a P-256 key it made and
 * never hands out, whose public key it registered with its session (features/confirmation). The service
 * signs nothing without that signature over this exact body, made at most two minutes ago, by the key
 * of the session that stamped it. A replayed body answers the activity it made (submitActivity.ts): one
 * confirmation is one signature.
 */

/** The kinds of a signing request, as `confirmation.required` names them (none: nothing to confirm). */
export function confirmationKindsOf(request: SigningRequest): ConfirmationKind[] {
  switch (request.kind) {
    case "several":
      return request.requests.flatMap(confirmationKindsOf);
    case "authorization":
      // The delegation a 7702 account's first operation carries names the service's own account
      // implementation: the operation it comes with is what the user confirms.
      return request.delegate === SIMPLE_7702_ACCOUNT ? [] : ["authorization"];
    case "transaction":
    case "userOperation":
    case "typedData":
    case "message":
    case "rawPayload":
    case "solanaPayload":
      return [request.kind];
  }
}

/** Whether the policy makes the user confirm `request` in the auth frame. */
export function needsConfirmation(
  policy: SigningPolicy | undefined | null,
  request: SigningRequest,
): boolean {
  const required = policy?.confirmation?.required;
  if (!required) return false;
  const kinds = confirmationKindsOf(request);
  return required === true ? kinds.length > 0 : kinds.some((k) => required.includes(k));
}

const CONFIRMATION = /^v1\.(\d{13})\.([0-9a-f]{128})$/;
// SubjectPublicKeyInfo header for an uncompressed P-256 point.
const SPKI_P256_UNCOMPRESSED = Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex");

/** Whether `signature` (r‖s hex) verifies over `message` with the uncompressed P-256 key `publicKeyHex`. */
export function verifyConfirmationSignature(
  publicKeyHex: string,
  message: string,
  signatureHex: string,
): boolean {
  try {
    const key = createPublicKey({
      key: Buffer.concat([SPKI_P256_UNCOMPRESSED, Buffer.from(publicKeyHex, "hex")]),
      format: "der",
      type: "spki",
    });
    return verify(
      "sha256",
      Buffer.from(message),
      { key, dsaEncoding: "ieee-p1363" },
      Buffer.from(signatureHex, "hex"),
    );
  } catch {
    return false;
  }
}

/**
 * Refuses a signature the app's policy makes the user confirm, unless `confirmation` is the auth frame's
 * for this exact body (403 CONFIRMATION_REQUIRED without one, 403 CONFIRMATION_INVALID with a wrong,
 * expired or foreign one). Runs before the policy decides and before any key is opened; a refusal is in
 * the security log (`signing.confirmation_refused`). True when it checked a confirmation, false when
 * the policy asks for none.
 */
export async function requireConfirmation(
  ctx: Pick<ActivityContext, "db" | "apps" | "now" | "audit">,
  params: {
    caller: StampedCaller;
    signingRequest: SigningRequest;
    rawBody: string;
    confirmation: string | undefined;
  },
): Promise<boolean> {
  const { caller } = params;
  const policy = await ctx.apps.signingPolicyOf(caller.user.appId);
  if (!needsConfirmation(policy, params.signingRequest)) return false;
  const refuse = async (code: ErrorCode, message: string): Promise<never> => {
    await ctx.audit("signing.confirmation_refused", {
      appId: caller.user.appId,
      userId: caller.user.id,
      details: { code, reason: message, kinds: confirmationKindsOf(params.signingRequest) },
    });
    throw apiError(code, message);
  };
  if (!params.confirmation)
    return refuse(
      ErrorCode.CONFIRMATION_REQUIRED,
      "This app requires you to confirm this signature in the Latchkey frame; nothing was signed",
    );
  const parsed = CONFIRMATION.exec(params.confirmation);
  if (!parsed)
    return refuse(ErrorCode.CONFIRMATION_INVALID, "The confirmation is not one the Latchkey frame makes");
  const confirmedAtMs = Number(parsed[1]);
  const now = ctx.now();
  if (confirmedAtMs > now + 60_000 || now - confirmedAtMs > CONFIRMATION_TTL_MS)
    return refuse(ErrorCode.CONFIRMATION_INVALID, "The confirmation has expired: confirm the request again");
  const key = caller.apiKeyId
    ? await ctx.db
        .selectFrom("api_keys")
        .select("confirmation_key")
        .where("id", "=", caller.apiKeyId)
        .executeTakeFirst()
    : undefined;
  if (!key?.confirmation_key)
    return refuse(
      ErrorCode.CONFIRMATION_INVALID,
      "This session has no confirmation key: sign in through the Latchkey frame to confirm signatures",
    );
  const digest = createHash("sha256").update(params.rawBody).digest("hex");
  const message = confirmationMessage(digest, confirmedAtMs);
  if (!verifyConfirmationSignature(key.confirmation_key, message, parsed[2] as string))
    return refuse(ErrorCode.CONFIRMATION_INVALID, "The confirmation is not for this request");
  return true;
}
