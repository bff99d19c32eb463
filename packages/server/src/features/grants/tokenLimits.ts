import { ErrorCode, type TokenLimit, type TokenLimitWindow } from "@latchkey/protocol";
import { TOKEN_WINDOW_MS } from "@latchkey/protocol/schemas";
import type { Db } from "../../db";
import { apiError } from "../../errors";
import type { SigningRequest } from "../../keyManagement/policies/signingRequest";
import { tokenMovesOf } from "../../keyManagement/policies/tokenMoves";

/** The rule id a refusal names for a call on a capped token that no limit can count. */
export const TOKEN_LIMITS_RULE_ID = "grant.tokenLimits";

/** Whose limits they are: a grant's, or the app's signing policy's (for each of its users). */
export type LimitOwner = "grant" | "policy";

/** What one signature moves of one limited token (summed over its calls). */
export interface TokenSpend {
  limit: TokenLimit;
  amount: bigint;
}

/** A call on a capped token whose effect cannot be counted: the signature is refused (GRANT_DENIED). */
export interface UncountedRefusal {
  ruleId: typeof TOKEN_LIMITS_RULE_ID;
  message: string;
}

const matchesChain = (limit: TokenLimit, chainId: number | undefined) =>
  // A transaction without a chain id (legacy) can be sent on every chain: every limit of its token counts it.
  chainId === undefined || chainId === limit.chainId;

/**
 * What a signature moves of each token the grant limits (keyManagement/policies/tokenMoves.ts), checked
 * against the per-transaction limits: a refusal for a call on a capped token no limit can count
 * (another function than transfer, transferFrom, approve, increaseAllowance, a permit or an EIP-3009
 * authorization), else 403 GRANT_LIMIT_EXCEEDED (`data.limit: "tokenPerTransaction"`) over a limit,
 * else what each limited token spends (none moved: left out). Counts nothing.
 */
export function tokenSpendsOf(
  limits: readonly TokenLimit[] | undefined,
  request: SigningRequest,
  owner: LimitOwner = "grant",
): { spends: TokenSpend[] } | { refusal: UncountedRefusal } {
  if (!limits?.length) return { spends: [] };
  const capped = new Set<string>(limits.map((l) => l.token).filter((t) => t !== "native"));
  const read = tokenMovesOf(request, capped);
  for (const u of read.uncounted) {
    const limit = limits.find((l) => l.token === u.token && matchesChain(l, u.chainId));
    if (!limit) continue;
    return {
      refusal: {
        ruleId: TOKEN_LIMITS_RULE_ID,
        message:
          `${owner === "grant" ? "The grant" : "The signing policy"} limits token ${u.token} on chain ${limit.chainId}, and ${u.what === "0x" ? "a call without data" : u.what} on it ` +
          "is none of transfer, transferFrom, approve, increaseAllowance, a permit or a transfer authorization, whose amount the limit counts",
      },
    };
  }
  const spends: TokenSpend[] = [];
  for (const limit of limits) {
    const amount = read.moves
      .filter((m) => m.token === limit.token && matchesChain(limit, m.chainId))
      .reduce((sum, m) => sum + m.amount, 0n);
    if (amount === 0n) continue;
    if (limit.perTransaction !== undefined && amount > BigInt(limit.perTransaction))
      throw tokenLimitExceeded(
        limit,
        { limit: "tokenPerTransaction", max: BigInt(limit.perTransaction), used: 0n, amount },
        owner,
      );
    spends.push({ limit, amount });
  }
  return { spends };
}

function tokenName(limit: TokenLimit): string {
  return limit.token === "native"
    ? `the native coin of chain ${limit.chainId}`
    : `token ${limit.token} on chain ${limit.chainId}`;
}

function tokenLimitExceeded(
  limit: TokenLimit,
  over: {
    limit: "tokenPerTransaction" | "tokenPerWindow";
    window?: TokenLimitWindow;
    max: bigint;
    used: bigint;
    amount: bigint;
    resetsAt?: number;
  },
  owner: LimitOwner,
) {
  const left = over.max > over.used ? over.max - over.used : 0n;
  const per = over.window === undefined ? "per transaction" : WINDOW_TEXT[over.window];
  return apiError(
    ErrorCode.GRANT_LIMIT_EXCEEDED,
    `${owner === "grant" ? "The grant's" : "The signing policy's"} limit of ${over.max} ${per} for ${tokenName(limit)} does not cover ${over.amount}: ${left} left` +
      (over.resetsAt === undefined ? "" : ` (more from ${new Date(over.resetsAt).toISOString()})`),
    {
      data: {
        limit: over.limit,
        chainId: limit.chainId,
        token: limit.token,
        ...(over.window ? { window: over.window } : {}),
        max: over.max.toString(),
        used: over.used.toString(),
        left: left.toString(),
        requested: over.amount.toString(),
        ...(over.resetsAt === undefined ? {} : { resetsAt: new Date(over.resetsAt).toISOString() }),
      },
    },
  );
}

