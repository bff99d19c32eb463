import type { ServiceContext } from "../context";

/** A user's smart account: their EOA delegated by EIP-7702, or an ERC-4337 account it owns. */
export type SmartAccountKind = "7702" | "4337";

/**
 * The contract of a 4337 account: LatchkeySimpleAccount (SimpleAccount with ERC-1271, what new 4337 users
 * get) or eth-infinitism's SimpleAccount (no ERC-1271), which 4337 users recorded before keep.
 */
export type SmartAccountContract = "SimpleAccount" | "LatchkeySimpleAccount";

/** The user's smart account as whoami answers it. */
export interface RecordedSmartAccount {
  smartAccountKind?: SmartAccountKind;
  smartAccountContract?: SmartAccountContract;
}

/**
 * What `users.smart_account_kind` holds: "7702"; "4337" for a SimpleAccount (every user from before 7702
 * accounts, and 4337 users recorded before LatchkeySimpleAccount); "4337-latchkey" for a
 * LatchkeySimpleAccount. A value is never rewritten, so no user's address moves.
 */
const STORED = {
  "7702": {},
  "4337": { smartAccountContract: "SimpleAccount" },
  "4337-latchkey": { smartAccountContract: "LatchkeySimpleAccount" },
} as const;
type Stored = keyof typeof STORED;

/** What a new user of the proposed kind gets. */
const NEW_USER: Record<SmartAccountKind, Stored> = { "7702": "7702", "4337": "4337-latchkey" };

const isKind = (k: unknown): k is SmartAccountKind => k === "7702" || k === "4337";
const isStored = (k: unknown): k is Stored => typeof k === "string" && Object.hasOwn(STORED, k);

/**
 * The smart account recorded for the user; when none is yet and `proposed` is given (the client's
 * default, from a request the user's session signed), records it first (a new 4337 user gets a
 * LatchkeySimpleAccount). Set once: a user's address never moves to another kind or contract because an
 * app's default changed.
 *
 * @example
 * const account = await smartAccountKindOf(ctx, { userId, proposed: "7702" });
 * // { smartAccountKind: "4337", smartAccountContract: "SimpleAccount" } for an older user
 */
export async function smartAccountKindOf(
  ctx: Pick<ServiceContext, "db">,
  params: { userId: string; proposed?: unknown },
): Promise<RecordedSmartAccount> {
  if (isKind(params.proposed))
    await ctx.db
      .updateTable("users")
      .set({ smart_account_kind: NEW_USER[params.proposed] })
      .where("id", "=", params.userId)
      .where("smart_account_kind", "is", null)
      .execute();
  const row = await ctx.db
    .selectFrom("users")
    .select("smart_account_kind")
    .where("id", "=", params.userId)
    .executeTakeFirst();
  const stored = row?.smart_account_kind;
  if (!isStored(stored)) return {};
  const kind: SmartAccountKind = stored === "7702" ? "7702" : "4337";
  return { smartAccountKind: kind, ...STORED[stored] };
}
