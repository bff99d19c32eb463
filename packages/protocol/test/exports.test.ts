/**
 * The protocol's public surface, entry by entry. A change here is a change every client and the service see:
 * update the snapshot on purpose (`npx vitest run -u packages/protocol/test/exports.test.ts`) and say why.
 */
import { describe, expect, it } from "vitest";
import * as common from "../src/common.js";
import * as constants from "../src/constants.js";
import * as crypto from "../src/crypto/index.js";
import * as errors from "../src/errors.js";
import * as frame from "../src/frame/channel.js";
import * as root from "../src/index.js";
import * as keyManagement from "../src/keyManagement/index.js";
import * as schemas from "../src/schemas.js";
import * as signerApi from "../src/signerApi/index.js";

/** Each export's name and kind (value exports only: types leave no trace at run time). */
function surface(module: Record<string, unknown>): string[] {
  return Object.keys(module)
    .sort()
    .map((name) => `${name}: ${typeof module[name]}`);
}

describe("@latchkey/protocol exports", () => {
  it("keeps its package.json subpaths", async () => {
    const manifest = (await import("../package.json", { with: { type: "json" } })).default as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(manifest.exports)).toMatchInlineSnapshot(`
      [
        ".",
        "./crypto",
        "./constants",
        "./errors",
        "./schemas",
        "./common",
        "./signerApi",
        "./keyManagement",
        "./frame",
      ]
    `);
  });

  it(".", () =>
    expect(surface(root)).toMatchInlineSnapshot(`
      [
        "ACTIVITY_POLL_INTERVAL_MS: number",
        "BundleError: function",
        "CHALLENGE_BYTES: number",
        "DEFAULT_SESSION_EXPIRATION_SECONDS: number",
        "DEFAULT_SESSION_LENGTH_MS: number",
        "EVM_DERIVATION_PATH: string",
        "ErrorCode: object",
        "HPKE_INFO: string",
        "INVALID_MFA_MESSAGE: string",
        "INVALID_OTP_MESSAGE: string",
        "LatchkeyProtocolError: function",
        "MAX_BODY_BYTES: number",
        "MAX_SESSION_EXPIRATION_SECONDS: number",
        "MAX_TIMER_DELAY_MS: number",
        "MFA_REQUIRED_MESSAGE: string",
        "OTP_LENGTH: number",
        "OTP_MAX_ATTEMPTS: number",
        "OTP_SUCCESS_DELAY_MS: number",
        "OTP_TTL_MS: number",
        "PASSKEY_SUCCESS_DELAY_MS: number",
        "PASSKEY_TIMEOUT_MS: number",
        "POPUP_CLOSED_CHECK_MS: number",
        "POPUP_HEIGHT: number",
        "POPUP_WIDTH: number",
        "REDIRECT_FAILURE_MS: number",
        "RESEND_CONFIRMATION_MS: number",
        "SDK_VERSION_HEADER: string",
        "SOLANA_DERIVATION_PATH: string",
        "STAMP_HEADER_NAME: string",
        "STAMP_MAX_AGE_MS: number",
        "STAMP_MAX_FUTURE_MS: number",
        "STAMP_SCHEME: string",
        "StampFormatError: function",
        "TEMPORARY_SESSION_SUFFIX: string",
        "WALLET_COOKIE_MAX_AGE_MS: number",
        "WEBAUTHN_STAMP_HEADER_NAME: string",
        "base58checkDecode: function",
        "base58checkEncode: function",
        "compactToCanonicalDerP256: function",
        "compactToDerP256: function",
        "compressP256PublicKey: function",
        "decodeStamp: function",
        "derToCompactP256: function",
        "encodeStamp: function",
        "errorStatus: object",
        "fromHex: function",
        "generateP256PrivateKey: function",
        "generateTargetKeyPair: function",
        "hpkeOpenBase: function",
        "hpkeSealBase: function",
        "isLoopbackAnyPort: function",
        "isOriginAllowed: function",
        "openCredentialBundle: function",
        "originMatches: function",
        "p256PublicKeyFromPrivate: function",
        "passkeyStampChallenge: function",
        "queryTypes: object",
        "sealCredentialBundle: function",
        "signP256Der: function",
        "signerQueryTypes: object",
        "signerRoutes: object",
        "stampWithPrivateKey: function",
        "toHex: function",
        "uncompressP256PublicKey: function",
        "urlAllowedBy: function",
        "verifyApiKeyStamp: function",
      ]
    `));
  it("./common", () =>
    expect(surface(common)).toMatchInlineSnapshot(`
    [
      "CONTROL_CHARACTER_ISSUE: string",
      "base64urlNoPadSchema: object",
      "base64urlSchema: object",
      "emailSchema: object",
      "expirationSecondsSchema: object",
      "hasControlCharacter: function",
      "hexStringSchema: object",
      "idSchema: function",
      "multilineTextSchema: function",
      "orgIdSchema: object",
      "otpCodeSchema: object",
      "p256PublicKeyHexSchema: object",
      "textSchema: function",
      "timestampMsSchema: object",
      "urlSchema: function",
    ]
  `));
  it("./constants", () =>
    expect(surface(constants)).toMatchInlineSnapshot(`
    [
      "ACTIVITY_POLL_INTERVAL_MS: number",
      "CHALLENGE_BYTES: number",
      "DEFAULT_SESSION_EXPIRATION_SECONDS: number",
      "DEFAULT_SESSION_LENGTH_MS: number",
      "EVM_DERIVATION_PATH: string",
      "MAX_BODY_BYTES: number",
      "MAX_SESSION_EXPIRATION_SECONDS: number",
      "MAX_TIMER_DELAY_MS: number",
      "OTP_LENGTH: number",
      "OTP_MAX_ATTEMPTS: number",
      "OTP_SUCCESS_DELAY_MS: number",
      "OTP_TTL_MS: number",
      "PASSKEY_SUCCESS_DELAY_MS: number",
      "PASSKEY_TIMEOUT_MS: number",
      "POPUP_CLOSED_CHECK_MS: number",
      "POPUP_HEIGHT: number",
      "POPUP_WIDTH: number",
      "REDIRECT_FAILURE_MS: number",
      "RESEND_CONFIRMATION_MS: number",
      "SDK_VERSION_HEADER: string",
      "SOLANA_DERIVATION_PATH: string",
      "STAMP_MAX_AGE_MS: number",
      "STAMP_MAX_FUTURE_MS: number",
      "TEMPORARY_SESSION_SUFFIX: string",
      "WALLET_COOKIE_MAX_AGE_MS: number",
    ]
  `));
  it("./crypto", () =>
    expect(surface(crypto)).toMatchInlineSnapshot(`
    [
      "BundleError: function",
      "HPKE_INFO: string",
      "STAMP_HEADER_NAME: string",
      "STAMP_SCHEME: string",
      "StampFormatError: function",
      "WEBAUTHN_STAMP_HEADER_NAME: string",
      "base58checkDecode: function",
      "base58checkEncode: function",
      "compactToCanonicalDerP256: function",
      "compactToDerP256: function",
      "compressP256PublicKey: function",
      "decodeStamp: function",
      "derToCompactP256: function",
      "encodeStamp: function",
      "fromHex: function",
      "generateP256PrivateKey: function",
      "generateTargetKeyPair: function",
      "hpkeOpenBase: function",
      "hpkeSealBase: function",
      "openCredentialBundle: function",
      "p256PublicKeyFromPrivate: function",
      "passkeyStampChallenge: function",
      "sealCredentialBundle: function",
      "signP256Der: function",
      "stampWithPrivateKey: function",
      "toHex: function",
      "uncompressP256PublicKey: function",
      "verifyApiKeyStamp: function",
    ]
  `));
  it("./errors", () =>
    expect(surface(errors)).toMatchInlineSnapshot(`
    [
      "ErrorCode: object",
      "INVALID_MFA_MESSAGE: string",
      "INVALID_OTP_MESSAGE: string",
      "LatchkeyProtocolError: function",
      "MFA_REQUIRED_MESSAGE: string",
      "errorStatus: object",
    ]
  `));
  it("./frame", () =>
    expect(surface(frame)).toMatchInlineSnapshot(`
    [
      "ALLOWED_ORIGINS_META: string",
      "FRAME_INIT_MESSAGE: string",
      "FRAME_READY_MESSAGE: string",
    ]
  `));
  it("./keyManagement", () =>
    expect(surface(keyManagement)).toMatchInlineSnapshot(`
      [
        "activityParameterSchemas: object",
        "activityTypes: object",
        "createApiKeysParametersSchema: object",
        "createAuthenticatorsParametersSchema: object",
        "createOauthProvidersParametersSchema: object",
        "createReadWriteSessionParametersSchema: object",
        "deleteApiKeysParametersSchema: object",
        "deleteAuthenticatorsParametersSchema: object",
        "deleteOauthProvidersParametersSchema: object",
        "hashFunctionSchema: object",
        "passkeyAttestationSchema: object",
        "passkeyRegistrationSchema: object",
        "payloadEncodingSchema: object",
        "querySchemas: object",
        "queryTypes: object",
        "signRawPayloadParametersSchema: object",
        "signRawPayloadsParametersSchema: object",
        "submitEnvelopeSchema: object",
        "submitPathActivityTypes: object",
        "transportSchema: object",
        "updateUserEmailParametersSchema: object",
      ]
    `));
  it("./schemas", () =>
    expect(surface(schemas)).toMatchInlineSnapshot(`
      [
        "CONTROL_CHARACTER_ISSUE: string",
        "activityParameterSchemas: object",
        "activityTypes: object",
        "authRequestSchema: object",
        "base64urlNoPadSchema: object",
        "base64urlSchema: object",
        "createApiKeysParametersSchema: object",
        "createAuthenticatorsParametersSchema: object",
        "createOauthProvidersParametersSchema: object",
        "createReadWriteSessionParametersSchema: object",
        "deleteApiKeysParametersSchema: object",
        "deleteAuthenticatorsParametersSchema: object",
        "deleteOauthProvidersParametersSchema: object",
        "emailModeSchema: object",
        "emailSchema: object",
        "emailSignupRequestSchema: object",
        "expirationSecondsSchema: object",
        "hasControlCharacter: function",
        "hashFunctionSchema: object",
        "hexStringSchema: object",
        "idSchema: function",
        "initOtpRequestSchema: object",
        "listAuthMethodsSchema: object",
        "lookupRequestSchema: object",
        "mfaDeleteSchema: object",
        "mfaListSchema: object",
        "mfaRequestSchema: object",
        "mfaValidateSchema: object",
        "mfaVerifySchema: object",
        "multiFactorOperations: object",
        "multiFactorSchema: object",
        "multiFactorTypeSchema: object",
        "multilineTextSchema: function",
        "oauthStateSchema: object",
        "operationEnvelopeSchema: object",
        "orgIdSchema: object",
        "otpCodeSchema: object",
        "otpRequestSchema: object",
        "p256PublicKeyHexSchema: object",
        "passkeyAttestationSchema: object",
        "passkeyRegistrationSchema: object",
        "passkeySignupRequestSchema: object",
        "payloadEncodingSchema: object",
        "prepareOauthRequestSchema: object",
        "querySchemas: object",
        "queryTypes: object",
        "signRawPayloadParametersSchema: object",
        "signRawPayloadsParametersSchema: object",
        "signerApi: object",
        "signerConfigRequestSchema: object",
        "signerQueryTypes: object",
        "signerRoutes: object",
        "stampSchema: object",
        "stampedRequestBodySchema: object",
        "stampedRequestSchema: object",
        "submitEnvelopeSchema: object",
        "submitPathActivityTypes: object",
        "textSchema: function",
        "timestampMsSchema: object",
        "transportSchema: object",
        "updateUserEmailParametersSchema: object",
        "urlSchema: function",
        "verifyOtpRequestSchema: object",
        "webauthnStampSchema: object",
        "withSchema: function",
      ]
    `));
  it("./signerApi", () =>
    expect(surface(signerApi)).toMatchInlineSnapshot(`
      [
        "authRequestSchema: object",
        "emailModeSchema: object",
        "emailSignupRequestSchema: object",
        "initOtpRequestSchema: object",
        "listAuthMethodsSchema: object",
        "lookupRequestSchema: object",
        "mfaDeleteSchema: object",
        "mfaListSchema: object",
        "mfaRequestSchema: object",
        "mfaValidateSchema: object",
        "mfaVerifySchema: object",
        "multiFactorOperations: object",
        "multiFactorSchema: object",
        "multiFactorTypeSchema: object",
        "oauthStateSchema: object",
        "operationEnvelopeSchema: object",
        "otpRequestSchema: object",
        "passkeyAttestationSchema: object",
        "passkeyRegistrationSchema: object",
        "passkeySignupRequestSchema: object",
        "prepareOauthRequestSchema: object",
        "signerApi: object",
        "signerConfigRequestSchema: object",
        "signerQueryTypes: object",
        "signerRoutes: object",
        "stampSchema: object",
        "stampedRequestBodySchema: object",
        "stampedRequestSchema: object",
        "transportSchema: object",
        "verifyOtpRequestSchema: object",
        "webauthnStampSchema: object",
        "withSchema: function",
      ]
    `));
});
