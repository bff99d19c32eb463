import type { ServiceContext } from "../context";

/** A user's smart account: their EOA delegated by EIP-7702, or an ERC-4337 SimpleAccount it owns. */
export type SmartAccountKind = "7702" | "4337";

const isKind = (k: unknown): k is SmartAccountKind => k === "7702" || k === "4337";

/**
 * The smart-account kind recorded for the user; when none is yet and `proposed` is given (the client's
 * default, from a request the user's session signed), records it first. Set once: a user's address
 * never moves to another kind because an app's default changed.
 *
 * @example
 * const kind = await smartAccountKindOf(ctx, { userId, proposed: "7702" }); // "4337" for an older user
 */
export async function smartAccountKindOf(
  ctx: Pick<ServiceContext, "db">,
  params: { userId: string; proposed?: unknown },
): Promise<SmartAccountKind | undefined> {
  if (isKind(params.proposed))
    await ctx.db
      .updateTable("users")
      .set({ smart_account_kind: params.proposed })
      .where("id", "=", params.userId)
      .where("smart_account_kind", "is", null)
      .execute();
  const row = await ctx.db
    .selectFrom("users")
    .select("smart_account_kind")
    .where("id", "=", params.userId)
    .executeTakeFirst();
  return isKind(row?.smart_account_kind) ? row.smart_account_kind : undefined;
}
