import type { PreviewLocale, PreviewSigningRequest, SigningPreview } from "@latchkey/protocol";
import type { SignerApiError, SignerError } from "../errors";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `previewSigning` takes. */
export interface PreviewSigningParameters {
  /** The signing request as the service gets it (a `SigningRequest`'s `activity`). */
  request: PreviewSigningRequest;
  /** The language of the summary's sentences (en by default). */
  locale?: PreviewLocale;
}
/** The errors `previewSigning` may throw. */
export type PreviewSigningErrorType = SignerError<"NOT_AUTHENTICATED"> | SignerApiError;

/**
 * What a signature would do, as the service reads it before signing: decoded, simulated on its chain
 * (the balance changes, or why there is no simulation) and asked of the app's signing policy. Signs
 * nothing and records nothing.
 *
 * @example
 * const preview = await previewSigning(signer, { request: confirmation.request.activity, locale: "de" });
 * preview.simulation; // { status: "ok", balanceChanges: [{ asset: "native", delta: "-10000000000000000" }], … }
 */
export async function previewSigning(
  signer: SignerBase,
  { request, locale }: PreviewSigningParameters,
): Promise<SigningPreview> {
  const user = await requireUser(signer);
  const { preview } = await signer.client.query<{ preview: SigningPreview }>("preview_signing", {
    organizationId: user.orgId,
    request,
    ...(locale ? { locale } : {}),
  });
  return preview;
}
