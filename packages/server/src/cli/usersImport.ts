import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import type { Random } from "../context";
import { type CliCommand, databaseOf, ENVIRONMENT } from "./command";

const DEFAULT_BATCH = 500;

/** `latchkey users import <file>`: users (and their wallets) from a JSON Lines file, idempotent and resumable. */
export const usersImportCommand: CliCommand = {
  name: "users import",
  summary: "Import users and their wallets from a JSON Lines file",
  help: `Usage: latchkey users import <users.jsonl> --app <id> [options]

Import users into an app before they sign in, one JSON object per line:

  {"email": "ada@example.com", "emailVerified": true, "externalId": "u_1"}
  {"externalId": "u_2", "wallet": {"mnemonic": "twelve or twenty-four words …"}}
  {"email": "bob@example.com", "emailVerified": false,
   "wallet": {"evmPrivateKey": "0x…", "solanaPrivateKey": "base58…"}}

Each line needs an email (with emailVerified) or an externalId, or both. A verified email is the user's
sign-in address: their first sign-in with it claims the user. An unverified one is contact data only
and signs nobody in. Without a wallet the user gets a new one (from the wallet reserve, when the service
keeps one); a mnemonic (12 or 24 words) becomes their wallet; an EVM or Solana private key becomes the
account of its chain. Key material is sealed with the master key as it is read; delete the file after.

Lines are written in batches, each in one transaction: stop it at any point and run it again, and the
users already there (same externalId, or same email) are skipped, never made twice. Progress goes to
stderr; refused lines are listed by number (never quoted). Exits 1 when a line was refused.

A wallet key is one user's: a line whose mnemonic or private key gives an account another user already
has (in any app, or on an earlier line) is refused (shared_key), since whoever holds either account could
spend from both. --allow-shared-keys makes such users anyway, each reported on its line.

Options:
  --app <id>           The app the users belong to (required)
  --db <url|path>      The database (as serve)
  --batch <n>          Lines per transaction (default ${DEFAULT_BATCH})
  --out <file>         Write one JSON line per input line: line, status (created, existing, duplicate,
                       conflict, shared_key, invalid), userId, address, solanaAddress, error, sharedKey
  --allow-shared-keys  Import a wallet key another user has too (each such line is reported)
  --dev                Use the dev master key (.latchkey/master.key), as serve --dev does
  -h, --help           This help

${ENVIRONMENT}`,
  helpTopic: "users import",
  run: usersImport,
};

async function usersImport(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      app: { type: "string" },
      db: { type: "string" },
      batch: { type: "string" },
      out: { type: "string" },
      dev: { type: "boolean" },
      "allow-shared-keys": { type: "boolean" },
    },
  });
  const file = positionals[0];
  if (!file || !values.app) throw new Error("users import needs a file and --app <id>");
  const batchSize = Number(values.batch ?? DEFAULT_BATCH);
  if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw new Error("--batch takes a whole number from 1 to 10000");
  const size = statSync(file).size;

  const [
    { loadKeyWrapper },
    { Keyring },
    db,
    { WalletDeriver },
    { WalletReserve },
    { importUserBatch },
    records,
  ] = await Promise.all([
    import("../crypto/keyWrap/loadKeyWrapper"),
    import("../crypto/keyring"),
    import("../db"),
    import("../crypto/walletPool"),
    import("../users/walletReserve"),
    import("../users/importUsers"),
    import("../users/importRecords"),
  ]);
  const env = process.env;
  const keyFile = env.LATCHKEY_MASTER_KEY_FILE ?? (values.dev ? join(".latchkey", "master.key") : undefined);
  const wrapper = await loadKeyWrapper({ env, dev: values.dev ?? false, ...(keyFile ? { keyFile } : {}) });
  const opened = db.openDatabase(databaseOf(values.db));
  const keyring = new Keyring(opened.db, wrapper);
  const wallets = new WalletDeriver();
  const out = values.out ? createWriteStream(values.out) : null;
  try {
    await db.migrate(opened.db);
    await keyring.init();
    const app = await opened.db
      .selectFrom("apps")
      .select("id")
      .where("id", "=", values.app)
      .executeTakeFirst();
    if (!app)
      throw new Error(`No app ${values.app} in this database (latchkey app create, or the config file)`);
    const random: Random = { uuid: randomUUID, bytes: randomBytes, int: (max) => randomInt(0, max) };
    const base = { db: opened.db, dbKind: opened.kind, keyring, random, now: Date.now, wallets };
    const ctx = { ...base, reserve: new WalletReserve(base, { target: 0 }) };

    const counts = { created: 0, existing: 0, duplicate: 0, conflict: 0, shared_key: 0, invalid: 0 };
    let fromReserve = 0;
    let derived = 0;
    let lineNumber = 0;
    let bytes = 0;
    const started = performance.now();
    const write = (o: object) => out?.write(`${JSON.stringify(o)}\n`);
    const report = (final = false) => {
      const seconds = (performance.now() - started) / 1000;
      const rate = Math.round((counts.created + counts.existing) / Math.max(seconds, 0.001));
      const line = `${counts.created} created, ${counts.existing} existing, ${counts.duplicate} duplicate, ${counts.conflict} conflict, ${counts.invalid} invalid, ${counts.shared_key} shared key`;
      if (final)
        process.stdout.write(
          `Imported ${file} into app ${values.app}: ${line} in ${seconds.toFixed(1)} s (${rate} users/s); ` +
            `new wallets: ${fromReserve} from the reserve, ${derived} derived\n`,
        );
      else
        process.stderr.write(
          `users import: line ${lineNumber} (${Math.floor((100 * bytes) / Math.max(size, 1))}%), ${line}, ${rate} users/s\n`,
        );
    };
    let batch: import("../users/importRecords").ImportRecord[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const result = await importUserBatch(ctx, {
        appId: values.app as string,
        records: batch,
        source: file,
        allowSharedKeys: values["allow-shared-keys"] ?? false,
      });
      batch = [];
      fromReserve += result.fromReserve;
      derived += result.derived;
      for (const o of result.outcomes) {
        counts[o.status] += 1;
        if (o.sharedKey)
          process.stderr.write(
            `line ${o.line}: created with a shared key (--allow-shared-keys): ${o.error}\n`,
          );
        else if (o.error) process.stderr.write(`line ${o.line}: ${o.status}: ${o.error}\n`);
        write(o);
      }
      report();
    };
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    for await (const text of lines) {
      lineNumber += 1;
      bytes += Buffer.byteLength(text) + 1;
      const read = records.readImportLine(text, lineNumber);
      if (!read) continue;
      if ("rejected" in read) {
        counts.invalid += 1;
        process.stderr.write(`line ${lineNumber}: invalid: ${read.rejected.error}\n`);
        write({ line: lineNumber, status: "invalid", error: read.rejected.error });
        continue;
      }
      batch.push(read.record);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    report(true);
    return counts.invalid + counts.conflict + counts.shared_key > 0 ? 1 : 0;
  } finally {
    await new Promise<void>((resolve) => (out ? out.end(resolve) : resolve()));
    await wallets.close();
    await opened.close();
    await keyring.close();
  }
}
