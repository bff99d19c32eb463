/**
 * `latchkey users import` (issue 38): users per second from a JSON Lines file, with the wallet reserve
 * filled beforehand (each new user's wallet comes out of it, in the batch's transaction), on SQLite and/or
 * PostgreSQL. Also the same file again (every user already there: the idempotent pass), and users who bring
 * a recovery phrase (derived as they arrive: no reserve helps). The CLI runs as operators run it, in its
 * own process; the rate is the command's own (from its first line read to its last commit), and the wall
 * clock with the process's start-up beside it. Target: ≥ 1,000 users/s with the reserve.
 *
 *   npm run bench:users-import                      # 10,000 users on SQLite
 *   npm run bench:users-import -- --db=sqlite,postgres --scale=0.2
 */
import { execFile } from "node:child_process";
import { randomBytes, randomInt, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Keyring } from "../packages/server/src/crypto/keyring";
import { LocalKeyWrapper } from "../packages/server/src/crypto/keyWrap/localKey";
import { entropyToMnemonic } from "../packages/server/src/crypto/wallet";
import { WalletDeriver } from "../packages/server/src/crypto/walletPool";
import { migrate, openDatabase } from "../packages/server/src/db";
import { WalletReserve } from "../packages/server/src/users/walletReserve";
import { dbArg, scaleArg } from "./lib/args";
import { type BenchDatabase, createBenchDatabase, dropBenchDatabase } from "./lib/databases";
import { REPO_ROOT } from "./lib/paths";
import { describeMachine, finishBench, machineInfo, round, runBench } from "./lib/report";

const BIN = join(REPO_ROOT, "packages/server/bin/latchkey.js");
const TARGET_USERS_PER_SECOND = 1000;
const BATCH = 500;

interface ImportRun {
  users: number;
  created: number;
  existing: number;
  /** The command's own rate: its final line (first line read → last commit). */
  usersPerSecond: number;
  /** Wall clock of the whole process (start-up, migrations, key loading included). */
  wallSeconds: number;
  fromReserve: number;
  derived: number;
}

async function latchkey(args: string[], env: NodeJS.ProcessEnv) {
  const started = performance.now();
  const { stdout } = await promisify(execFile)(process.execPath, [BIN, ...args], {
    env,
    cwd: REPO_ROOT,
    maxBuffer: 256 * 1024 * 1024,
  });
  return { stdout, seconds: (performance.now() - started) / 1000 };
}

/** The figures of the command's last line: "…: 9990 created, 10 existing, … (1234 users/s); new wallets: …". */
function parseSummary(stdout: string, users: number, wallSeconds: number): ImportRun {
  const n = (re: RegExp) => Number(re.exec(stdout)?.[1] ?? Number.NaN);
  return {
    users,
    created: n(/(\d+) created/),
    existing: n(/(\d+) existing/),
    usersPerSecond: n(/\((\d+) users\/s\)/),
    wallSeconds: round(wallSeconds, 2),
    fromReserve: n(/(\d+) from the reserve/),
    derived: n(/(\d+) derived/),
  };
}

async function fillReserve(url: string, masterKey: Buffer, wallets: number): Promise<{ seconds: number }> {
  const opened = openDatabase(url);
  const keyring = new Keyring(opened.db, new LocalKeyWrapper(masterKey));
  const deriver = new WalletDeriver();
  try {
    await migrate(opened.db);
    await keyring.init();
    const random = { uuid: randomUUID, bytes: randomBytes, int: (max: number) => randomInt(0, max) };
    const reserve = new WalletReserve(
      { db: opened.db, dbKind: opened.kind, keyring, random, now: Date.now, wallets: deriver },
      { target: 0 },
    );
    const started = performance.now();
    for (let left = wallets; left > 0; left -= 256) await reserve.fill(Math.min(256, left));
    return { seconds: (performance.now() - started) / 1000 };
  } finally {
    await deriver.close();
    await opened.close();
    await keyring.close();
  }
}

