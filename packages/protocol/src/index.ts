/**
 * `@latchkey/protocol`: what both ends of the wire share and a client needs — constants, the crypto of
 * stamps and credential bundles, error codes, the signer API's route table and query types, and (as types
 * only) every request and answer shape. It holds no schema library: validation schemas are at
 * `@latchkey/protocol/schemas`, so a client bundle never ships them.
 */
export * from "./adminRoutes";
export * from "./constants";
export * from "./crypto";
export * from "./errors";
export * from "./keyManagement/queryTypes";
export * from "./oauthErrors";
export * from "./origins";
export type * from "./schemas";
export * from "./signerApi/routes";
