import type { Hex } from "viem";
import type { UserOperationCallInput, UserOperationInput } from "../types/smartAccounts";

/** A user operation's calls as viem takes them, or the account's call data as it is. */
export type UserOperationRequest =
  | { calls: { to: Hex; data: Hex; value: bigint }[]; callData?: undefined }
  | { callData: Hex; calls?: undefined };

const toCall = (c: UserOperationCallInput) => ({ to: c.target, data: c.data ?? "0x", value: c.value ?? 0n });

/** `uo` (spec §3): one call, a batch (one atomic operation), or hex call data for the account. */
export function toUserOperationRequest(uo: UserOperationInput): UserOperationRequest {
  if (typeof uo === "string") return { callData: uo as Hex };
  if (Array.isArray(uo)) return { calls: (uo as readonly UserOperationCallInput[]).map(toCall) };
  return { calls: [toCall(uo as UserOperationCallInput)] };
}
