/**
 * `latchkey users import` (issue 38): users from a JSON Lines file, with or without key material (sealed as
 * it is read), wallets from the reserve while it has them; idempotent (a second run makes nobody twice) and
 * resumable (killed mid-way, nothing is half-written, and a second run finishes the file). The real CLI in
 * its own process, on SQLite and PostgreSQL. Its rate is measured by bench/users-import.ts, not here.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBackup } from "../src/backup/verifyBackup";
import { Keyring } from "../src/crypto/keyring";
import { LocalKeyWrapper } from "../src/crypto/keyWrap/localKey";
import { deriveAccounts, entropyToMnemonic } from "../src/crypto/wallet";
import { WalletDeriver } from "../src/crypto/walletPool";
import { openDatabase } from "../src/db";
import { WalletReserve } from "../src/users/walletReserve";
import { freshDatabase, stop } from "./helpers";
import { LATCHKEY_BIN as BIN, latchkey as latchkeyHere } from "./helpers/latchkey";
import { waitForLine } from "./helpers/waitForLine";

describe.each(["sqlite", "postgres"] as const)("latchkey users import (%s)", (kind) => {
  const masterKey = randomBytes(32);
  const env = {
    ...process.env,
    LATCHKEY_MASTER_KEY: masterKey.toString("hex"),
    LATCHKEY_MASTER_KEY_FILE: "",
  };
  const dir = mkdtempSync(join(tmpdir(), "latchkey-import-"));
  let database: Awaited<ReturnType<typeof freshDatabase>>;

  /** `latchkey <args>` in this process with `env`: exit code and output, never throwing. */
  const latchkey = (args: string[]) => latchkeyHere(args, { env });

  /** The database and its keys, opened in this process (for the reserve, and to look at what was written). */
  async function open<T>(use: (opened: ReturnType<typeof openDatabase>, keyring: Keyring) => Promise<T>) {
    const opened = openDatabase(database.url);
    const keyring = new Keyring(opened.db, new LocalKeyWrapper(masterKey));
    try {
      await keyring.init();
      return await use(opened, keyring);
    } finally {
      await opened.close();
      await keyring.close();
    }
  }

  beforeAll(async () => {
    database = await freshDatabase(kind);
    for (const id of ["shop", "crash"]) {
      const made = await latchkey(["app", "create", "--db", database.url, "--id", id, "--name", id]);
      expect(made.code, made.stderr).toBe(0);
    }
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
  });

  const outcomes = (file: string) =>
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            line: number;
            status: string;
            userId?: string;
            address?: string;
            solanaAddress?: string;
            error?: string;
            sharedKey?: true;
          },
      );

  it("imports users with and without key material, takes wallets from the reserve, and runs again without duplicates", async () => {
    const mnemonic = entropyToMnemonic(randomBytes(32));
    const evmKey = `0x${randomBytes(32).toString("hex")}` as const;
    const seed = randomBytes(32);
    const solanaKey = base58.encode(Buffer.concat([seed, ed25519.getPublicKey(seed)]));
    const lines = [
      ...Array.from({ length: 40 }, (_, i) =>
        JSON.stringify({ email: `user${i}-${kind}@example.com`, emailVerified: true }),
      ),
      JSON.stringify({ externalId: "crm-1", email: "contact@example.com", emailVerified: false }),
      JSON.stringify({ externalId: "crm-2", wallet: { mnemonic } }),
      JSON.stringify({
        email: "keys@example.com",
        emailVerified: true,
        wallet: { evmPrivateKey: evmKey, solanaPrivateKey: solanaKey },
      }),
      "",
      "{not json",
      JSON.stringify({ email: "user0-x@example.com" }),
      JSON.stringify({ externalId: "bad", wallet: { mnemonic: "abandon abandon abandon" } }),
      JSON.stringify({ email: `user39-${kind}@example.com`, emailVerified: true }),
    ];
    const file = join(dir, `users-${kind}.jsonl`);
    writeFileSync(file, `${lines.join("\n")}\n`);
    // 30 wallets ready: the rest of the 42 users without a phrase get theirs derived.
    await open(async (opened, keyring) => {
      const wallets = new WalletDeriver();
      const reserve = new WalletReserve(
        {
          db: opened.db,
          dbKind: opened.kind,
          keyring,
          random: { uuid: () => crypto.randomUUID(), bytes: randomBytes, int: () => 0 },
          now: Date.now,
          wallets,
        },
        { target: 0 },
      );
      await reserve.fill(30);
      await wallets.close();
    });

    const out = join(dir, `out-${kind}.jsonl`);
    const first = await latchkey([
      "users",
      "import",
      file,
      "--app",
      "shop",
      "--db",
      database.url,
      "--batch",
      "16",
      "--out",
      out,
    ]);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toContain("43 created, 0 existing, 1 duplicate, 0 conflict, 3 invalid");
    expect(first.stdout).toContain("new wallets: 30 from the reserve, 12 derived");
    expect(first.stderr).toMatch(/users import: line 16 \(\d+%\), 16 created/);
    expect(first.stderr).toContain("line 45: invalid: not a JSON object");
    expect(first.stderr).toContain("line 46: invalid: email: say whether it is verified");
    expect(first.stderr).toContain(
      "line 47: invalid: wallet.mnemonic: not a 12- or 24-word BIP-39 recovery phrase",
    );
    expect(first.stderr).toContain("line 48: duplicate: the same user as line 40");
    // Refused lines are never quoted: no key material in the output.
    expect(first.stderr + first.stdout).not.toContain("abandon");
    const results = outcomes(out);
    expect(results.map((r) => r.status).filter((s) => s === "created")).toHaveLength(43);
    const byLine = new Map(results.map((r) => [r.line, r]));
    const [evm, sol] = deriveAccounts(mnemonic);
    expect(byLine.get(42)).toMatchObject({
      status: "created",
      address: evm?.address,
      solanaAddress: sol?.address,
    });
    expect(byLine.get(43)).toMatchObject({
      status: "created",
      address: privateKeyToAddress(evmKey),
      solanaAddress: base58.encode(ed25519.getPublicKey(seed)),
    });

    await open(async (opened, keyring) => {
      const users = await opened.db.selectFrom("users").selectAll().where("app_id", "=", "shop").execute();
      expect(users).toHaveLength(43);
      const contact = users.find((u) => u.external_id === "crm-1");
      expect(contact).toMatchObject({ email: null, unverified_email: "contact@example.com" });
      expect(users.every((u) => u.pregenerated_at != null && u.claimed_at == null)).toBe(true);
      expect(await opened.db.selectFrom("wallet_reserve").select("id").execute()).toHaveLength(0);
      // Sealed, and whole: every wallet re-derives, every imported key gives its address, every user has one.
      const checked = await verifyBackup({ db: opened.db, keyring });
      expect(checked.failures).toEqual([]);
      const sealed = await opened.db.selectFrom("wallets").select("sealed_mnemonic").execute();
      // Not the phrase in clear (one short word alone can occur in sealed text by chance: CI saw it).
      expect(sealed.some((w) => w.sealed_mnemonic.includes(mnemonic))).toBe(false);
    });

    const second = await latchkey([
      "users",
      "import",
      file,
      "--app",
      "shop",
      "--db",
      database.url,
      "--out",
      out,
    ]);
    expect(second.stdout).toContain("0 created, 43 existing, 1 duplicate, 0 conflict, 3 invalid");
    const again = new Map(outcomes(out).map((r) => [r.line, r]));
    for (const [line, r] of byLine)
      if (r.status === "created") expect(again.get(line)).toEqual({ ...r, status: "existing" });
    await open(async (opened) => {
      expect(
        await opened.db.selectFrom("users").select("id").where("app_id", "=", "shop").execute(),
      ).toHaveLength(43);
    });
  }, 120_000);

  it("refuses a key another user holds (an earlier line's, or another app's user) unless --allow-shared-keys", async () => {
    const second = await latchkey([
      "app",
      "create",
      "--db",
      database.url,
      "--id",
      "second",
      "--name",
      "second",
    ]);
    expect(second.code, second.stderr).toBe(0);
    const key = `0x${randomBytes(32).toString("hex")}` as const;
    const address = privateKeyToAddress(key);
    const line = (externalId: string) => JSON.stringify({ externalId, wallet: { evmPrivateKey: key } });
    const run = async (app: string, lines: string[], extra: string[] = []) => {
      const file = join(dir, `shared-${app}-${kind}-${randomBytes(3).toString("hex")}.jsonl`);
      writeFileSync(file, `${lines.join("\n")}\n`);
      const out = `${file}.out`;
      const r = await latchkey([
        "users",
        "import",
        file,
        "--app",
        app,
        "--db",
        database.url,
        "--out",
        out,
        ...extra,
      ]);
      return { ...r, results: outcomes(out) };
    };

    // Two lines of one file with one key: the first is made, the second refused.
    const first = await run("shop", [line("shared-1"), line("shared-2")]);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stdout).toContain("1 created, 0 existing, 0 duplicate, 0 conflict, 0 invalid, 1 shared key");
    expect(first.stderr).toContain("line 2: shared_key: a key of its wallet is line 1's too");
    expect(first.results.map((r) => [r.line, r.status, r.address])).toEqual([
      [1, "created", address],
      [2, "shared_key", undefined],
    ]);
    // Another app's user with the same key: refused too, and nothing is written.
    const other = await run("second", [line("elsewhere")]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("line 1: shared_key: a key of its wallet is already another user's");
    expect(other.stderr + other.stdout).not.toContain(key.slice(2));
    // With the flag it is made, and the line says so.
    const allowed = await run("second", [line("elsewhere")], ["--allow-shared-keys"]);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain(
      "line 1: created with a shared key (--allow-shared-keys): a key of its wallet is already another user's",
    );
    expect(allowed.results).toEqual([
      expect.objectContaining({ line: 1, status: "created", address, sharedKey: true }),
    ]);
    await open(async (opened) => {
      const holders = await opened.db
        .selectFrom("wallet_accounts")
        .select("org_id")
        .where("address_key", "=", address.toLowerCase())
        .execute();
      expect(holders).toHaveLength(2);
    });
  }, 120_000);

  it("killed mid-way, nothing is half-written; run again, it finishes and makes nobody twice", async () => {
    const total = 400;
    const file = join(dir, `crash-${kind}.jsonl`);
    writeFileSync(
      file,
      Array.from({ length: total }, (_, i) =>
        JSON.stringify({ externalId: `c${i}`, email: `crash${i}-${kind}@example.com`, emailVerified: true }),
      ).join("\n"),
    );
    // No reserve: every wallet is derived, slowly enough to stop the import after its first batches.
    const child = spawn(
      process.execPath,
      [BIN, "users", "import", file, "--app", "crash", "--db", database.url, "--batch", "40"],
      { env },
    );
    try {
      await waitForLine(child, /users import: line 80 /, 60_000);
    } finally {
      await stop(child, "SIGKILL");
    }
    const written = await open(async (opened, keyring) => {
      const users = await opened.db.selectFrom("users").select("id").where("app_id", "=", "crash").execute();
      expect((await verifyBackup({ db: opened.db, keyring })).failures).toEqual([]);
      return users.length;
    });
    expect(written).toBeGreaterThanOrEqual(80);
    expect(written).toBeLessThan(total);
    expect(written % 40).toBe(0);

    const rerun = await latchkey([
      "users",
      "import",
      file,
      "--app",
      "crash",
      "--db",
      database.url,
      "--batch",
      "200",
    ]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(
      `${total - written} created, ${written} existing, 0 duplicate, 0 conflict, 0 invalid`,
    );
    await open(async (opened, keyring) => {
      const users = await opened.db
        .selectFrom("users")
        .select(["external_id"])
        .where("app_id", "=", "crash")
        .execute();
      expect(users).toHaveLength(total);
      expect(new Set(users.map((u) => u.external_id)).size).toBe(total);
      expect((await verifyBackup({ db: opened.db, keyring })).failures).toEqual([]);
    });
  }, 180_000);
});
