/**
 * The wallet reserve across processes and crashes: two `latchkey serve` processes share one database
 * (a SQLite file, or PostgreSQL) and one reserve. Sign-ups at both at once never take the same wallet,
 * and a process killed with SIGKILL mid-sign-up loses no reserved wallet: each is still in the reserve
 * or has exactly one owner with its whole wallet, while the other process keeps serving.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../src/db";
import { freshDatabase, type Instance, post, type Smtp, serve, startSmtp, stop, targetKey } from "./helpers";

const API_KEY = "lk_reserve_key_0123456789abcdef";
const KEY = { authorization: `Bearer ${API_KEY}` };
const RESERVE = 60;

describe.each(["sqlite", "postgres"] as const)("a wallet reserve shared by two processes on %s", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let smtp: Smtp;
  let a: Instance;
  let b: Instance;
  let db: Db;
  let close: () => Promise<void>;

  beforeAll(async () => {
    database = await freshDatabase(kind);
    smtp = await startSmtp();
    const dir = mkdtempSync(join(tmpdir(), "latchkey-reserve-"));
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        walletReserve: RESERVE,
        rateLimits: { signupsPerIp: 10_000, mailsPerIp: 10_000 },
        apps: [{ id: "reserve", name: "Reserve", apiKeys: [API_KEY], emailMode: "OTP" }],
      }),
    );
    const env = { ...process.env, LATCHKEY_MASTER_KEY: "44".repeat(32), LATCHKEY_SMTP_URL: smtp.url };
    const args = ["--db", database.url, "--config", config];
    a = await serve(args, env, dir);
    b = await serve(args, env, dir);
    ({ db, close } = openDatabase(database.url));
  }, 150_000);

  afterAll(async () => {
    await stop(a?.child);
    await stop(b?.child);
    await close?.();
    await smtp?.close();
    await database?.drop();
  });

  const reserveIds = async () =>
    new Set((await db.selectFrom("wallet_reserve").select("id").execute()).map((r) => r.id));

  it("sign-ups at both never share a wallet; SIGKILL mid-sign-up loses none; the other serves on", async () => {
    await expect
      .poll(async () => (await reserveIds()).size, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(RESERVE);
    const snapshot = await reserveIds();

    const signUp = (at: Instance, email: string) =>
      post(at.url, "/signer/v1/signup", { email, targetPublicKey: targetKey().publicKey }, KEY).catch(() => ({
        status: 0,
        json: {} as Record<string, unknown>,
      }));
    const atA = Array.from({ length: 80 }, (_, i) => `a-${i}@example.com`);
    const atB = Array.from({ length: 30 }, (_, i) => `b-${i}@example.com`);
    const fromA = atA.map((email) => signUp(a, email));
    const fromB = atB.map((email) => signUp(b, email));
    // Killed once its first sign-ups have committed, while others are in their transactions.
    await expect
      .poll(
        async () =>
          (await db.selectFrom("users").select("id").where("email", "like", "a-%").execute()).length,
        { timeout: 20_000, interval: 2 },
      )
      .toBeGreaterThan(0);
    await stop(a.child, "SIGKILL");
    const answersA = await Promise.all(fromA);
    const answersB = await Promise.all(fromB);
    expect(answersA.some((r) => r.status === 0)).toBe(true);
    for (const r of answersB) expect(r.status, JSON.stringify(r.json)).toBe(200);

    // Every user that exists has its whole wallet, and no two users share one.
    const users = await db.selectFrom("users").select(["id", "email"]).execute();
    const wallets = await db.selectFrom("wallets").select(["id", "user_id"]).execute();
    const accounts = await db.selectFrom("wallet_accounts").select(["wallet_id", "address"]).execute();
    expect(wallets).toHaveLength(users.length);
    expect(new Set(wallets.map((w) => w.user_id)).size).toBe(users.length);
    expect(new Set(accounts.map((x) => x.address)).size).toBe(accounts.length);
    for (const w of wallets) expect(accounts.filter((x) => x.wallet_id === w.id)).toHaveLength(2);
    const stored = new Set(users.map((u) => u.email));
    atA.forEach((email, i) => {
      if (answersA[i]?.status === 200) expect(stored.has(email), email).toBe(true);
    });
    for (const email of atB) expect(stored.has(email), email).toBe(true);

    // Every wallet the reserve held is still there or belongs to exactly one user.
    const left = await reserveIds();
    const owners = new Map<string, number>();
    for (const w of wallets) owners.set(w.id, (owners.get(w.id) ?? 0) + 1);
    const lost = [...snapshot].filter((id) => !left.has(id) && owners.get(id) !== 1);
    expect(lost).toEqual([]);
    // Both processes took wallets from the reserve.
    const userOf = new Map(users.map((u) => [u.id, u.email]));
    const fromReserve = wallets.filter((w) => snapshot.has(w.id)).map((w) => userOf.get(w.user_id) ?? "");
    expect(fromReserve.some((email) => email.startsWith("a-"))).toBe(true);
    expect(fromReserve.some((email) => email.startsWith("b-"))).toBe(true);

    // The surviving process serves the sign-ups the killed one never finished.
    const unfinished = atA.find((email) => !stored.has(email)) ?? "after-kill@example.com";
    expect((await signUp(b, unfinished)).status).toBe(200);
  });
});
