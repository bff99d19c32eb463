import { type Address, type Hex, isAddress } from "viem";
import { reasonOf } from "./decodeAuthorization";
import { tokenReads, tokenRef } from "./decodeCall";
import { decodeUserOperation } from "./decodeUserOperation";
import { toAddress, toBigInt, toSafeNumber, UNLIMITED_FROM } from "./format";
import type { Action, Decoded, DecodeOptions, TypedDataField } from "./types";
import { actionWarnings } from "./warnings";

/** EIP-712 typed data as `eth_signTypedData_v4` carries it (viem's `TypedDataDefinition`). */
export interface DecodeTypedDataParameters {
  domain?: Record<string, unknown>;
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
}

export type DecodeTypedDataReturnType = Extract<
  Decoded,
  { kind: "typedData" | "userOperation" | "unreadable" }
>;

// The canonical type strings, as packages/server/src/keyManagement/policies/typedDataRequest.ts reads
// them: a contract checks a signature against its own type hash, so typed data that renames or reorders
// a field signs nothing that contract accepts, and is shown as plain typed data.
const USER_OPERATION =
  "address sender,uint256 nonce,bytes initCode,bytes callData,bytes32 accountGasLimits," +
  "uint256 preVerificationGas,bytes32 gasFees,bytes paymasterAndData";
const ERC2612_PERMIT = "address owner,address spender,uint256 value,uint256 nonce,uint256 deadline";
const DAI_PERMIT = "address holder,address spender,uint256 nonce,uint256 expiry,bool allowed";
const ERC4494_PERMIT = "address spender,uint256 tokenId,uint256 nonce,uint256 deadline";
const PERMIT2_DETAILS = "address token,uint160 amount,uint48 expiration,uint48 nonce";
const PERMIT2_ALLOWANCE = /^PermitDetails(\[\])? details,address spender,uint256 sigDeadline$/;
const PERMIT2_TOKEN_PERMISSIONS = "address token,uint256 amount";
const PERMIT2_TRANSFER = /^TokenPermissions(\[\])? permitted,address spender,/;
const MAX_UINT256 = 2n ** 256n - 1n;
/** Permit2 amounts are uint160: from 2^159 up is unlimited, as 2^255 is for uint256. */
const PERMIT2_UNLIMITED_FROM = 2n ** 159n;
const MAX_FIELDS = 12;

/**
 * What EIP-712 typed data signs: a permit (EIP-2612, DAI, EIP-4494, Permit2's PermitSingle,
 * PermitBatch, PermitTransferFrom and PermitBatchTransferFrom with or without a witness) as the
 * approvals it grants; an ERC-4337 PackedUserOperation (EntryPoint v0.8) as the user operation it is;
 * anything else as its domain, primary type and top-level fields. Only canonical type strings count as a
 * permit. Never throws.
 *
 * @example
 * await decodeTypedData({ domain: { name: "USD Coin", chainId: 1, verifyingContract: USDC }, types, primaryType: "Permit", message: { owner, spender, value: maxUint256, nonce: 0n, deadline } });
 * // → { kind: "typedData", actions: [{ kind: "permit", standard: "erc2612", unlimited: true, … }], warnings: [{ kind: "unlimitedApproval", … }] }
 */
