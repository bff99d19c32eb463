/** Signing with the user's wallet (`/v1/sign-payload`). */
export interface SignPayloadResponse {
  /** hex r‖s‖v, 65 bytes (v = 27/28 for EVM); Solana: the first 64 bytes are the ed25519 signature. */
  signature: `0x${string}`;
}
