import type { Call } from "./signingRequest";

/**
 * A call's decoded arguments, as a rule's `args` reads them (policySchema.ts RuleArgs): where it sends
 * value or tokens, how much of what, and whom it approves. Read from the call data as the token standards
 * write it (the decoder's token calls), synchronously, so the policy stays a pure function. Addresses are
 * lower-case; a token amount is in its smallest unit, native value in wei.
 */
export interface CallArgs {
  recipients: `0x${string}`[];
  amounts: { token: "native" | `0x${string}`; amount: bigint }[];
  spenders: `0x${string}`[];
}

const TRANSFER = "0xa9059cbb"; // transfer(address,uint256)
const TRANSFER_FROM = "0x23b872dd"; // transferFrom(address,address,uint256)
const SAFE_TRANSFER_FROM = "0x42842e0e"; // safeTransferFrom(address,address,uint256)
const SAFE_TRANSFER_FROM_DATA = "0xb88d4fde"; // safeTransferFrom(address,address,uint256,bytes)
const ERC1155_SAFE_TRANSFER = "0xf242432a"; // safeTransferFrom(address,address,uint256,uint256,bytes)
const ERC1155_BATCH_TRANSFER = "0x2eb2c2d6"; // safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)
const APPROVE = "0x095ea7b3"; // approve(address,uint256)
const INCREASE_ALLOWANCE = "0x39509351"; // increaseAllowance(address,uint256)
const SET_APPROVAL_FOR_ALL = "0xa22cb465"; // setApprovalForAll(address,bool)

/**
 * The n-th 32-byte word of the arguments as an address (its low 20 bytes, as the token reads it: ABI
 * coder v1 drops the high bytes, v2 reverts when they are set), or null when the data has no such word.
 */
function address(data: string, n: number): `0x${string}` | null {
  const word = data.slice(10 + n * 64, 10 + (n + 1) * 64);
  return word.length === 64 ? `0x${word.slice(24)}` : null;
}
function uint(data: string, n: number): bigint | null {
  const word = data.slice(10 + n * 64, 10 + (n + 1) * 64);
  return word.length === 64 ? BigInt(`0x${word}`) : null;
}

export function argsOf(call: Call): CallArgs {
  const out: CallArgs = { recipients: [], amounts: [], spenders: [] };
  const data = call.data.toLowerCase();
  if (call.value > 0n && call.to) {
    out.recipients.push(call.to.toLowerCase() as `0x${string}`);
    out.amounts.push({ token: "native", amount: call.value });
  }
  if (!call.to || data.length < 10) return out;
  const token = call.to.toLowerCase() as `0x${string}`;
  const selector = data.slice(0, 10);
  const push = (to: `0x${string}` | null, amount: bigint | null) => {
    if (to) out.recipients.push(to);
    if (amount !== null) out.amounts.push({ token, amount });
  };
  switch (selector) {
    case TRANSFER:
      push(address(data, 0), uint(data, 1));
      break;
    case TRANSFER_FROM:
      // ERC-20 (an amount) or ERC-721 (a token id): the same selector; its third word read as an amount.
      push(address(data, 1), uint(data, 2));
      break;
    case SAFE_TRANSFER_FROM:
    case SAFE_TRANSFER_FROM_DATA:
    case ERC1155_BATCH_TRANSFER:
      push(address(data, 1), null);
      break;
    case ERC1155_SAFE_TRANSFER:
      push(address(data, 1), uint(data, 3));
      break;
    case APPROVE:
    case INCREASE_ALLOWANCE:
    case SET_APPROVAL_FOR_ALL: {
      const spender = address(data, 0);
      if (spender) out.spenders.push(spender);
      break;
    }
  }
  return out;
}
