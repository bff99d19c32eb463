import type { Signer } from "@latchkey/core";
import { parseEther, parseGwei, serializeTransaction } from "viem";
import { expect } from "vitest";

/**
 * Submits a 2 ETH transfer to `to` on chain 1, stamped by `user`'s session, which the console tests' shop
 * policy holds (above its 1 ETH rule): answers the held activity's id.
 */
export async function submitHeldTransfer(user: Signer, serviceUrl: string, to: string): Promise<string> {
  const state = user.getState().user as { orgId: string; address: string };
  const unsignedTransaction = serializeTransaction({
    type: "eip1559",
    chainId: 1,
    nonce: 0,
    to: to as `0x${string}`,
    value: parseEther("2"),
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
  });
  const text = JSON.stringify({
    type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
    timestampMs: String(Date.now()),
    organizationId: state.orgId,
    parameters: { signWith: state.address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" },
  });
  const { stampHeaderName, stampHeaderValue } = await user.client.keyHolder.stamp(text);
  const res = await fetch(`${serviceUrl}/public/v1/submit/sign_transaction`, {
    method: "POST",
    headers: { "content-type": "application/json", [stampHeaderName]: stampHeaderValue },
    body: text,
  });
  const { activity } = (await res.json()) as { activity: { id: string; status: string } };
  expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
  return activity.id;
}
