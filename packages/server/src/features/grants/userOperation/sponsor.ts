import { ErrorCode, RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import { type Hex, toHex } from "viem";
import {
  formatUserOperationRequest,
  type GetPaymasterDataParameters,
  type GetPaymasterStubDataParameters,
  type UserOperation,
} from "viem/account-abstraction";
import type { App } from "../../../apps/appDirectory";
import type { ServiceContext } from "../../../context";
import { apiError } from "../../../errors";
import { getPaymasterData } from "../../sponsorship/evm/getPaymasterData";
import { getPaymasterStubData } from "../../sponsorship/evm/getPaymasterStubData";
import { RpcError } from "../../sponsorship/jsonRpc";

type SponsorContext = Pick<ServiceContext, "chains" | "audit" | "db" | "dbKind" | "now" | "serviceKeys">;

/** The JSON-RPC params of the paymaster methods, from what viem asks a paymaster. */
function rpcParamsOf(p: GetPaymasterStubDataParameters | GetPaymasterDataParameters): unknown[] {
  const { chainId, entryPointAddress, context, ...userOperation } = p;
  return [
    formatUserOperationRequest(userOperation as UserOperation),
    entryPointAddress,
    toHex(chainId),
    context ?? {},
  ];
}

/** A sponsorship refusal as the backend API answers it: 403 SPONSORSHIP_DENIED with the reason. */
export function sponsorshipError(e: unknown): unknown {
  if (!(e instanceof RpcError)) return e;
  if (e.reason === SponsorshipErrorCode.CHAIN_UNAVAILABLE || e.rpcCode === RpcErrorCode.RESOURCE_UNAVAILABLE)
    return apiError(ErrorCode.CHAIN_UNAVAILABLE, e.message, { data: { reason: e.reason } });
  return apiError(ErrorCode.SPONSORSHIP_DENIED, e.message, { data: { reason: e.reason, ...e.details } });
}

const quantity = (v: unknown) => (typeof v === "string" ? BigInt(v) : undefined);

/**
 * The service's own ERC-7677 paymaster (features/sponsorship), called in-process for the app's sponsorship
 * policy in `paymasterContext.policyId` and charged to the user: the same checks, limits and spend records
 * as a browser's sponsored operation (the caller is the grant's user, as their session's stamp proves it
 * on `/rpc/v1`).
 */
export function inProcessPaymaster(ctx: SponsorContext, params: { app: App; userId: string }) {
  const asked = { app: params.app, caller: { userId: params.userId } };
  const call = async <T>(method: () => Promise<T>): Promise<T> => {
    try {
      return await method();
    } catch (e) {
      throw sponsorshipError(e);
    }
  };
  return {
    async getPaymasterStubData(p: GetPaymasterStubDataParameters) {
      const r = await call(() => getPaymasterStubData(ctx, { ...asked, rpcParams: rpcParamsOf(p) }));
      return {
        paymaster: r.paymaster as Hex,
        paymasterData: r.paymasterData,
        paymasterVerificationGasLimit: BigInt(r.paymasterVerificationGasLimit),
        paymasterPostOpGasLimit: BigInt(r.paymasterPostOpGasLimit),
        isFinal: false,
      };
    },
    async getPaymasterData(p: GetPaymasterDataParameters) {
      const r = await call(() => getPaymasterData(ctx, { ...asked, rpcParams: rpcParamsOf(p) }));
      const verification = quantity(r.paymasterVerificationGasLimit);
      const postOp = quantity(r.paymasterPostOpGasLimit);
      return {
        paymaster: r.paymaster as Hex,
        paymasterData: r.paymasterData as Hex,
        ...(verification === undefined ? {} : { paymasterVerificationGasLimit: verification }),
        ...(postOp === undefined ? {} : { paymasterPostOpGasLimit: postOp }),
      };
    },
  };
}
