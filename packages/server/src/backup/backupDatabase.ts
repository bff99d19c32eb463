import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import { isPostgresUrl } from "../db";

export interface BackupDatabaseParameters {
  /** The live database: a SQLite file path or a postgres:// URL. */
  db: string;
  /** Where the copy goes: a SQLite file, or a pg_dump archive (custom format). */
  out: string;
}

/**
 * A consistent copy of a database the service may be writing to meanwhile. SQLite: the online backup API
 * (a snapshot of one moment, taken page by page; writers go on). PostgreSQL: `pg_dump --format=custom`,
 * one repeatable-read snapshot; restore it with `pg_restore --no-owner --dbname <url> <file>`.
 */
export async function backupDatabase(
  params: BackupDatabaseParameters,
): Promise<{ kind: "sqlite" | "postgres" }> {
  mkdirSync(dirname(params.out), { recursive: true });
  if (isPostgresUrl(params.db)) {
    try {
      await promisify(execFile)("pg_dump", [
        "--format=custom",
        "--no-owner",
        "--file",
        params.out,
        params.db,
      ]);
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === "ENOENT")
        throw new Error("pg_dump is not on PATH: install the PostgreSQL client of the server's version");
      // pg_dump's message may name the URL, with its password: say only that it failed, and its own line.
      const line = (e.stderr ?? "").split("\n").find((l) => l.trim()) ?? "";
      throw new Error(`pg_dump failed: ${line.replace(/postgres(ql)?:\/\/\S+/g, "<db>")}`);
    }
    return { kind: "postgres" };
  }
  const source = new SQLite(params.db, { fileMustExist: true });
  try {
    // All pages in one step: one read transaction, so one moment's snapshot (WAL: writers go on meanwhile),
    // instead of steps that start over whenever another process writes between them.
    await source.backup(params.out, { progress: () => 1 << 30 });
  } finally {
    source.close();
  }
  return { kind: "sqlite" };
}
