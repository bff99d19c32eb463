/**
 * A grant's caps hold across instances: two `latchkey serve` processes share one database (a SQLite file,
 * or PostgreSQL), and 16 backend requests sent to both at once under a grant of 3 operations sign exactly
 * 3; under a daily value cap, exactly as many as fit. Revoking at one refuses at the other at once.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BackendApiError, createBackendClient } from "@latchkey/backend";
import {
  createGrant,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  revokeGrant,
  type Signer,
} from "@latchkey/core";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, openDatabase } from "../src/db";
import { codeFrom, freshDatabase, type Instance, type Smtp, serve, startSmtp, stop } from "./helpers";

const API_KEY = "lk_grant_instances_0123456789abcdef";
const SERVER_KEY = generateP256PrivateKey();
const CHAIN = 31337;
const TO = "0x1111111111111111111111111111111111111111";

describe.each(["sqlite", "postgres"] as const)("a grant used at two processes on one %s database", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let smtp: Smtp;
  let a: Instance;
  let b: Instance;
  let db: Db;
  let close: () => Promise<void>;
  let alice: Signer;
  let userId: string;

  beforeAll(async () => {
    database = await freshDatabase(kind);
    smtp = await startSmtp();
    const dir = mkdtempSync(join(tmpdir(), "latchkey-grants-"));
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        apps: [
          {
            id: "grants",
            name: "Grants",
            apiKeys: [API_KEY],
            emailMode: "OTP",
            serverKeys: [{ name: "bot", publicKey: toHex(p256PublicKeyFromPrivate(SERVER_KEY, true)) }],
          },
        ],
      }),
    );
    const env = { ...process.env, LATCHKEY_MASTER_KEY: "55".repeat(32), LATCHKEY_SMTP_URL: smtp.url };
    const args = ["--db", database.url, "--config", config];
    a = await serve(args, env, dir);
    b = await serve(args, env, dir);
    ({ db, close } = openDatabase(database.url));
    alice = createSigner({
      baseUrl: a.url,
      apiKey: API_KEY,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    const email = `alice-${kind}@instances.test`;
    const before = smtp.mails.length;
    await alice.authenticate({ type: "email", email, emailMode: "otp" });
    await alice.authenticate({ type: "otp", otpCode: codeFrom((await smtp.waitFor(email, before)).raw) });
    userId = (alice.store.getState().user as { userId: string }).userId;
  }, 150_000);

  afterAll(async () => {
    await stop(a?.child);
    await stop(b?.child);
    await close?.();
    await smtp?.close();
    await database?.drop();
  });

  const clients = () =>
    [a, b].map((i) => createBackendClient({ url: i.url, appId: "grants", serverKey: SERVER_KEY }));

  /** 16 requests at once, alternating between the two processes: how many signed, and the refusals' codes. */
  async function race(run: (client: ReturnType<typeof createBackendClient>, i: number) => Promise<unknown>) {
    const [atA, atB] = clients();
    const settled = await Promise.allSettled(
      Array.from({ length: 16 }, (_, i) =>
        run((i % 2 === 0 ? atA : atB) as ReturnType<typeof createBackendClient>, i),
      ),
    );
    const refused = settled.flatMap((s) => (s.status === "rejected" ? [s.reason] : []));
    for (const r of refused) expect(r).toBeInstanceOf(BackendApiError);
    return {
      signed: settled.filter((s) => s.status === "fulfilled").length,
      codes: [...new Set(refused.map((r: BackendApiError) => `${r.code}:${String(r.data?.limit)}`))],
    };
  }

  it("16 concurrent requests against a cap of 3 operations sign exactly 3", async () => {
    const grant = await createGrant(alice, {
      chainIds: [CHAIN],
      messages: true,
      maxOperations: 3,
      expiresAt: Date.now() + 3600_000,
    });
    const outcome = await race((c, i) =>
      c.signMessage({ userId, grantId: grant.grantId, message: `tick ${i}` }),
    );
    expect(outcome).toEqual({ signed: 3, codes: ["GRANT_LIMIT_EXCEEDED:maxOperations"] });
    const row = await db
      .selectFrom("grants")
      .select("operations_used")
      .where("id", "=", grant.grantId)
      .executeTakeFirstOrThrow();
    expect(Number(row.operations_used)).toBe(3);
    const done = await db
      .selectFrom("activities")
      .select("id")
      .where("grant_id", "=", grant.grantId)
      .where("status", "=", "ACTIVITY_STATUS_COMPLETED")
      .execute();
    expect(done).toHaveLength(3);
  }, 60_000);

  it("16 concurrent transfers against a daily cap move no more than it", async () => {
    const grant = await createGrant(alice, {
      chainIds: [CHAIN],
      contracts: [TO],
      valuePerTransaction: "400",
      valuePerDay: "1000",
      expiresAt: Date.now() + 3600_000,
    });
    const outcome = await race((c, i) =>
      c.signTransaction({
        userId,
        grantId: grant.grantId,
        transaction: {
          chainId: CHAIN,
          to: TO,
          value: 400n,
          nonce: i,
          gas: 21_000n,
          maxFeePerGas: 10n ** 9n,
          maxPriorityFeePerGas: 1n,
        },
      }),
    );
    expect(outcome).toEqual({ signed: 2, codes: ["GRANT_LIMIT_EXCEEDED:valuePerDay"] });
    const row = await db
      .selectFrom("grants")
      .select("value_spent")
      .where("id", "=", grant.grantId)
      .executeTakeFirstOrThrow();
    expect(row.value_spent).toBe("800");
  }, 60_000);

  it("a grant revoked at one process refuses at the other at once", async () => {
    const grant = await createGrant(alice, {
      chainIds: [CHAIN],
      messages: true,
      expiresAt: Date.now() + 3600_000,
    });
    const [, atB] = clients();
    await atB?.signMessage({ userId, grantId: grant.grantId, message: "before" });
    await revokeGrant(alice, { grantId: grant.grantId });
    await expect(
      atB?.signMessage({ userId, grantId: grant.grantId, message: "after" }),
    ).rejects.toMatchObject({
      code: "GRANT_REVOKED",
    });
  });
});
