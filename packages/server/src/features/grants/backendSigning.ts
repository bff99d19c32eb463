import type { SignRawPayloadResult } from "@latchkey/protocol";
import { toHex } from "viem";
import { signSecp256k1 } from "../../crypto/wallet";
import { payloadSigningRequest } from "../../keyManagement/policies/structuredPayloads";
import {
  parseUnsignedTransaction,
  serializeSigned,
  transactionHash,
  transactionSigningRequest,
} from "../../keyManagement/policies/unsignedTransaction";
import { signOne } from "../../keyManagement/signing";
import { defineBackendHandler } from "./backendRoute";
import { signUnderGrant } from "./signUnderGrant";

/** r‖s‖v with v 27/28, as EVM wallets answer. */
export const hexSignature = (sig: SignRawPayloadResult) =>
  `0x${sig.r}${sig.s}${(27 + Number.parseInt(sig.v, 16)).toString(16)}`;

/** A payload the service hashes itself (a message, typed data), signed under a grant. */
async function signPayload(
  ctx: Parameters<typeof signUnderGrant>[0],
  input: {
    serverKey: Parameters<typeof signUnderGrant>[1]["serverKey"];
    raw: string;
    body: { grantId: string; userId: string };
    payload: string;
    encoding: "PAYLOAD_ENCODING_EIP191_MESSAGE" | "PAYLOAD_ENCODING_EIP712";
  },
) {
  const params = {
    payload: input.payload,
    encoding: input.encoding,
    hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
  } as const;
  // An EVM address stands in for the account: what the policy reads does not depend on which.
  const request = payloadSigningRequest({ ...params, signWith: "0x" });
  const { signed, activityId, address } = await signUnderGrant(ctx, {
    serverKey: input.serverKey,
    grantId: input.body.grantId,
    userId: input.body.userId,
    raw: input.raw,
    activityType: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    intent: params,
    request,
    sign: (key) => signOne("CURVE_SECP256K1", key, params),
    result: (sig) => sig,
  });
  return { signature: hexSignature(signed), activityId, address };
}

/** `sign_message`: an EIP-191 message (text, or `{raw}` bytes), if the grant's `messages` allows. */
export const backendSignMessage = defineBackendHandler({
  name: "sign_message",
  run: (ctx, { serverKey, raw, body }) =>
    signPayload(ctx, {
      serverKey,
      raw,
      body,
      payload:
        typeof body.message === "string" ? toHex(new TextEncoder().encode(body.message)) : body.message.raw,
      encoding: "PAYLOAD_ENCODING_EIP191_MESSAGE",
    }),
});

/** `sign_typed_data`: EIP-712 typed data; a permit or a user operation is read as the calls it makes. */
export const backendSignTypedData = defineBackendHandler({
  name: "sign_typed_data",
  run: (ctx, { serverKey, raw, body }) =>
    signPayload(ctx, {
      serverKey,
      raw,
      body,
      payload: JSON.stringify(body.typedData),
      encoding: "PAYLOAD_ENCODING_EIP712",
    }),
});

/** `sign_transaction`: a serialized unsigned EVM transaction, answered signed. */
export const backendSignTransaction = defineBackendHandler({
  name: "sign_transaction",
  async run(ctx, { serverKey, raw, body }) {
    const tx = parseUnsignedTransaction(body.unsignedTransaction);
    const { signed, activityId, address } = await signUnderGrant(ctx, {
      serverKey,
      grantId: body.grantId,
      userId: body.userId,
      raw,
      activityType: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      intent: { unsignedTransaction: body.unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" },
      // The signer is the grant's: allowUnderGrant names it.
      request: transactionSigningRequest(tx, undefined),
      sign: (key) => serializeSigned(tx, signSecp256k1(transactionHash(tx), key)),
      result: (signedTransaction) => ({ signedTransaction }),
    });
    return { signedTransaction: signed, activityId, address };
  },
});
