import { decodeErrorResult, type Hex, isHex } from "viem";
import { SmartAccountError } from "../errors/smartAccount";

type ErrorLike = {
  name?: string;
  message?: string;
  shortMessage?: string;
  details?: string;
  url?: string;
  cause?: unknown;
};

function chainOf(error: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let e: unknown = error;
  while (typeof e === "object" && e !== null && out.length < 20) {
    out.push(e as ErrorLike);
    e = (e as ErrorLike).cause;
  }
  return out;
}

// SimpleAccount v0.8's executeBatch wraps the revert of the call that failed in ExecuteError(index, data).
const accountErrors = [
  {
    type: "error",
    name: "ExecuteError",
    inputs: [
      { name: "index", type: "uint256" },
      { name: "error", type: "bytes" },
    ],
  },
] as const;

/**
 * Revert data as words: `Error(string)`'s message, a panic or custom error's name (a batch's failed call
 * as its own reason and index); other data as it is.
 */
export function decodeRevertData(data: string): string | undefined {
  if (!isHex(data)) return data;
  if (data === "0x") return undefined;
  try {
    const decoded = decodeErrorResult({ data: data as Hex, abi: accountErrors });
    if (decoded.errorName === "ExecuteError") {
      const [index, inner] = decoded.args as readonly [bigint, Hex];
      return `${decodeRevertData(inner) ?? "reverted without a reason"} (call ${index} of the batch)`;
    }
    const first = decoded.args?.[0];
    return typeof first === "string" ? first : `${decoded.errorName}(${decoded.args?.join(", ") ?? ""})`;
  } catch {
    return data;
  }
}

/** The revert reason in a bundler's or node's message ("... reverted ... with reason: X", "reverted: X"). */
export function revertReasonOf(text: string | undefined): string | undefined {
  if (!text) return undefined;
  const m =
    /with reason:\s*([^\n]+)/i.exec(text) ??
    /reverted with the following reason:\s*\n?\s*([^\n]+)/i.exec(text) ??
    /execution reverted:\s*([^\n]+)/i.exec(text);
  const reason = m?.[1]?.trim();
  return reason ? decodeRevertData(reason) : undefined;
}

/**
 * One error for anything that went wrong sending a user operation, by what the user can do about it:
 * a refused sponsorship (the paymaster at `paymasterUrl` said why), no funds for gas (AA21), a revert
 * (with its reason), or another failure (the bundler's words as details).
 */
export function toSmartAccountError(
  error: unknown,
  { paymasterUrl }: { paymasterUrl?: string | undefined } = {},
): SmartAccountError {
  if (error instanceof SmartAccountError) return error;
  const chain = chainOf(error);
  const fromPaymaster = paymasterUrl ? chain.find((e) => e.url === paymasterUrl) : undefined;
  if (fromPaymaster) {
    return new SmartAccountError("SPONSORSHIP_REFUSED", {
      cause: error,
      details: fromPaymaster.details ?? fromPaymaster.shortMessage,
    });
  }
  if (chain.some((e) => e.name === "InsufficientPrefundError" || /AA21/.test(e.details ?? e.message ?? ""))) {
    return new SmartAccountError("INSUFFICIENT_FUNDS", { cause: error });
  }
  for (const e of chain) {
    const reason = revertReasonOf(e.details) ?? revertReasonOf(e.message);
    if (reason || e.name === "ExecutionRevertedError" || e.name === "SmartAccountFunctionRevertedError") {
      return new SmartAccountError("USER_OPERATION_REVERTED", { cause: error, details: reason });
    }
  }
  const innermost = chain[chain.length - 1];
  return new SmartAccountError("USER_OPERATION_FAILED", {
    cause: error,
    details: innermost?.details ?? innermost?.shortMessage ?? innermost?.message,
  });
}
