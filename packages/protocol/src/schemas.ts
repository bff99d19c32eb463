/**
 * Every wire schema and shape, for callers of `@latchkey/protocol/schemas`: the signer API's endpoint
 * table and requests (`signerApi/`), the key-management activities and queries (`keyManagement/`) and
 * the shared building blocks (`common.ts`). Unknown keys are stripped, not refused, so newer clients
 * keep working; the admin API's requests (`adminApi`), which an operator's key signs, refuse them.
 */
export * from "./adminApi";
export * from "./adminConsoleApi";
export * from "./backendApi";
export * from "./common";
export * from "./keyManagement";
export * from "./signerApi";
