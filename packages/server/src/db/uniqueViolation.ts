/** True for a unique-constraint violation on either database (PostgreSQL 23505, SQLite's UNIQUE). */
export function isUniqueViolation(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | null;
  return (
    err?.code === "23505" ||
    err?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    err?.code === "SQLITE_CONSTRAINT_PRIMARYKEY" ||
    /UNIQUE constraint failed/.test(err?.message ?? "")
  );
}
