/**
 * `@latchkey/protocol/wire`: what a client's first load needs of the protocol, without its crypto —
 * constants, error codes, hex, the route tables (plain data) and, as types only, every request and answer shape. The root export re-exports the crypto too
 * (P-256 from @noble/curves, HPKE), and a bundler that splits by files reached (esbuild) then puts them
 * in a page's first load whenever a lazy chunk uses them; code that loads with the modal imports this.
 */
export * from "./constants";
export { fromHex, toHex } from "./crypto/hex";
export * from "./errors";
export * from "./keyManagement/queryTypes";
export type * from "./schemas";
export * from "./signerApi/routes";
