import { type Address, concat, encodePacked, type Hex, parseAbi } from "viem";
import { toPackedUserOperation } from "viem/account-abstraction";
import type { ServiceContext } from "../../../context";
import type { SponsoringChain } from "./checkPolicy";
import type { UserOperationParams } from "./parseParams";

/**
 * Pimlico's SingletonPaymasterV8 in verifying mode (the layout of `@pimlico/mock-paymaster`'s
 * `getSignedPaymasterData`): paymasterData = mode byte ‖ validUntil (uint48) ‖ validAfter (uint48) ‖
 * signature, where the mode byte is `mode << 1 | allowAllBundlers` (verifying mode 0, any bundler: 0x01)
 * and the signature is an EIP-191 signature of the paymaster's `getHash(mode, packedUserOp)`, computed
 * over the operation with paymasterData = the 13 bytes before the signature.
 */
export const VERIFYING_MODE = 0;
const MODE_AND_ALLOW_ALL_BUNDLERS = (VERIFYING_MODE << 1) | 1;

/** How long a signature is good for: the operation must be included within this many seconds. */
export const VALID_FOR_SECONDS = 600;

/** Gas the paymaster's validation takes at most (a hash, an ecrecover, a signer lookup). */
export const PAYMASTER_VERIFICATION_GAS_LIMIT = 50_000n;
/** The verifying mode leaves no context, so the EntryPoint never calls postOp. */
export const PAYMASTER_POST_OP_GAS_LIMIT = 1n;

/** A signature of the right length for gas estimation (it does not verify). */
const DUMMY_SIGNATURE: Hex =
  "0xcd91f19f0f19ce862d7bec7b7d9b95457145afc6f639c28fd0360f488937bfa41e6eedcd3a46054fd95fcd0e3ef6b0bc0a615c4d975eef55c8a3517257904d5b1c";

export const paymasterHashAbi = parseAbi([
  "struct PackedUserOperation { address sender; uint256 nonce; bytes initCode; bytes callData; bytes32 accountGasLimits; uint256 preVerificationGas; bytes32 gasFees; bytes paymasterAndData; bytes signature; }",
  "function getHash(uint8 _mode, PackedUserOperation _userOp) view returns (bytes32)",
]);

function header(validUntil: number, validAfter: number): Hex {
  return encodePacked(["uint8", "uint48", "uint48"], [MODE_AND_ALLOW_ALL_BUNDLERS, validUntil, validAfter]);
}

/** The stub for gas estimation: the same length as the real thing. */
export function stubPaymasterData(): Hex {
  return concat([header(0, 0), DUMMY_SIGNATURE]);
}

/**
 * Signs the operation for the chain's paymaster with the service's paymaster key. The hash is the
 * paymaster's own `getHash` (read from the chain), so it is exactly what the contract verifies.
 */
export async function signedPaymasterData(
  ctx: Pick<ServiceContext, "serviceKeys">,
  params: {
    chain: SponsoringChain;
    userOperation: UserOperationParams;
    paymasterVerificationGasLimit: bigint;
    paymasterPostOpGasLimit: bigint;
    validUntil: number;
    validAfter?: number;
  },
): Promise<{ paymaster: Address; paymasterData: Hex }> {
  const { chain, userOperation: op } = params;
  const head = header(params.validUntil, params.validAfter ?? 0);
  const packed = toPackedUserOperation({
    sender: op.sender,
    nonce: op.nonce,
    ...(op.factory ? { factory: op.factory, factoryData: op.factoryData ?? "0x" } : {}),
    callData: op.callData,
    callGasLimit: op.callGasLimit,
    verificationGasLimit: op.verificationGasLimit,
    preVerificationGas: op.preVerificationGas,
    maxFeePerGas: op.maxFeePerGas,
    maxPriorityFeePerGas: op.maxPriorityFeePerGas,
    paymaster: chain.paymaster,
    paymasterVerificationGasLimit: params.paymasterVerificationGasLimit,
    paymasterPostOpGasLimit: params.paymasterPostOpGasLimit,
    paymasterData: head,
    signature: op.signature,
  });
  const hash = await chain.client.readContract({
    address: chain.paymaster,
    abi: paymasterHashAbi,
    functionName: "getHash",
    args: [VERIFYING_MODE, packed],
  });
  const signature = await ctx.serviceKeys.signMessageHash("paymaster", hash);
  return { paymaster: chain.paymaster, paymasterData: concat([head, signature]) };
}
