/**
 * What is signed, as data and as sentences: one decoder for the modal, the console, the policy engine
 * and the audit log. Pure: the only I/O is the `call` a token reader is given.
 */

export {
  type DecodeAuthorizationParameters,
  type DecodeAuthorizationReturnType,
  decodeAuthorization,
} from "./decodeAuthorization";
export { MAX_CALL_DEPTH } from "./decodeCall";
export { type DecodeMessageParameters, type DecodeMessageReturnType, decodeMessage } from "./decodeMessage";
export { type DecodeSolanaTransactionReturnType, decodeSolanaTransaction } from "./decodeSolanaTransaction";
export {
  type DecodeTransactionParameters,
  type DecodeTransactionReturnType,
  decodeTransaction,
} from "./decodeTransaction";
export {
  type DecodeTypedDataParameters,
  type DecodeTypedDataReturnType,
  decodeTypedData,
} from "./decodeTypedData";
export {
  type DecodeUserOperationParameters,
  type DecodeUserOperationReturnType,
  decodeUserOperation,
} from "./decodeUserOperation";
export { locales, type SummarizeOptions, type Summary, type SummaryLine, summarize } from "./summarize";
export { de } from "./texts/de";
export { en } from "./texts/en";
export { es } from "./texts/es";
export { fr } from "./texts/fr";
export type { DecoderTexts, LocaleCode } from "./texts/types";
export {
  type CreateTokenInfoReaderParameters,
  createTokenInfoReader,
  type TokenInfoCall,
} from "./tokens/createTokenInfoReader";
export type {
  Action,
  Decoded,
  DecodedAuthorization,
  DecodeOptions,
  KnownAddress,
  TokenInfo,
  TokenInfoReader,
  TokenRef,
  TypedDataField,
  UnreadableReason,
  Warning,
} from "./types";
