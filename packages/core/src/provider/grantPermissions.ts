import type { Grant, GrantPermissionsInput, TokenLimitWindow } from "@latchkey/protocol";
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

/** The ERC-7715 periods (seconds) a grant's rolling windows are. */
const WINDOW_OF_PERIOD: Record<number, TokenLimitWindow> = { 86400: "24h", 604800: "7d", 2592000: "30d" };
const PERIOD_OF_WINDOW: Record<Exclude<TokenLimitWindow, "total">, number> = {
  "24h": 86_400,
  "7d": 604_800,
  "30d": 2_592_000,
  day: 86_400,
};

/** A permission's allowance and period: from its data, else from its `token-allowance` policy. */
function allowanceOf(
  data: Record<string, unknown>,
  policies: Record<string, unknown>[],
  i: number,
): { amount: bigint; period?: number } | undefined {
  const policy = policies.find((x) => x.type === "token-allowance")?.data as
    | Record<string, unknown>
    | undefined;
  const raw = data.allowance ?? policy?.allowance;
  if (raw === undefined) return undefined;
  const amount = asQuantity(raw, `permissions[${i}] allowance`);
  const period = data.period ?? policy?.period;
  if (period === undefined) return { amount };
  const seconds = Number(asQuantity(period, `permissions[${i}] period`));
  return { amount, period: seconds };
}

/** Adds `amount` per `window` to the limit of `token` (several permissions on one token add up). */
function addLimit(
  limits: Map<string, { token: string; windows: Map<TokenLimitWindow, bigint> }>,
  token: string,
  window: TokenLimitWindow,
  amount: bigint,
) {
  const limit = limits.get(token) ?? { token, windows: new Map() };
  limit.windows.set(window, (limit.windows.get(window) ?? 0n) + amount);
  limits.set(token, limit);
}

/**
 * An ERC-7715 permission request as a Latchkey grant: `native-token-transfer` (an `allowance` in all, or
 * per `period`) and `native-token-recurring-allowance` (`allowance` per `period`) → a limit on the native
 * coin; `erc20-token-transfer` (`address`, an `allowance` in all or per `period`, in data or a
 * `token-allowance` policy) → the token's `transfer`, limited to that amount (an ERC-20 permission
 * without an allowance is refused: nothing would cap it); `contract-call` → its contract and functions; a
 * `call-limit` policy (`{count}`) → the number of operations; `expiry` (seconds) → `expiresAt`; the
 * request's chain (or the provider's) → `chainIds`. Periods are 86400 (24 h), 604800 (7 days) or
 * 2592000 (30 days), counted as rolling windows. A `required` permission of another type or period is
 * refused (-32602); one that is not required is left out of what is granted.
 *
 * @example
 * grantFromErc7715({ expiry: 1735689600, permissions: [{ type: "erc20-token-transfer",
 *   data: { address: usdc, allowance: "0x989680", period: 86400 } }] }, 8453);
 * // → tokenLimits: [{ chainId: 8453, token: usdc, windows: [{ window: "24h", amount: "10000000" }] }]
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
  let native = 0n;
  const limits = new Map<string, { token: string; windows: Map<TokenLimitWindow, bigint> }>();
  let maxOperations: number | undefined;
  const granted: Erc7715Permission[] = [];
  for (const [i, raw] of (r.permissions as unknown[]).entries()) {
    const p = asObject(raw, `permissions[${i}]`);
    const data = p.data === undefined ? {} : asObject(p.data, `permissions[${i}].data`);
    const policies = Array.isArray(p.policies)
      ? (p.policies as unknown[]).map((x, j) => asObject(x, `permissions[${i}].policies[${j}]`))
      : [];
    const type = typeof p.type === "string" ? p.type : "";
    const skip = (why: string) => {
      if (p.required === true) throw invalidParams(why);
    };
    if (type === "native-token-transfer" || type === "native-token-recurring-allowance") {
      const allowance = allowanceOf(data, policies, i);
      if (type === "native-token-recurring-allowance" && allowance?.period === undefined) {
        skip(`permissions[${i}]: a native-token-recurring-allowance needs an allowance and a period`);
        continue;
      }
      const window = allowance?.period === undefined ? "total" : WINDOW_OF_PERIOD[allowance.period];
      if (!window) {
        skip(`permissions[${i}]: the period must be 86400, 604800 or 2592000 seconds`);
        continue;
      }
      if (allowance) {
        native = native > allowance.amount ? native : allowance.amount;
        addLimit(limits, "native", window, allowance.amount);
      }
      // Native coin goes to any address: the transfer has no contract to name.
      anyFunction = true;
    } else if (type === "contract-call") {
      contracts.add(asAddress(data.address, `permissions[${i}].data.address`).toLowerCase());
      const calls = Array.isArray(data.calls) ? data.calls : [];
      if (calls.length === 0) anyFunction = true;
      for (const c of calls) selectors.add(selectorOf(c));
    } else if (type === "erc20-token-transfer") {
      const token = asAddress(data.address, `permissions[${i}].data.address`).toLowerCase();
      const allowance = allowanceOf(data, policies, i);
      if (!allowance) {
        // Granting the token's transfer with nothing to cap it would let the backend move the whole balance.
        skip(`permissions[${i}]: an erc20-token-transfer needs an allowance`);
        continue;
      }
      const window = allowance.period === undefined ? "total" : WINDOW_OF_PERIOD[allowance.period];
      if (!window) {
        skip(`permissions[${i}]: the period must be 86400, 604800 or 2592000 seconds`);
        continue;
      }
      contracts.add(token);
      selectors.add(TRANSFER);
      addLimit(limits, token, window, allowance.amount);
    } else {
      skip(`the permission type "${type}" is not one this wallet grants`);
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
  const tokenLimits = [...limits.values()].map((l) => ({
    chainId,
    token: l.token,
    windows: [...l.windows].map(([window, amount]) => ({ window, amount: amount.toString() })),
  }));
  const permissions: GrantPermissionsInput = {
    chainIds: [chainId],
    ...(onlyNative ? {} : { contracts: [...contracts] }),
    ...(anyFunction || selectors.size === 0 ? {} : { selectors: [...selectors] }),
    valuePerTransaction: native.toString(),
    ...(maxOperations === undefined ? {} : { maxOperations }),
    ...(tokenLimits.length ? { tokenLimits } : {}),
    expiresAt: r.expiry * 1000,
  };
  return { permissions, granted, chainId, expiry: r.expiry };
}

const hex = (v: string | bigint) => numberToHex(BigInt(v));

/**
 * What a grant allows, as ERC-7715 permissions: read from the grant the service made (not from the
 * request), so a dapp learns exactly what it got. Its contracts and functions are `contract-call`s; each
 * window of a limit on the native coin a `native-token-transfer` (`total`: an allowance for the grant's
 * life) or `native-token-recurring-allowance` (`period` in seconds from `start`: rolling windows start
 * when the grant was made, `day` at UTC midnight); of a token an `erc20-token-transfer` with `allowance`
 * (and `period`, `start`). A per-transaction limit is `data.perTransaction`; `maxOperations` is a
 * `call-limit` policy on every permission (one count for the whole grant). Amounts are hex quantities.
 */
