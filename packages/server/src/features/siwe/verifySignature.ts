import { ErrorCode } from "@latchkey/protocol";
import {
  type Address,
  BaseError,
  createClient,
  custom,
  type Hex,
  HttpRequestError,
  hashMessage,
  isAddressEqual,
  recoverAddress,
  size,
  TimeoutError,
} from "viem";
import { verifyMessage } from "viem/actions";
import type { ServiceContext } from "../../context";
import { apiError } from "../../errors";

const invalid = (more = "") =>
  apiError(ErrorCode.SIWE_INVALID_SIGNATURE, `The signature is not the address's${more}`);

const unreachable = (e: unknown) =>
  e instanceof BaseError && !!e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError);

/**
 * Whether `signature` is `address`'s `personal_sign` (EIP-191) of `message`:
 * 1. an EOA's: its key recovers from the 65 bytes (no node needed);
 * 2. else a contract wallet's, asked of the chain's node through viem's `verifyMessage`: ERC-1271
 *    `isValidSignature` for a deployed wallet, and ERC-6492 (the factory call wrapped around the signature,
 *    run by the universal validator without a deployment) for one not yet deployed.
 * A chain without a node here can only sign in EOAs. A node that does not answer is CHAIN_UNAVAILABLE
 * (503: try again), never a wrong answer: viem reads a failed call as "not valid", so the calls are watched.
 *
 * @example
 * await verifySignature(ctx, { address, chainId: 1, message, signature }); // or SIWE_INVALID_SIGNATURE
 */
export async function verifySignature(
  ctx: Pick<ServiceContext, "chains">,
  params: { address: Address; chainId: number; message: string; signature: Hex },
): Promise<void> {
  const { address, chainId, message, signature } = params;
  if (size(signature) === 65) {
    try {
      if (isAddressEqual(await recoverAddress({ hash: hashMessage(message), signature }), address)) return;
    } catch {
      // not an ECDSA signature: a contract wallet's, perhaps
    }
  }
  const chain = ctx.chains.get(chainId);
  if (!chain)
    throw invalid(` (no node of chain ${chainId} is configured here to check a contract wallet's signature)`);

  const failures: unknown[] = [];
  const watched = createClient({
    transport: custom(
      {
        async request({ method, params: rpcParams }) {
          try {
            return await chain.client.request({ method, params: rpcParams } as never);
          } catch (e) {
            if (unreachable(e)) failures.push(e);
            throw e;
          }
        },
      },
      { retryCount: 0 },
    ),
  });
  let valid: boolean;
  try {
    valid = await verifyMessage(watched, { address, message, signature });
  } catch (e) {
    if (failures.length > 0 || unreachable(e)) throw chainUnavailable(chainId);
    // Anything else viem refuses (a signature it cannot decode) is the client's, not a server error.
    if (e instanceof BaseError) throw invalid();
    throw e;
  }
  if (failures.length > 0) throw chainUnavailable(chainId);
  if (!valid) throw invalid();
}

function chainUnavailable(chainId: number) {
  return apiError(
    ErrorCode.CHAIN_UNAVAILABLE,
    `The node of chain ${chainId} did not answer while checking a contract wallet's signature: try again`,
  );
}
