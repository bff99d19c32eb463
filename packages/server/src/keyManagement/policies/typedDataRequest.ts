import type { Hex, TypedDataDefinition } from "viem";
import type { Approval, SigningRequest, TokenTransfer } from "./signingRequest";

/**
 * What a signing policy reads of EIP-712 typed data: an ERC-4337 user operation (the EntryPoint's call
 * to its `sender` with its `callData`, which callsOf.ts reads as the calls the account runs), a permit
 * (the approvals it grants: EIP-2612, DAI, EIP-4494, Permit2's allowance and signature-transfer forms)
 * or other typed data (its domain and primary type).
 *
 * Only the canonical type definitions are recognised: a contract checks a signature against its own
 * type hash, so typed data that renames or reorders a field signs nothing that contract accepts.
 * `signer` is the EVM account that signs, when known.
 */
export function typedDataRequest(typedData: TypedDataDefinition, signer?: string): SigningRequest {
  const types = typedData.types as Record<string, readonly { name: string; type: string }[]>;
  const message = typedData.message as Record<string, unknown>;
  const domain = (typedData.domain ?? {}) as Record<string, unknown>;
  const primaryType = typedData.primaryType as string;
  const chainId = safeNumber(domain.chainId);
  const verifyingContract =
    typeof domain.verifyingContract === "string" ? lower(domain.verifyingContract) : null;
  const fields = (name: string) => (types[name] ?? []).map((f) => `${f.type} ${f.name}`).join(",");
  const own = fields(primaryType);

  // EntryPoint v0.8 (and later) signs PackedUserOperation as EIP-712, whatever entry point the domain names.
  if (own === USER_OPERATION) {
    const sender = lower(message.sender as string);
    const callData = (message.callData as Hex).toLowerCase() as Hex;
    return {
      kind: "userOperation",
      chainId,
      sender,
      calls: [{ to: sender, data: callData, value: 0n }],
      ...(signer?.startsWith("0x") && signer.length === 42 ? { signer: lower(signer) } : {}),
    };
  }

  const approvals: Approval[] = [];
  const spender = typeof message.spender === "string" ? lower(message.spender) : null;
  if (primaryType === "Permit" && own === ERC2612_PERMIT && verifyingContract && spender)
    approvals.push({ token: verifyingContract, spender, amount: BigInt(message.value as string) });
  else if (primaryType === "Permit" && own === DAI_PERMIT && verifyingContract && spender)
    approvals.push({ token: verifyingContract, spender, amount: message.allowed ? MAX_UINT256 : 0n });
  else if (primaryType === "Permit" && own === ERC4494_PERMIT && verifyingContract && spender)
    // An NFT's permit: `approve(spender, tokenId)` has the same selector as ERC-20's.
    approvals.push({ token: verifyingContract, spender, amount: BigInt(message.tokenId as string) });
  else if (spender && fields("PermitDetails") === PERMIT2_DETAILS && PERMIT2_ALLOWANCE.test(own))
    // Permit2 AllowanceTransfer: PermitSingle, PermitBatch.
    for (const d of [message.details].flat() as Record<string, unknown>[])
      approvals.push({ token: lower(d.token as string), spender, amount: BigInt(d.amount as string) });
  else if (
    spender &&
    fields("TokenPermissions") === PERMIT2_TOKEN_PERMISSIONS &&
    /^TokenPermissions(\[\])? permitted,address spender,/.test(own)
  )
    // Permit2 SignatureTransfer: PermitTransferFrom, PermitBatchTransferFrom and their witness forms.
    for (const p of [message.permitted].flat() as Record<string, unknown>[])
      approvals.push({ token: lower(p.token as string), spender, amount: BigInt(p.amount as string) });

  // EIP-3009: the token moves on the signature alone (whoever submits it), as a transfer would.
  const transfers: TokenTransfer[] = [];
  if (
    (primaryType === "TransferWithAuthorization" || primaryType === "ReceiveWithAuthorization") &&
    own === EIP3009_AUTHORIZATION &&
    verifyingContract &&
    typeof message.to === "string"
  )
    transfers.push({
      token: verifyingContract,
      to: lower(message.to),
      amount: BigInt(message.value as string),
    });

  return {
    kind: "typedData",
    chainId,
    primaryType,
    verifyingContract,
    approvals,
    ...(transfers.length ? { transfers } : {}),
  };
}

const USER_OPERATION =
  "address sender,uint256 nonce,bytes initCode,bytes callData,bytes32 accountGasLimits," +
  "uint256 preVerificationGas,bytes32 gasFees,bytes paymasterAndData";
const ERC2612_PERMIT = "address owner,address spender,uint256 value,uint256 nonce,uint256 deadline";
const DAI_PERMIT = "address holder,address spender,uint256 nonce,uint256 expiry,bool allowed";
const ERC4494_PERMIT = "address spender,uint256 tokenId,uint256 nonce,uint256 deadline";
const PERMIT2_DETAILS = "address token,uint160 amount,uint48 expiration,uint48 nonce";
const PERMIT2_ALLOWANCE = /^PermitDetails(\[\])? details,address spender,uint256 sigDeadline$/;
const PERMIT2_TOKEN_PERMISSIONS = "address token,uint256 amount";
const EIP3009_AUTHORIZATION =
  "address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce";
const MAX_UINT256 = 2n ** 256n - 1n;

const lower = (address: string) => address.toLowerCase() as Hex;

function safeNumber(v: unknown): number | undefined {
  if (typeof v !== "number" && typeof v !== "string" && typeof v !== "bigint") return undefined;
  try {
    const n = BigInt(v);
    return n >= 0n && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
  } catch {
    return undefined;
  }
}
