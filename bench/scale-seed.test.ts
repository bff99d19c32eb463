/**
 * The scale benchmark's filler rows (bench/lib/scaleSeed.ts, scaleStore.ts) are the service's rows: a
 * filler user signs in by email through the real service and the admin API finds them by email and by
 * address; a user made through the service still signs after the load and owns its share of the
 * activities; sealed blobs, keys and addresses have the real rows' formats and lengths; the secondary
 * indexes dropped for the load are all back. SQLite and PostgreSQL, at a tiny size.
 */
import { base58 } from "@scure/base";
import { getAddress, recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "../packages/protocol/src/index";
import type { AppConfig } from "../packages/server/src/config";
import type { Db } from "../packages/server/src/db";
import {
  codeFrom,
  type EmailUser,
  type Harness,
  PG_ADMIN_URL,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startHarness,
  targetKey,
} from "../packages/server/test/helpers";
import { AdminClient } from "../packages/server/test/helpers/adminClient";
import { fillerUser, type SeedPlan, STEADY_SPANS, seedChunks } from "./lib/scaleSeed";
import { postgresWriter, sqliteWriter } from "./lib/scaleStore";

const ADMIN_KEY = generateP256PrivateKey();
const APP = {
  id: "scale",
  name: "Scale",
  apiKeys: ["lk_scale_test_0123456789abcdef"],
  allowedOrigins: ["http://scale.test"],
  signingPolicy: {
    rawPayloads: "allow",
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
} satisfies AppConfig;
const KEY = { authorization: `Bearer ${APP.apiKeys[0]}` };
const FILLERS = 120;
const ACTIVITIES = 1_210;

async function indexNames(db: Db, kind: "sqlite" | "postgres"): Promise<string[]> {
  const q =
    kind === "sqlite"
      ? "SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name"
      : "SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname";
  const { sql } = await import("kysely");
  return (await sql.raw<{ name: string }>(q).execute(db)).rows.map((r) => r.name);
}

describe.each(["sqlite", "postgres"] as const)("scale seeder (%s)", (kind) => {
  let h: Harness;
  let db: Db;
  let real: EmailUser;
  let plan: SeedPlan;
  let indexesBefore: string[];
  let admin: AdminClient;

  beforeAll(async () => {
    h = await startHarness(kind, { apps: [APP] });
    db = h.service.ctx.db;
    real = await signUpByEmail(h, `real-${kind}@scale.example.com`, KEY);
    const key = await db
      .selectFrom("data_keys")
      .select("id")
      .where("active", "=", 1)
      .executeTakeFirstOrThrow();
    plan = {
      seed: `t${kind}`,
      appId: APP.id,
      dataKeyId: key.id,
      from: 0,
      to: FILLERS,
      activities: ACTIVITIES,
      realOwners: [{ userId: real.userId, orgId: real.orgId, address: real.address }],
      now: Date.now(),
      spans: STEADY_SPANS,
      policyId: "pol",
      chainId: 1,
    };
    indexesBefore = await indexNames(db, kind);
    const writer =
      kind === "sqlite" ? sqliteWriter(await sqliteFile(db)) : await postgresWriter(await postgresUrl(db));
    for (const chunk of seedChunks(plan, 50)) await writer.write(chunk);
    await writer.close();
    const org = await db
      .selectFrom("apps")
      .select("org_id")
      .where("id", "=", APP.id)
      .executeTakeFirstOrThrow();
    admin = new AdminClient(h.url, org.org_id, ADMIN_KEY);
  });
  afterAll(async () => {
    await h?.close();
  });

  it("adds the planned rows and puts every dropped index back", async () => {
    const count = async (
      table: "users" | "wallets" | "wallet_accounts" | "activities" | "otps" | "api_keys",
    ) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count("users")).toBe(FILLERS + 1);
    expect(await count("wallets")).toBe(FILLERS + 1);
    expect(await count("wallet_accounts")).toBe(2 * (FILLERS + 1));
    expect(await count("activities")).toBe(ACTIVITIES);
    expect(await count("otps")).toBe(FILLERS + 1);
    expect(await count("api_keys")).toBe(FILLERS + 1);
    // The real user owns its share of the activities: 1,210 over 121 owners.
    const mine = await db.selectFrom("activities").select("id").where("user_id", "=", real.userId).execute();
    expect(mine).toHaveLength(ACTIVITIES / (FILLERS + 1));
    expect(await indexNames(db, kind)).toEqual(indexesBefore);
  });

  it("writes sealed blobs, keys and addresses in the real rows' formats and lengths", async () => {
    const accounts = await db.selectFrom("wallet_accounts").selectAll().execute();
    const realEvm = accounts.find((a) => a.org_id === real.orgId && a.curve === "CURVE_SECP256K1");
    const realSol = accounts.find((a) => a.org_id === real.orgId && a.curve === "CURVE_ED25519");
    expect(realEvm && realSol).toBeTruthy();
    for (const a of accounts) {
      const model = a.curve === "CURVE_SECP256K1" ? realEvm : realSol;
      expect(a.sealed_private_key.length).toBe(model?.sealed_private_key.length);
      expect(a.sealed_private_key.split(".").slice(0, 2)).toEqual(
        model?.sealed_private_key.split(".").slice(0, 2),
      );
      expect(a.public_key.length).toBe(model?.public_key.length);
      expect(a.path).toBe(model?.path);
      if (a.curve === "CURVE_SECP256K1") {
        expect(getAddress(a.address)).toBe(a.address);
        expect(a.address_key).toBe(a.address.toLowerCase());
      } else {
        expect(Buffer.from(base58.decode(a.address)).toString("hex")).toBe(a.public_key);
        expect(a.address_key).toBe(a.address);
      }
    }
    const wallets = await db.selectFrom("wallets").select(["sealed_mnemonic"]).execute();
    for (const w of wallets) expect(w.sealed_mnemonic).toMatch(/^v1\.[\w-]+\.[\w-]{100,200}$/);
    const keys = await db.selectFrom("api_keys").select(["public_key", "kind"]).execute();
    for (const k of keys) {
      expect(k.public_key).toMatch(/^0[23][0-9a-f]{64}$/);
      expect(k.kind).toBe("session");
    }
    const acts = await db
      .selectFrom("activities")
      .select(["intent", "result", "fingerprint"])
      .limit(50)
      .execute();
    for (const x of acts) {
      expect(x.fingerprint).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.parse(x.intent).signRawPayloadIntentV2.encoding).toBe("PAYLOAD_ENCODING_HEXADECIMAL");
      expect(() => JSON.parse(x.result)).not.toThrow();
    }
  });

  it("lets a filler user sign in by email through the service, as it would a real one", async () => {
    const u = fillerUser(plan, 7, plan.to);
    const t = targetKey();
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email: u.email, targetPublicKey: t.publicKey }, KEY);
    expect(auth.status).toBe(200);
    expect(auth.json.orgId).toBe(u.orgId);
    const code = codeFrom((await h.smtp.waitFor(u.email, before)).raw);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      { orgId: u.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
      KEY,
    );
    expect(otp.status).toBe(200);
    expect(otp.json.user).toMatchObject({
      userId: u.userId,
      address: u.address,
      solanaAddress: u.solanaAddress,
    });
  });

  it("finds filler users with the admin API by email, by address and from a keyset position", async () => {
    const u = fillerUser(plan, 33, plan.to);
    const byEmail = await admin.call("search_users", { email: u.email });
    expect(byEmail.json.items).toEqual([expect.objectContaining({ userId: u.userId })]);
    const byAddress = await admin.call("search_users", { address: u.address.toLowerCase() });
    expect(byAddress.json.items).toEqual([expect.objectContaining({ userId: u.userId })]);
    const page = await admin.call("search_users", { cursor: `${u.createdAt}.${u.userId}`, limit: 5 });
    const older = [32, 31, 30, 29, 28].map((i) => fillerUser(plan, i, plan.to).userId);
    expect((page.json.items as { userId: string }[]).map((x) => x.userId)).toEqual(older);
  });

  it("leaves the real user able to sign", async () => {
    const digest = `0x${"ab".repeat(32)}` as const;
    const r = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(real.orgId, real.address, digest.slice(2), "HASH_FUNCTION_NO_OP"),
        real.sessionKey,
      ),
      KEY,
    );
    expect(r.status).toBe(200);
    expect(await recoverAddress({ hash: digest, signature: r.json.signature as `0x${string}` })).toBe(
      real.address,
    );
  });
});

/** The SQLite file under a service's Kysely (the writer opens its own connection to it). */
async function sqliteFile(db: Db): Promise<string> {
  const { sql } = await import("kysely");
  const rows = (
    await sql<{ file: string }>`SELECT file FROM pragma_database_list WHERE name = 'main'`.execute(db)
  ).rows;
  const file = rows[0]?.file;
  if (!file) throw new Error("The service's SQLite database has no file");
  return file;
}

/** The URL of the PostgreSQL database a service runs on (same server, its current database). */
async function postgresUrl(db: Db): Promise<string> {
  const { sql } = await import("kysely");
  const rows = (await sql<{ name: string }>`SELECT current_database() AS name`.execute(db)).rows;
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${rows[0]?.name}`;
  return url.toString();
}