export async function decodeTypedData(
  typedData: DecodeTypedDataParameters,
  options: DecodeOptions = {},
): Promise<DecodeTypedDataReturnType> {
  try {
    const { types, primaryType, message } = typedData;
    if (!isRecord(types) || typeof primaryType !== "string" || !isRecord(message))
      throw new Error("types, primaryType and message are required");
    const domain = typedData.domain === undefined ? {} : typedData.domain;
    if (!isRecord(domain)) throw new Error("domain is not an object");
    const fields = (name: string) => {
      const list = types[name];
      if (list === undefined) return "";
      if (!Array.isArray(list)) throw new Error(`types.${name} is not a list`);
      return list.map((f: { name: unknown; type: unknown }) => `${f.type} ${f.name}`).join(",");
    };
    const own = fields(primaryType);
    const chainId = domain.chainId === undefined ? undefined : toSafeNumber(domain.chainId);
    if (domain.chainId !== undefined && chainId === undefined)
      throw new Error("domain.chainId is not a safe integer");

    if (own === USER_OPERATION)
      return await decodeUserOperation(
        { chainId: chainId ?? 0, sender: message.sender as string, callData: message.callData as Hex },
        options,
      );

    const verifyingContract =
      domain.verifyingContract === undefined ? undefined : toAddress(domain.verifyingContract);
    const readToken = tokenReads(chainId ?? 0, options);
    const actions: Action[] = [];
    const permit = async (
      standard: Extract<Action, { kind: "permit" }>["standard"],
      token: Address,
      spender: Address,
      amount: bigint,
      unlimited: boolean,
      deadline: bigint | undefined,
    ) => {
      const a: Action = {
        kind: "permit",
        standard,
        token: tokenRef(token, await readToken(token)),
        spender,
        amount,
        unlimited,
      };
      if (deadline !== undefined) a.deadline = deadline;
      actions.push(a);
    };
    const spender = message.spender === undefined ? undefined : toAddress(message.spender);

    if (primaryType === "Permit" && own === ERC2612_PERMIT && verifyingContract && spender) {
      const value = toBigInt(message.value);
      await permit(
        "erc2612",
        verifyingContract,
        spender,
        value,
        value >= UNLIMITED_FROM,
        toBigInt(message.deadline),
      );
    } else if (primaryType === "Permit" && own === DAI_PERMIT && verifyingContract && spender) {
      const allowed = message.allowed === true;
      const expiry = toBigInt(message.expiry);
      // DAI's permit allows all or nothing; expiry 0 is none.
      await permit(
        "dai",
        verifyingContract,
        spender,
        allowed ? MAX_UINT256 : 0n,
        allowed,
        expiry || undefined,
      );
    } else if (primaryType === "Permit" && own === ERC4494_PERMIT && verifyingContract && spender) {
      await permit(
        "erc4494",
        verifyingContract,
        spender,
        toBigInt(message.tokenId),
        false,
        toBigInt(message.deadline),
      );
    } else if (spender && fields("PermitDetails") === PERMIT2_DETAILS && PERMIT2_ALLOWANCE.test(own)) {
      for (const d of list(message.details)) {
        const amount = toBigInt(d.amount);
        const expiration = toBigInt(d.expiration);
        await permit(
          "permit2",
          toAddress(d.token),
          spender,
          amount,
          amount >= PERMIT2_UNLIMITED_FROM,
          expiration || undefined,
        );
      }
    } else if (
      spender &&
      fields("TokenPermissions") === PERMIT2_TOKEN_PERMISSIONS &&
      PERMIT2_TRANSFER.test(own)
    ) {
      const deadline = toBigInt(message.deadline);
      for (const p of list(message.permitted)) {
        const amount = toBigInt(p.amount);
        await permit(
          "permit2Transfer",
          toAddress(p.token),
          spender,
          amount,
          amount >= UNLIMITED_FROM,
          deadline,
        );
      }
    }

    const decoded: Extract<Decoded, { kind: "typedData" }> = {
      kind: "typedData",
      primaryType,
      domain: {},
      actions,
      fields: actions.length ? [] : topFields(types[primaryType] ?? [], message),
      warnings: actionWarnings(actions, options),
    };
    if (chainId !== undefined) decoded.chainId = chainId;
    if (typeof domain.name === "string") decoded.domain.name = domain.name;
    if (typeof domain.version === "string") decoded.domain.version = domain.version;
    if (verifyingContract) decoded.domain.verifyingContract = verifyingContract;
    return decoded;
  } catch (e) {
    return { kind: "unreadable", reason: "malformedTypedData", detail: reasonOf(e), warnings: [] };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** One struct or a list of them (PermitSingle's `details` or PermitBatch's). */
function list(value: unknown): Record<string, unknown>[] {
  const items = Array.isArray(value) ? value : [value];
  if (!items.every(isRecord)) throw new Error("permit details are not objects");
  return items;
}

/** The message's top-level fields as text: what a person reads of typed data nobody here knows. */
function topFields(
  definition: readonly { name: string; type: string }[],
  message: Record<string, unknown>,
): TypedDataField[] {
  if (!Array.isArray(definition)) return [];
  return definition.slice(0, MAX_FIELDS).map((f) => ({
    name: String(f.name),
    type: String(f.type),
    value: fieldText(String(f.type), message[String(f.name)]),
  }));
}

function fieldText(type: string, value: unknown): string {
  if (type.endsWith("]")) return Array.isArray(value) ? `[${value.length} items]` : "[…]";
  if (type === "address" && typeof value === "string" && isAddress(value, { strict: false }))
    return toAddress(value);
  if (typeof value === "bigint" || typeof value === "number" || typeof value === "boolean")
    return String(value);
  if (typeof value === "string") return value.length > 200 ? `${value.slice(0, 199)}…` : value;
  if (isRecord(value)) return "{…}";
  return "";
}