const WINDOW_TEXT: Record<TokenLimitWindow, string> = {
  "24h": "per 24 hours",
  "7d": "per 7 days",
  "30d": "per 30 days",
  day: "per UTC day",
  total: "in all",
};

function utcMidnight(ms: number, days = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days);
}

/** The first instant a window counts from now (a spend at or after it counts), and when room comes back. */
function windowStart(window: TokenLimitWindow, now: number): number {
  if (window === "day") return utcMidnight(now);
  if (window === "total") return Number.MIN_SAFE_INTEGER;
  return now - TOKEN_WINDOW_MS[window] + 1;
}

/** The spends a ledger holds of one limit's token since `since` (its earliest window's start), oldest first. */
export type LedgerReader = (
  limit: TokenLimit,
  since: number,
) => Promise<{ amount: string; spent_at: number }[]>;

/**
 * Refuses (403 GRANT_LIMIT_EXCEEDED, `data.limit: "tokenPerWindow"`, with what is left and when more
 * comes) spends the grant's windows have no room for now, summing the grant's ledger
 * (`grant_token_spends`) read in `trx`: a rolling window counts every spend of the last 24 h, 7 d or 30 d
 * to the millisecond, `day` those since UTC midnight, `total` all of them.
 */
export async function assertWindowRoom(
  trx: Db,
  grantId: string,
  spends: readonly TokenSpend[],
  now: number,
): Promise<void> {
  await assertLedgerRoom(
    (limit, since) =>
      trx
        .selectFrom("grant_token_spends")
        .select(["amount", "spent_at"])
        .where("grant_id", "=", grantId)
        .where("chain_id", "=", limit.chainId)
        .where("token", "=", limit.token)
        .where("spent_at", ">=", since)
        .orderBy("spent_at", "asc")
        .execute(),
    spends,
    now,
  );
}

/** assertWindowRoom over any ledger (a grant's, or a user's under the app's signing policy). */
export async function assertLedgerRoom(
  read: LedgerReader,
  spends: readonly TokenSpend[],
  now: number,
  owner: LimitOwner = "grant",
): Promise<void> {
  for (const { limit, amount } of spends) {
    if (limit.windows.length === 0) continue;
    const earliest = Math.min(...limit.windows.map((w) => windowStart(w.window, now)));
    const rows = await read(limit, earliest);
    const ledger = rows.map((r) => ({ amount: BigInt(r.amount), at: Number(r.spent_at) }));
    for (const w of limit.windows) {
      const start = windowStart(w.window, now);
      const inWindow = ledger.filter((r) => r.at >= start);
      const used = inWindow.reduce((sum, r) => sum + r.amount, 0n);
      const max = BigInt(w.amount);
      if (used + amount <= max) continue;
      throw tokenLimitExceeded(
        limit,
        {
          limit: "tokenPerWindow",
          window: w.window,
          max,
          used,
          amount,
          ...resetsAt(w.window, inWindow, used + amount - max, now, amount <= max),
        },
        owner,
      );
    }
  }
}

/** When enough of the window's spends have left it for `amount` to fit (none for `total`, or never). */
function resetsAt(
  window: TokenLimitWindow,
  inWindow: readonly { amount: bigint; at: number }[],
  excess: bigint,
  now: number,
  fits: boolean,
): { resetsAt?: number } {
  if (!fits || window === "total") return {};
  if (window === "day") return { resetsAt: utcMidnight(now, 1) };
  let freed = 0n;
  for (const r of inWindow) {
    freed += r.amount;
    if (freed >= excess) return { resetsAt: r.at + TOKEN_WINDOW_MS[window] };
  }
  return {};
}

/** Writes what one signature spends to the grant's ledger (in the transaction of its compare-and-set). */
export async function recordSpends(
  trx: Db,
  params: {
    grantId: string;
    reservationId: string;
    spends: readonly TokenSpend[];
    now: number;
    id: () => string;
  },
): Promise<void> {
  const rows = params.spends.map((s) => ({
    id: params.id(),
    grant_id: params.grantId,
    chain_id: s.limit.chainId,
    token: s.limit.token,
    amount: s.amount.toString(),
    reservation_id: params.reservationId,
    spent_at: params.now,
  }));
  if (rows.length) await trx.insertInto("grant_token_spends").values(rows).execute();
}
