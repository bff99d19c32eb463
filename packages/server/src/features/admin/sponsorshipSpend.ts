import { defineAdminHandler } from "./adminRoute";

/** Without `fromDay`, the last 30 days (UTC). */
const DEFAULT_DAYS = 30;

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * `sponsorship_spend`: what the app's sponsorship policies reserved per UTC day, from the daily totals
 * (`sponsorship_usage`, scope "app": operations and wei, or transactions and fee lamports) and, for
 * Solana, the lamports its transactions moved (`solana_sponsorship_spend`, index by app and day).
 */
export const sponsorshipSpend = defineAdminHandler({
  name: "sponsorship_spend",
  async run(ctx, { admin, body }) {
    const toDay = body.toDay ?? dayOf(ctx.now());
    const fromDay = body.fromDay ?? dayOf(ctx.now() - (DEFAULT_DAYS - 1) * 86_400_000);
    const app = await ctx.apps.byId(admin.appId);
    const solana = new Set((app?.sponsorship.solanaPolicies ?? []).map((p) => p.id));
    let usage = ctx.db
      .selectFrom("sponsorship_usage")
      .select(["policy_id", "day", "operations", "wei"])
      .where("app_id", "=", admin.appId)
      .where("scope", "=", "app")
      .where("day", ">=", fromDay)
      .where("day", "<=", toDay);
    if (body.policyId !== undefined) usage = usage.where("policy_id", "=", body.policyId);
    let moved = ctx.db
      .selectFrom("solana_sponsorship_spend")
      .select(["policy_id", "day", "lamports"])
      .where("app_id", "=", admin.appId)
      .where("day", ">=", fromDay)
      .where("day", "<=", toDay);
    if (body.policyId !== undefined) moved = moved.where("policy_id", "=", body.policyId);
    const [totals, transfers] = await Promise.all([usage.execute(), moved.execute()]);
    const lamports = new Map<string, bigint>();
    for (const t of transfers) {
      const key = `${t.day} ${t.policy_id}`;
      lamports.set(key, (lamports.get(key) ?? 0n) + BigInt(t.lamports));
    }
    const days = totals
      .map((t) =>
        solana.has(t.policy_id)
          ? {
              day: t.day,
              policyId: t.policy_id,
              chain: "solana" as const,
              operations: Number(t.operations),
              feeLamports: t.wei,
              lamports: (lamports.get(`${t.day} ${t.policy_id}`) ?? 0n).toString(),
            }
          : {
              day: t.day,
              policyId: t.policy_id,
              chain: "evm" as const,
              operations: Number(t.operations),
              wei: t.wei,
            },
      )
      .sort((a, b) => (a.day === b.day ? a.policyId.localeCompare(b.policyId) : a.day < b.day ? -1 : 1));
    return { days };
  },
});
