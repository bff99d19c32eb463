import { type Hex, hashMessage, hashTypedData, isHex, type TypedDataDefinition } from "viem";

/**
 * A LatchkeySimpleAccount (ERC-4337) signs a message or typed data as its owner's signature of
 * `LatchkeySimpleAccountMessage(bytes32 hash)` under the account's domain: the owner — and so the service,
 * and the user reviewing it — sees only the hash. The client sends what the hash stands for beside it
 * (`latchkeyOriginal` in the typed data's JSON, outside what is hashed): an EIP-191 message (`{kind:
 * "message", message: hex}`) or typed data (`{kind: "typedData", typedData}`). It is read only when it
 * hashes to exactly that hash, so what is shown is what the signature is for; anything else is ignored.
 */
export const ACCOUNT_MESSAGE_TYPE = "LatchkeySimpleAccountMessage";

export type AccountOriginal =
  | { kind: "message"; raw: Hex }
  | { kind: "typedData"; typedData: TypedDataDefinition };

export function verifiedAccountOriginal(payload: string, hash: unknown): AccountOriginal | null {
  if (typeof hash !== "string" || !isHex(hash) || hash.length !== 66) return null;
  let original: unknown;
  try {
    original = (JSON.parse(payload) as { latchkeyOriginal?: unknown }).latchkeyOriginal;
  } catch {
    return null;
  }
  if (!original || typeof original !== "object") return null;
  const { kind, message, typedData } = original as { kind?: unknown; message?: unknown; typedData?: unknown };
  try {
    if (kind === "message" && typeof message === "string" && isHex(message)) {
      return hashMessage({ raw: message }).toLowerCase() === hash.toLowerCase()
        ? { kind, raw: message }
        : null;
    }
    if (kind === "typedData" && typedData && typeof typedData === "object") {
      const definition = typedData as TypedDataDefinition;
      return hashTypedData(definition).toLowerCase() === hash.toLowerCase()
        ? { kind, typedData: definition }
        : null;
    }
  } catch {
    return null;
  }
  return null;
}