export function erc7715PermissionsOf(grant: Grant): Erc7715Permission[] {
  const p = grant.permissions;
  const policies =
    p.maxOperations === undefined ? [] : [{ type: "call-limit", data: { count: p.maxOperations } }];
  const out: Erc7715Permission[] = [];
  const limits = p.tokenLimits ?? [];
  const nativeLimited = limits.some((l) => l.token === "native");
  for (const l of limits) {
    const perTransaction =
      l.perTransaction !== undefined
        ? { perTransaction: hex(l.perTransaction) }
        : l.token === "native"
          ? { perTransaction: hex(p.valuePerTransaction) }
          : {};
    for (const w of l.windows) {
      const period =
        w.window === "total"
          ? {}
          : {
              period: PERIOD_OF_WINDOW[w.window],
              start: Math.floor((w.window === "day" ? utcMidnight(grant.createdAt) : grant.createdAt) / 1000),
            };
      const type =
        l.token !== "native"
          ? "erc20-token-transfer"
          : w.window === "total"
            ? "native-token-transfer"
            : "native-token-recurring-allowance";
      out.push({
        type,
        data: {
          ...(l.token === "native" ? {} : { address: l.token }),
          allowance: hex(w.amount),
          ...period,
          ...perTransaction,
        },
        policies,
      });
    }
    if (l.windows.length === 0)
      out.push({
        type: l.token === "native" ? "native-token-transfer" : "erc20-token-transfer",
        data: { ...(l.token === "native" ? {} : { address: l.token }), ...perTransaction },
        policies,
      });
  }
  // Native value with no limit in tokens: what valuePerTransaction and valuePerDay say.
  if (p.valuePerDay !== undefined || (!nativeLimited && BigInt(p.valuePerTransaction) > 0n))
    out.push(
      p.valuePerDay === undefined
        ? {
            type: "native-token-transfer",
            data: { perTransaction: hex(p.valuePerTransaction) },
            policies,
          }
        : {
            type: "native-token-recurring-allowance",
            data: {
              allowance: hex(p.valuePerDay),
              period: 86_400,
              start: Math.floor(utcMidnight(grant.createdAt) / 1000),
              perTransaction: hex(p.valuePerTransaction),
            },
            policies,
          },
    );
  for (const address of p.contracts ?? [])
    out.push({ type: "contract-call", data: { address, calls: p.selectors ?? [] }, policies });
  // No contracts named: calls to any contract (without native value beyond the limits above).
  if (!p.contracts)
    out.push({ type: "contract-call", data: { anyContract: true, calls: p.selectors ?? [] }, policies });
  return out;
}

function utcMidnight(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** A grant as `wallet_grantPermissions` answers it: what the grant allows, not what was asked. */
export function erc7715Answer(
  grant: Grant,
  asked: { granted: Erc7715Permission[]; chainId: number; expiry: number },
): Erc7715GrantedPermissions {
  return {
    expiry: Math.floor(grant.permissions.expiresAt / 1000),
    chainId: numberToHex(grant.permissions.chainIds[0] ?? asked.chainId),
    grantedPermissions: erc7715PermissionsOf(grant),
    permissionsContext: grant.grantId,
  };
}
