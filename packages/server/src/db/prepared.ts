import { type Compilable, CompiledQuery, type DialectAdapter } from "kysely";
import type { Db } from "./index";

const SLOT = "\u0000lk-slot:";

/** Names a value to be filled in at run time. Typed `never` so it fits any column. */
export type Slot = (name: string) => never;

/**
 * A query on a hot path, built and compiled by Kysely once per dialect and then run with new values:
 * building and compiling cost ~30 µs a query, more than SQLite's own insert. `build` marks each value
 * with `$("name")`; run it with `{ name: value }` on the database or inside a transaction.
 *
 * @example
 * const insertOtp = prepared((db, $) => db.insertInto("otps").values({ id: $("id"), email: $("email") }));
 * await insertOtp(trx, { id, email });
 */
export function prepared<R>(build: (db: Db, $: Slot) => Compilable<R>) {
  const byAdapter = new WeakMap<DialectAdapter, { sql: string; slots: (string | { value: unknown })[] }>();
  return async (db: Db, values: Record<string, unknown>): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let compiled = byAdapter.get(adapter);
    if (!compiled) {
      const query = build(db, ((name: string) => `${SLOT}${name}`) as Slot).compile();
      compiled = {
        sql: query.sql,
        slots: query.parameters.map((p) =>
          typeof p === "string" && p.startsWith(SLOT) ? p.slice(SLOT.length) : { value: p },
        ),
      };
      byAdapter.set(adapter, compiled);
    }
    const parameters = compiled.slots.map((s) => {
      if (typeof s !== "string") return s.value;
      if (!(s in values)) throw new Error(`prepared query: no value for ${s}`);
      return values[s];
    });
    const result = await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters));
    return result.rows;
  };
}

/** The slots of a whole row, `$("prefix" + column)` for each column: for `.values(...)`. */
export function rowSlots<C extends string>($: Slot, columns: readonly C[], prefix = ""): Record<C, never> {
  return Object.fromEntries(columns.map((c) => [c, $(`${prefix}${c}`)])) as Record<C, never>;
}

/** Values for rowSlots with a prefix: `{ [prefix + column]: row[column] }`. */
export function prefixed(row: object, prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row)) out[`${prefix}${k}`] = v;
  return out;
}
