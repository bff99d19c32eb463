import type { Grant, GrantPermissionsInput } from "@latchkey/protocol";
import { type Hex, isHex, numberToHex, toFunctionSelector } from "viem";
import { invalidParams } from "./errors";
import { asAddress, asChainId, asObject, asQuantity } from "./methods/params";

/** One ERC-7715 permission of a `wallet_grantPermissions` request, as a dapp sends it. */
export interface Erc7715Permission {
  type: string;
  data: Record<string, unknown>;
  policies?: readonly { type: string; data: Record<string, unknown> }[];
  required?: boolean;
}

/** The ERC-7715 request `wallet_grantPermissions` takes (its first parameter). */
export interface Erc7715PermissionRequest {
  chainId?: Hex | number;
  /** Seconds since the epoch. */
  expiry: number;
  permissions: readonly Erc7715Permission[];
  signer?: unknown;
  address?: Hex;
}

/** What `wallet_grantPermissions` answers (viem's `WalletGrantPermissionsReturnType`). */
export interface Erc7715GrantedPermissions {
  expiry: number;
  chainId: Hex;
  grantedPermissions: readonly Erc7715Permission[];
  /** The grant's id: what the app's backend signs under (`grantId`) and `wallet_revokePermissions` takes. */
  permissionsContext: string;
}

const TRANSFER = toFunctionSelector("transfer(address,uint256)");

/** A contract call's function: a 4-byte selector, or a signature such as "transfer(address,uint256)". */
function selectorOf(call: unknown): string {
  if (typeof call !== "string" || call.length === 0)
    throw invalidParams("contract-call calls must be strings");
  if (isHex(call) && call.length === 10) return call.toLowerCase();
  try {
    return toFunctionSelector(call.startsWith("function ") ? call : `function ${call}`);
  } catch {
    throw invalidParams(`"${call}" is neither a selector nor a function signature`);
  }
}

/**
 * An ERC-7715 permission request as a Latchkey grant: `native-token-transfer` (and
 * `native-token-recurring-allowance`) with a `token-allowance` policy → the value it may move, per
 * transaction and per day; `contract-call` → its contract and functions; `erc20-token-transfer` → the
 * token's `transfer`; a `call-limit` policy (`{count}`) → the number of operations; `expiry` (seconds) →
 * `expiresAt`; the request's chain (or the provider's) → `chainIds`. A `required` permission of another
 * type is refused (-32602); one that is not required is left out of what is granted.
 *
 * @example
 * grantFromErc7715({ expiry: 1735689600, permissions: [{ type: "contract-call",
 *   data: { address: token, calls: ["transfer(address,uint256)"] }, policies: [] }] }, 8453);
 */
export function grantFromErc7715(
  request: unknown,
  currentChainId: number,
): { permissions: GrantPermissionsInput; granted: Erc7715Permission[]; chainId: number; expiry: number } {
  const r = asObject(request, "the permission request");
  const chainId = r.chainId === undefined ? currentChainId : asChainId(r.chainId);
  if (typeof r.expiry !== "number" || !Number.isSafeInteger(r.expiry) || r.expiry <= 0)
    throw invalidParams("expiry must be a time in seconds since the epoch");
  if (!Array.isArray(r.permissions) || r.permissions.length === 0)
    throw invalidParams("permissions must list at least one permission");
  const contracts = new Set<string>();
  const selectors = new Set<string>();
  let anyFunction = false;
  let allowance: bigint | undefined;
  let maxOperations: number | undefined;
  const granted: Erc7715Permission[] = [];
  for (const [i, raw] of (r.permissions as unknown[]).entries()) {
    const p = asObject(raw, `permissions[${i}]`);
    const data = p.data === undefined ? {} : asObject(p.data, `permissions[${i}].data`);
    const policies = Array.isArray(p.policies)
      ? (p.policies as unknown[]).map((x, j) => asObject(x, `permissions[${i}].policies[${j}]`))
      : [];
    const type = typeof p.type === "string" ? p.type : "";
    if (type === "native-token-transfer" || type === "native-token-recurring-allowance") {
      const amount = data.allowance ?? policies.find((x) => x.type === "token-allowance")?.data;
      const value =
        amount === undefined
          ? 0n
          : asQuantity(
              typeof amount === "object" && amount !== null
                ? (amount as { allowance?: unknown }).allowance
                : amount,
              "allowance",
            );
      allowance = (allowance ?? 0n) + value;
      // Native coin goes to any address: the transfer has no contract to name.
      anyFunction = true;
    } else if (type === "contract-call") {
      contracts.add(asAddress(data.address, `permissions[${i}].data.address`).toLowerCase());
      const calls = Array.isArray(data.calls) ? data.calls : [];
      if (calls.length === 0) anyFunction = true;
      for (const c of calls) selectors.add(selectorOf(c));
    } else if (type === "erc20-token-transfer") {
      contracts.add(asAddress(data.address, `permissions[${i}].data.address`).toLowerCase());
      selectors.add(TRANSFER);
    } else {
      if (p.required === true)
        throw invalidParams(`the permission type "${type}" is not one this wallet grants`);
      continue;
    }
    for (const policy of policies) {
      if (policy.type !== "call-limit") continue;
      const count = Number(
        asQuantity((policy.data as { count?: unknown } | undefined)?.count, "call-limit count"),
      );
      maxOperations = maxOperations === undefined ? count : Math.min(maxOperations, count);
    }
    granted.push(raw as Erc7715Permission);
  }
  if (granted.length === 0) throw invalidParams("none of the permissions is one this wallet grants");
  const onlyNative = contracts.size === 0;
  const permissions: GrantPermissionsInput = {
    chainIds: [chainId],
    ...(onlyNative ? {} : { contracts: [...contracts] }),
    ...(anyFunction || selectors.size === 0 ? {} : { selectors: [...selectors] }),
    valuePerTransaction: (allowance ?? 0n).toString(),
    ...(allowance === undefined ? {} : { valuePerDay: allowance.toString() }),
    ...(maxOperations === undefined ? {} : { maxOperations }),
    expiresAt: r.expiry * 1000,
  };
  return { permissions, granted, chainId, expiry: r.expiry };
}

/** A grant as `wallet_grantPermissions` answers it. */
export function erc7715Answer(
  grant: Grant,
  asked: { granted: Erc7715Permission[]; chainId: number; expiry: number },
): Erc7715GrantedPermissions {
  return {
    expiry: asked.expiry,
    chainId: numberToHex(asked.chainId),
    grantedPermissions: asked.granted,
    permissionsContext: grant.grantId,
  };
}
