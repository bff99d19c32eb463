import { ErrorCode } from "@latchkey/protocol";
import { signSecp256k1 } from "../../crypto/wallet";
import { apiError } from "../../errors";
import { defineActivity } from "../defineActivity";
import {
  parseUnsignedTransaction,
  serializeSigned,
  transactionHash,
  transactionSigningRequest,
} from "../policies/unsignedTransaction";
import { withSigningKey } from "../signing";

/**
 * `sign_transaction`: an EVM transaction, read by the service so that the app's signing policy sees its
 * chain, target, selector and value (through the signer's own accounts: callsOf.ts); answered signed (`signedTransaction`), or REJECTED, or held in
 * CONSENSUS_NEEDED until an app admin decides.
 */
export const signTransaction = defineActivity({
  type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  signingRequest: ({ params }) =>
    transactionSigningRequest(parseUnsignedTransaction(params.unsignedTransaction), params.signWith),
  pure: (ctx, { caller, params, share }) => {
    const tx = parseUnsignedTransaction(params.unsignedTransaction);
    return withSigningKey(
      ctx,
      { orgId: caller.user.orgId, signWith: params.signWith, share },
      (curve, key) => {
        if (curve !== "CURVE_SECP256K1") {
          throw apiError(
            ErrorCode.INVALID_REQUEST,
            "signWith must be an EVM account to sign an EVM transaction",
          );
        }
        return { signedTransaction: serializeSigned(tx, signSecp256k1(transactionHash(tx), key)) };
      },
    );
  },
});
