import { createHash } from "node:crypto";
import { ErrorCode } from "@latchkey/protocol";
import { type Address, concat, type Hex, hexToBytes, type SignedAuthorization } from "viem";
import { hashAuthorization } from "viem/utils";
import { signSecp256k1 } from "../../../crypto/wallet";
import { apiError } from "../../../errors";
import { evaluatePolicy } from "../../../keyManagement/policies/evaluatePolicy";
import { withSigningKey } from "../../../keyManagement/signing";
import { SIMPLE_7702_ACCOUNT_V08 } from "../../sponsorship/evm/config";
import { grantShare } from "../grantStore";
import type { AllowedSignature, GrantContext } from "../signUnderGrant";
import type { SendingChain } from "./chainClients";

/**
 * The EIP-7702 authorization a 7702 account's operation carries while the user's EOA does not delegate
 * to Simple7702Account yet (its first operation), signed with the user's key for the EOA's next nonce;
 * none once its code is 0xef0100 ‖ Simple7702Account. The app's signing policy must allow the delegate
 * (`authorizationDelegates`). It is recorded as its own activity of the grant, audited `grant.used`, and
 * counted as no operation: it is part of sending the operation the grant allows.
 */
export async function authorizationFor(
  ctx: GrantContext,
  params: { chain: SendingChain; allowed: AllowedSignature; appId: string; raw: string },
): Promise<SignedAuthorization | undefined> {
  const { chain, allowed } = params;
  const address = allowed.address as Address;
  const delegate = SIMPLE_7702_ACCOUNT_V08 as Address;
  const code = await chain.publicClient.getCode({ address });
  if (code?.toLowerCase() === concat(["0xef0100", delegate]).toLowerCase()) return undefined;
  const chainId = chain.settings.chainId;
  const decision = evaluatePolicy(await ctx.apps.signingPolicyOf(params.appId), {
    kind: "authorization",
    chainId,
    delegate: delegate.toLowerCase() as Hex,
  });
  if (decision.effect !== "allow") throw apiError(ErrorCode.POLICY_DENIED, decision.message);
  const nonce = await chain.publicClient.getTransactionCount({ address, blockTag: "pending" });
  const digest = hexToBytes(hashAuthorization({ chainId, address: delegate, nonce }));
  const sig = await withSigningKey(
    ctx,
    { orgId: allowed.orgId, signWith: allowed.address, share: grantShare(ctx, allowed.grantId) },
    (_curve, key) => signSecp256k1(digest, key),
  );
  const now = ctx.now();
  const payload = JSON.stringify({ chainId, address: delegate, nonce });
  const row = {
    ...allowed.row,
    id: ctx.random.uuid(),
    fingerprint: createHash("sha256").update(`${params.raw}\n7702-authorization`).digest("hex"),
    intent: JSON.stringify({
      signRawPayloadIntentV2: {
        signWith: allowed.address,
        payload,
        encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
        grantId: allowed.grantId,
      },
    }),
    result: JSON.stringify({
      signRawPayloadResult: { r: sig.r, s: sig.s, v: sig.v.toString(16).padStart(2, "0") },
    }),
    created_at: now,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto("activities").values(row).execute();
    await ctx.audit(
      "grant.used",
      {
        appId: params.appId,
        userId: allowed.userId,
        details: { ...allowed.details, activityId: row.id, kind: "authorization", delegate, value: "0" },
      },
      trx,
    );
  });
  return { address: delegate, chainId, nonce, r: `0x${sig.r}`, s: `0x${sig.s}`, yParity: sig.v };
}