async function benchOn(database: BenchDatabase, users: number, phraseUsers: number) {
  const dir = mkdtempSync(join(tmpdir(), "latchkey-bench-import-"));
  const pg = database === "postgres" ? await createBenchDatabase() : null;
  const url = pg?.url ?? join(dir, "latchkey.db");
  const masterKey = randomBytes(32);
  const env = {
    ...process.env,
    LATCHKEY_MASTER_KEY: masterKey.toString("hex"),
    LATCHKEY_MASTER_KEY_FILE: "",
  };
  try {
    await latchkey(["app", "create", "--db", url, "--id", "bench", "--name", "Bench"], env);
    process.stdout.write(`[${database}] filling the wallet reserve with ${users} wallets…\n`);
    const fill = await fillReserve(url, masterKey, users);
    const file = join(dir, "users.jsonl");
    writeFileSync(
      file,
      `${Array.from({ length: users }, (_, i) =>
        JSON.stringify({ email: `user${i}@bench.test`, emailVerified: true, externalId: `u${i}` }),
      ).join("\n")}\n`,
    );
    const args = ["users", "import", file, "--app", "bench", "--db", url, "--batch", String(BATCH)];
    process.stdout.write(`[${database}] importing ${users} users…\n`);
    const first = await latchkey(args, env);
    const withReserve = parseSummary(first.stdout, users, first.seconds);
    const again = await latchkey(args, env);
    const rerun = parseSummary(again.stdout, users, again.seconds);

    const phrases = join(dir, "phrases.jsonl");
    writeFileSync(
      phrases,
      `${Array.from({ length: phraseUsers }, (_, i) =>
        JSON.stringify({ externalId: `p${i}`, wallet: { mnemonic: entropyToMnemonic(randomBytes(16)) } }),
      ).join("\n")}\n`,
    );
    process.stdout.write(`[${database}] importing ${phraseUsers} users with their recovery phrases…\n`);
    const third = await latchkey(["users", "import", phrases, "--app", "bench", "--db", url], env);
    const withPhrases = parseSummary(third.stdout, phraseUsers, third.seconds);
    return {
      database,
      reserveFill: {
        wallets: users,
        seconds: round(fill.seconds, 1),
        walletsPerSecond: Math.round(users / fill.seconds),
      },
      withReserve,
      rerun,
      withPhrases,
      target: {
        usersPerSecond: TARGET_USERS_PER_SECOND,
        met: withReserve.usersPerSecond >= TARGET_USERS_PER_SECOND && withReserve.created === users,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (pg) await dropBenchDatabase(pg.name);
  }
}

runBench(async () => {
  const scale = scaleArg();
  const users = Math.max(100, Math.round(10_000 * scale));
  const phraseUsers = Math.max(20, Math.round(1_000 * scale));
  const machine = machineInfo();
  process.stdout.write(`users-import: ${describeMachine(machine)}\n`);
  const results = [];
  for (const database of dbArg()) {
    const r = await benchOn(database, users, phraseUsers);
    results.push(r);
    process.stdout.write(
      `[${database}] with the reserve: ${r.withReserve.usersPerSecond} users/s (${r.withReserve.created} created, ` +
        `${r.withReserve.fromReserve} wallets from the reserve; process ${r.withReserve.wallSeconds} s) — target ` +
        `${TARGET_USERS_PER_SECOND}/s ${r.target.met ? "MET" : "MISSED"}\n` +
        `[${database}] again (all existing): ${r.rerun.usersPerSecond} users/s; with recovery phrases: ` +
        `${r.withPhrases.usersPerSecond} users/s; reserve filled at ${r.reserveFill.walletsPerSecond} wallets/s\n`,
    );
  }
  finishBench(
    "users-import.json",
    { date: new Date().toISOString(), machine, batch: BATCH, results },
    undefined,
  );
});
