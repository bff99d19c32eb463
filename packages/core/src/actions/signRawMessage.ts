import { fromHex, signerRoutes, toHex } from "@latchkey/protocol/wire";
import type { Hex } from "viem";
import { type SignerApiError, SignerError } from "../errors";
import { requireSigningUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

/** What `signRawMessage` takes. */
export interface SignRawMessageParameters {
  /** ETHEREUM: a 32-byte digest; SOLANA: the message bytes. Hex (0x optional) or bytes. */
  message: Hex | string | Uint8Array;
  mode?: "ETHEREUM" | "SOLANA";
}
/** Hex r‖s‖v, 65 bytes; v is 27/28 for Ethereum and 0 for Solana (the first 64 bytes are ed25519). */
export type SignRawMessageReturnType = Hex;
/** The errors `signRawMessage` may throw (discriminate on `name` and `code`). */
export type SignRawMessageErrorType = SignerError<"NOT_AUTHENTICATED" | "NO_SOLANA_ADDRESS"> | SignerApiError;

/**
 * Signs raw bytes with the user's wallet, without hashing: an Ethereum digest with the EVM key, or a
 * Solana message with the ed25519 key.
 *
 * @example
 * const signature = await signRawMessage(signer, { message: keccak256(data) });
 */
export async function signRawMessage(
  signer: SignerBase,
  { message, mode = "ETHEREUM" }: SignRawMessageParameters,
): Promise<SignRawMessageReturnType> {
  const user = await requireSigningUser(signer);
  const signWith = mode === "SOLANA" ? user.solanaAddress : user.address;
  if (!signWith) throw new SignerError("NO_SOLANA_ADDRESS");
  const bytes = typeof message === "string" ? fromHex(message) : message;
  const { signature } = await signer.client.callStamped(signerRoutes.signPayload, {
    organizationId: user.orgId,
    parameters: {
      signWith,
      payload: toHex(bytes),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: mode === "SOLANA" ? "HASH_FUNCTION_NOT_APPLICABLE" : "HASH_FUNCTION_NO_OP",
    },
  });
  return signature;
}
