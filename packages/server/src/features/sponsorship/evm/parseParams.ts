import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import { type Address, getAddress, type Hex } from "viem";
import { z } from "zod";
import { rpcError } from "../jsonRpc";

/** A user operation of EntryPoint v0.7/v0.8 as ERC-7677 carries it (viem's `formatUserOperationRequest`). */
export interface UserOperationParams {
  sender: Address;
  nonce: bigint;
  factory: Address | undefined;
  factoryData: Hex | undefined;
  callData: Hex;
  /** Missing gas and fee fields are 0 in a stub request, and required in a signing request. */
  callGasLimit: bigint;
  verificationGasLimit: bigint;
  preVerificationGas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** The paymaster's gas limits when the client already has them (from the stub, maybe re-estimated). */
  paymasterVerificationGasLimit: bigint | undefined;
  paymasterPostOpGasLimit: bigint | undefined;
  signature: Hex;
  /**
   * The EIP-7702 authorization the operation carries (its first, which delegates the sender's EOA): the
   * delegate and the chain it is for. Its signature is the bundler's and the chain's to check: a false one
   * leaves the sender without code, and the operation is never included.
   */
  eip7702Auth?: { address: Address; chainId: number } | undefined;
}

export interface PaymasterParams {
  userOperation: UserOperationParams;
  entryPoint: Address;
  chainId: number;
  policyId: string;
  /** The CREATE2 salt of an already deployed account (`createAccount(owner, salt)`), 0 unless given. */
  accountSalt: bigint;
}

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "must be an address (0x and 40 hex digits)")
  .transform((a) => getAddress(a.toLowerCase()));

const data = z
  .string()
  .regex(/^0x(?:[0-9a-fA-F]{2})*$/, "must be hex bytes (0x and an even number of hex digits)")
  .transform((d) => d.toLowerCase() as Hex);

const quantity = (bits: 8 | 48 | 64 | 128 | 256) =>
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,64}$/, "must be a hex quantity such as 0x1a")
    .transform((q) => BigInt(q))
    .refine((n) => n < 1n << BigInt(bits), `must fit in ${bits} bits`);

const V06_FIELD = "is an EntryPoint v0.6 field: only v0.8 user operations are sponsored";

const userOperationSchema = z.object({
  sender: address,
  nonce: quantity(256),
  factory: address.nullish(),
  factoryData: data.nullish(),
  callData: data,
  callGasLimit: quantity(128).optional(),
  verificationGasLimit: quantity(128).optional(),
  preVerificationGas: quantity(128).optional(),
  maxFeePerGas: quantity(128).optional(),
  maxPriorityFeePerGas: quantity(128).optional(),
  paymaster: address.nullish(),
  paymasterVerificationGasLimit: quantity(128).nullish(),
  paymasterPostOpGasLimit: quantity(128).nullish(),
  paymasterData: data.nullish(),
  signature: data.optional(),
  // EntryPoint v0.6 fields: not a user operation this paymaster serves.
  initCode: z.never({ error: V06_FIELD }).optional(),
  paymasterAndData: z.never({ error: V06_FIELD }).optional(),
  eip7702Auth: z
    .object({
      address,
      chainId: quantity(48),
      nonce: quantity(64),
      r: data.optional(),
      s: data.optional(),
      yParity: quantity(8).optional(),
    })
    .nullish(),
});

const contextSchema = z.object(
  {
    policyId: z.string({ error: "is required: the sponsorship policy to use" }).min(1).max(64),
    accountSalt: z
      .union([quantity(256), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)])
      .optional(),
  },
  { error: "must be an object such as { policyId }" },
);

const GAS_FIELDS = [
  "callGasLimit",
  "verificationGasLimit",
  "preVerificationGas",
  "maxFeePerGas",
  "maxPriorityFeePerGas",
] as const;

/**
 * The positional params of `pm_getPaymasterStubData` and `pm_getPaymasterData`:
 * `[userOperation, entryPoint, chainId (hex), context ({ policyId })]`. `complete` (the signing call)
 * requires every gas and fee field, which the signature covers.
 */
export function parsePaymasterParams(params: unknown, options: { complete: boolean }): PaymasterParams {
  if (!Array.isArray(params) || params.length < 3 || params.length > 4)
    throw invalid("params must be [userOperation, entryPoint, chainId, context]");
  const [rawOp, rawEntryPoint, rawChainId, rawContext] = params;
  const op = userOperationSchema.safeParse(rawOp);
  if (!op.success) throw invalid(describe("userOperation", op.error));
  const entryPoint = address.safeParse(rawEntryPoint);
  if (!entryPoint.success) throw invalid(describe("entryPoint", entryPoint.error));
  const chainId = quantity(48).safeParse(rawChainId);
  if (!chainId.success) throw invalid(describe("chainId", chainId.error));
  if (rawContext === undefined || rawContext === null)
    throw invalid("context.policyId is required: the sponsorship policy to use");
  const context = contextSchema.safeParse(rawContext);
  if (!context.success) throw invalid(describe("context", context.error));
  const u = op.data;
  if (Boolean(u.factory) !== Boolean(u.factoryData && u.factoryData !== "0x"))
    throw invalid("userOperation.factory and userOperation.factoryData go together");
  if (options.complete) {
    for (const field of GAS_FIELDS)
      if (u[field] === undefined) throw invalid(`userOperation.${field} is required`);
  }
  return {
    userOperation: {
      sender: u.sender,
      nonce: u.nonce,
      factory: u.factory ?? undefined,
      factoryData: u.factory ? (u.factoryData ?? undefined) : undefined,
      callData: u.callData,
      callGasLimit: u.callGasLimit ?? 0n,
      verificationGasLimit: u.verificationGasLimit ?? 0n,
      preVerificationGas: u.preVerificationGas ?? 0n,
      maxFeePerGas: u.maxFeePerGas ?? 0n,
      maxPriorityFeePerGas: u.maxPriorityFeePerGas ?? 0n,
      paymasterVerificationGasLimit: u.paymasterVerificationGasLimit ?? undefined,
      paymasterPostOpGasLimit: u.paymasterPostOpGasLimit ?? undefined,
      signature: u.signature ?? "0x",
      eip7702Auth: u.eip7702Auth
        ? { address: u.eip7702Auth.address, chainId: Number(u.eip7702Auth.chainId) }
        : undefined,
    },
    entryPoint: entryPoint.data,
    chainId: Number(chainId.data),
    policyId: context.data.policyId,
    accountSalt: BigInt(context.data.accountSalt ?? 0),
  };
}

function invalid(message: string) {
  return rpcError(RpcErrorCode.INVALID_PARAMS, SponsorshipErrorCode.INVALID_PARAMS, message);
}

/** The first problem, named by its path: "userOperation.callGasLimit: must be a hex quantity such as 0x1a". */
function describe(name: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${name} is invalid`;
  const path = [name, ...issue.path.map(String)].join(".");
  if (issue.code === "invalid_type" && issue.path.length === 0 && name === "userOperation")
    return "userOperation must be an object";
  return `${path}: ${issue.message}`;
}
