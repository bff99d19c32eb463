import { ErrorCode } from "@latchkey/protocol";
import { type Address, getAddress, type Hex } from "viem";
import { formatUserOperationRequest, type UserOperation } from "viem/account-abstraction";
import { ApiError, apiError } from "../../../errors";
import type { SigningRequest } from "../../../keyManagement/policies/evaluatePolicy";
import { payloadSigningRequest } from "../../../keyManagement/policies/structuredPayloads";
import { signOne } from "../../../keyManagement/signing";
import { smartAccountKindOf } from "../../../users/smartAccountKind";
import { defineBackendHandler } from "../backendRoute";
import { hexSignature } from "../backendSigning";
import { allowUnderGrant, signUnderGrant } from "../signUnderGrant";
import { authorizationFor } from "./authorization";
import { sendingChain } from "./chainClients";
import { inProcessPaymaster, sponsorshipError } from "./sponsor";
import { type UserAccountContract, userSmartAccount } from "./userAccount";

/** How long `waitForReceipt` waits for the operation's transaction. */
const RECEIPT_TIMEOUT_MS = 60_000;

/** Typed data as JSON: bigints as decimal strings (the service reads both). */
const toJson = (value: unknown) =>
  JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));

/** An error of the bundler or the chain, answered 400 USER_OPERATION_REJECTED with its short reason. */
function operationError(e: unknown): unknown {
  let x: unknown = e;
  while (x instanceof Error) {
    if (x instanceof ApiError) return x;
    const mapped = sponsorshipError(x);
    if (mapped !== x) return mapped;
    x = (x as { cause?: unknown }).cause;
  }
  const reason =
    (e as { details?: string }).details ?? (e as { shortMessage?: string }).shortMessage ?? "refused";
  return apiError(ErrorCode.USER_OPERATION_REJECTED, `The user operation was not sent: ${reason}`, {
    data: { reason },
  });
}

/**
 * `send_user_operation`: a user operation from the user's smart account (the one they got in the
 * browser: their EOA by EIP-7702, or their SimpleAccount), within a grant, in this order:
 *  1. the grant allows the calls (signUnderGrant.ts steps 1–3; a refusal is recorded), before anything is
 *     built, sponsored or counted;
 *  2. a 7702 account's first operation carries the EOA's authorization (authorization.ts);
 *  3. the bundler prepares it (nonce, gas), sponsored by the app's policy `policyId` when given (the
 *     service's own paymaster, charged to the user);
 *  4. the operation's typed data is signed under the grant (counted against its caps: one operation, the
 *     calls' value) and recorded as an activity of the grant;
 *  5. it is sent to the chain's bundler; with `waitForReceipt`, its transaction is waited for.
 */
export const backendSendUserOperation = defineBackendHandler({
  name: "send_user_operation",
  async run(ctx, { serverKey, raw, body }) {
    const chain = sendingChain(ctx, body.chainId);
    const calls = body.calls.map((c) => ({
      to: getAddress(c.to.toLowerCase()),
      value: BigInt(c.value ?? "0"),
      data: (c.data ?? "0x") as Hex,
    }));
    const base = {
      serverKey,
      grantId: body.grantId,
      userId: body.userId,
      raw,
      activityType: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    } as const;
    // 1.
    const callsRequest: SigningRequest = {
      kind: "userOperation",
      chainId: body.chainId,
      sender: "0x0000000000000000000000000000000000000000",
      calls: calls.map((c) => ({ to: c.to.toLowerCase() as Hex, data: c.data, value: c.value })),
    };
    const allowed = await allowUnderGrant(ctx, {
      ...base,
      intent: { chainId: body.chainId },
      request: callsRequest,
    });
    const recorded = await smartAccountKindOf(ctx, { userId: allowed.userId, proposed: "7702" });
    const contract: UserAccountContract =
      recorded.smartAccountKind === "7702"
        ? "Simple7702Account"
        : (recorded.smartAccountContract ?? "SimpleAccount");
    let activityId: string | undefined;
    const account = await userSmartAccount({
      client: chain.publicClient,
      chain: chain.settings,
      owner: allowed.address as Address,
      contract,
      // 4.
      async signTypedData(typedData) {
        const params = {
          payload: toJson(typedData),
          encoding: "PAYLOAD_ENCODING_EIP712",
          hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
        } as const;
        const signature = await signUnderGrant(ctx, {
          ...base,
          intent: params,
          request: payloadSigningRequest({ ...params, signWith: allowed.address }),
          sign: (key) => signOne("CURVE_SECP256K1", key, params),
          result: (sig) => sig,
        });
        activityId = signature.activityId;
        return hexSignature(signature.signed) as Hex;
      },
    });
    // 2.
    const authorization =
      contract === "Simple7702Account"
        ? await authorizationFor(ctx, { chain, allowed, appId: serverKey.appId, raw })
        : undefined;
    // 3.
    const app = await ctx.apps.byId(serverKey.appId);
    if (!app) throw apiError(ErrorCode.NOT_FOUND, "The app is gone");
    const sponsorship = body.policyId
      ? {
          paymaster: inProcessPaymaster(ctx, { app, userId: allowed.userId }),
          paymasterContext: { policyId: body.policyId },
        }
      : {};
    let prepared: UserOperation;
    try {
      prepared = (await chain.bundler.prepareUserOperation({
        account,
        calls,
        ...sponsorship,
        ...(authorization ? { authorization } : {}),
      })) as UserOperation;
    } catch (e) {
      throw operationError(e);
    }
    // 4., 5.
    const signature = await account.signUserOperation(prepared);
    let hash: Hex;
    try {
      hash = await chain.bundler.request(
        {
          method: "eth_sendUserOperation",
          params: [formatUserOperationRequest({ ...prepared, signature }), account.entryPoint.address],
        },
        { retryCount: 0 },
      );
    } catch (e) {
      throw operationError(e);
    }
    const answer = { userOperationHash: hash, sender: account.address, activityId: activityId as string };
    if (!body.waitForReceipt) return answer;
    try {
      const receipt = await chain.bundler.waitForUserOperationReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS });
      return { ...answer, transactionHash: receipt.receipt.transactionHash, success: receipt.success };
    } catch (e) {
      throw apiError(
        ErrorCode.CHAIN_UNAVAILABLE,
        "The operation was sent, but its receipt did not come in time",
        {
          data: {
            userOperationHash: hash,
            reason: (e as { shortMessage?: string }).shortMessage ?? "timeout",
          },
        },
      );
    }
  },
});
