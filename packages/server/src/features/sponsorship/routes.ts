import { ErrorCode, RpcErrorCode, SOLANA_FEE_PAYER_METHOD, SponsorshipErrorCode } from "@latchkey/protocol";
import { ApiError } from "../../errors";
import { appOf } from "../../http/plugins/appApiKey";
import { defineFeature } from "../defineFeature";
import { getPaymasterData } from "./evm/getPaymasterData";
import { getPaymasterStubData } from "./evm/getPaymasterStubData";
import { answerJsonRpc, errorResponse, rpcError } from "./jsonRpc";
import { rpcCallerOf } from "./rpcCaller";
import { requestFeePayer } from "./solana/requestFeePayer";

/**
 * `POST /rpc/v1`: the service's JSON-RPC 2.0 endpoint (one call or a batch), authenticated like the signer
 * API by the app's `Authorization: Bearer <API key or app JWT>`, and by the user's `X-Stamp` (their session
 * key over the exact body) wherever an operation is charged to a user's daily limits (rpcCaller.ts). It
 * serves, under the app's sponsorship policies:
 * - the ERC-7677 paymaster methods `pm_getPaymasterStubData` and `pm_getPaymasterData` for EntryPoint v0.8
 *   user operations (`context.policyId`, a policy of `sponsorship.policies`);
 * - `latchkey_requestFeePayer` (`SOLANA_FEE_PAYER_METHOD`), params `[{policyId, serializedTransaction}]`:
 *   the service's Solana fee payer pays for a base64 wire transaction, result `{serializedTransaction}`
 *   with the fee payer set and signed (a policy of `sponsorship.solanaPolicies`; solana/requestFeePayer.ts).
 *
 * Answers: HTTP 200 with a JSON-RPC result or error for anything the body says (bad JSON -32700, not a
 * request -32600, unknown method -32601, bad params -32602, node or fee payer unavailable -32002, policy
 * -32003, daily limit -32005; the reason in `error.data.code`, a `SponsorshipErrorCode`), 204 when the
 * body held only notifications; a missing or unknown key, a refused origin, a body too large or not JSON
 * keep the signer API's statuses (401, 403, 413, 415), as does a stamp that does not verify.
 */
export const sponsorshipFeature = defineFeature({
  name: "sponsorship",
  register(app, ctx) {
    app.register(async (rpc) => {
      // The body parser's refusals become JSON-RPC errors here; the others go to the service's handler.
      rpc.setErrorHandler((err, _req, reply) => {
        if (err instanceof ApiError && err.code === ErrorCode.INVALID_JSON)
          return reply
            .code(200)
            .send(
              errorResponse(
                null,
                rpcError(
                  RpcErrorCode.PARSE_ERROR,
                  SponsorshipErrorCode.INVALID_JSON,
                  "Parse error: the body is not JSON",
                ),
              ),
            );
        if (err instanceof ApiError && err.code === ErrorCode.INVALID_CHARACTERS)
          return reply
            .code(200)
            .send(
              errorResponse(
                null,
                rpcError(RpcErrorCode.INVALID_REQUEST, SponsorshipErrorCode.INVALID_REQUEST, err.message),
              ),
            );
        throw err;
      });
      rpc.post("/rpc/v1", async (req, reply) => {
        const client = appOf(req);
        const caller = await rpcCallerOf(ctx, { app: client, body: req.rawBody ?? "", headers: req.headers });
        const asked = { app: client, caller };
        const answer = await answerJsonRpc(
          req.body,
          {
            pm_getPaymasterStubData: (rpcParams) => getPaymasterStubData(ctx, { ...asked, rpcParams }),
            pm_getPaymasterData: (rpcParams) => getPaymasterData(ctx, { ...asked, rpcParams }),
            [SOLANA_FEE_PAYER_METHOD]: (rpcParams) => requestFeePayer(ctx, { ...asked, rpcParams }),
          },
          (err) => req.log.error({ err }, "JSON-RPC call failed"),
        );
        if (answer === undefined) return reply.code(204).send();
        return answer;
      });
    });
  },
});
