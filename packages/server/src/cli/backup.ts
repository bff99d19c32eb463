import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { Keyring } from "../crypto/keyring";
import { KeyWrapperError } from "../crypto/keyWrap/keyWrapper";
import { loadKeyWrapper } from "../crypto/keyWrap/loadKeyWrapper";
import { isPostgresUrl, openDatabase } from "../db";
import { type CliCommand, databaseOf } from "./command";

/** `latchkey backup`: a consistent copy of the live database. */
export const backupCommand: CliCommand = {
  name: "backup",
  summary: "Copy the database while the service runs",
  help: `Usage: latchkey backup --db <url|path> --out <file>

Copy the database while the service runs. SQLite: the online backup API writes a consistent copy (a
SQLite file, which is itself a database: serve --db <file> starts on it). PostgreSQL: runs pg_dump
--format=custom (pg_dump of the server's version must be on PATH); restore with
pg_restore --no-owner --dbname <empty database url> <file>. Keep the master key apart from backups.

Options:
  --db <url|path>    The live database (as serve)
  --out <file>       Where the copy goes
  -h, --help         This help
`,
  async run(args) {
    const { values } = parseArgs({
      args,
      options: { db: { type: "string" }, out: { type: "string" } },
    });
    if (!values.out) throw new Error("backup needs --out <file>");
    const { backupDatabase } = await import("../backup/backupDatabase");
    const { kind } = await backupDatabase({ db: databaseOf(values.db), out: values.out });
    process.stdout.write(
      `Backup written to ${values.out} (${kind === "sqlite" ? "a SQLite database" : "pg_dump custom format"})\n`,
    );
    return 0;
  },
};

/** `latchkey verify-backup`: every sealed secret of a backup opens and every wallet re-derives. */
export const verifyBackupCommand: CliCommand = {
  name: "verify-backup",
  summary: "Check that a backup opens with the master key and its wallets re-derive",
  help: `Usage: latchkey verify-backup --db <url|path>

Check a backup (a SQLite copy, or a PostgreSQL database restored from a dump) with the master key
(LATCHKEY_MASTER_KEY or LATCHKEY_MASTER_KEY_FILE): every sealed secret opens (wallet mnemonics and keys,
TOTP secrets, service keys, OAuth client secrets), every wallet re-derives its stored EVM and Solana
accounts, and every user has a whole wallet. Prints counts and failures by row id, never a secret; exits
non-zero on any failure or a wrong master key. It only reads.

Options:
  --db <url|path>    The backup
  -h, --help         This help
`,
  run: verifyBackup,
};

async function verifyBackup(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { db: { type: "string" } } });
  if (!values.db) throw new Error("verify-backup needs --db <backup file or postgres:// url>");
  if (!isPostgresUrl(values.db) && !existsSync(values.db)) throw new Error(`No such backup: ${values.db}`);
  // The master key first (an HSM's: a wrong PIN or a missing key refuses here, before the backup is opened).
  let wrapper: Awaited<ReturnType<typeof loadKeyWrapper>>;
  try {
    wrapper = await loadKeyWrapper({ env: process.env, dev: false });
  } catch (err) {
    if (!(err instanceof KeyWrapperError)) throw err;
    process.stderr.write(`verify-backup: ${err.message}\n`);
    return 1;
  }
  const opened = openDatabase(values.db);
  const keyring = new Keyring(opened.db, wrapper);
  try {
    const { verifyBackup } = await import("../backup/verifyBackup");
    let result: Awaited<ReturnType<typeof verifyBackup>>;
    try {
      result = await verifyBackup({ db: opened.db, keyring });
    } catch (err) {
      process.stderr.write(`verify-backup: ${(err as Error).message}\n`);
      return 1;
    }
    const counts = Object.entries(result.checked).map(([kind, n]) => `${kind}: ${n}`);
    process.stdout.write(`Checked ${counts.join(", ")}\n`);
    for (const f of result.failures) process.stdout.write(`FAILED ${f.kind} ${f.id}: ${f.reason}\n`);
    process.stdout.write(result.failures.length ? `${result.failures.length} failure(s)\n` : "Backup OK\n");
    return result.failures.length ? 1 : 0;
  } finally {
    await opened.close();
    await keyring.close();
  }
}
