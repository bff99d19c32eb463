import { createHash, generateKeyPairSync, type KeyObject } from "node:crypto";
import { ErrorCode, passkeyStampChallenge } from "@latchkey/protocol";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertion, clientData, cosePublicKey } from "../../../../../test-support/webauthn";
import type { App } from "../../apps/appDirectory";
import type { ServiceContext } from "../../context";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../../db/index";
import { verifyPasskeyStamp } from "./verifyPasskeyStamp";

const RP_ID = "shop.example";
const ORIGIN = "https://shop.example";
const NOW = Date.UTC(2027, 0, 15, 12);
const BODY = JSON.stringify({
  type: "ACTIVITY_TYPE_STAMP_LOGIN",
  timestampMs: String(NOW),
  organizationId: "org-1",
});
const CREDENTIAL = Buffer.from("credential-1").toString("base64url");

let opened: OpenedDatabase;
let db: Db;
let key: KeyObject;
const app = { id: "app-1", webauthn: { rpId: RP_ID, origins: [ORIGIN] } } as unknown as App;
const ctx = () =>
  ({
    db,
    now: () => NOW,
    apps: { byId: async (id: string) => (id === app.id ? app : null) },
  }) as unknown as Pick<ServiceContext, "db" | "apps" | "now">;

beforeEach(async () => {
  opened = openDatabase(":memory:");
  db = opened.db;
  await migrate(db);
  await sql`pragma foreign_keys = off`.execute(db);
  const pair = generateKeyPairSync("ec", { namedCurve: "P-256" });
  key = pair.privateKey;
  await db
    .insertInto("users")
    .values({ id: "user-1", org_id: "org-1", app_id: app.id, email: "ada@example.com", created_at: NOW })
    .execute();
  await db
    .insertInto("authenticators")
    .values({
      id: "auth-1",
      app_id: app.id,
      org_id: "org-1",
      user_id: "user-1",
      credential_id: CREDENTIAL,
      public_key: cosePublicKey(pair.publicKey).toString("base64url"),
      counter: 5,
      transports: JSON.stringify(["internal"]),
      aaguid: "00000000-0000-0000-0000-000000000000",
      name: "Passkey",
      added_with: null,
      created_at: NOW,
      last_used_at: null,
    })
    .execute();
});
afterEach(() => opened.close());

/** The header a browser's passkey makes for `body`; each part can be changed to test one check. */
function stamp(
  over: {
    body?: string;
    origin?: string;
    type?: "webauthn.get" | "webauthn.create";
    rpId?: string;
    signCount?: number;
    credentialId?: string;
    signWith?: KeyObject;
    userVerified?: boolean;
    userHandle?: string;
    tamper?: (s: Buffer) => Buffer;
  } = {},
): string {
  const clientDataJson = clientData(
    over.type ?? "webauthn.get",
    passkeyStampChallenge(over.body ?? BODY),
    over.origin ?? ORIGIN,
  );
  const { authenticatorData, signature } = assertion({
    rpId: over.rpId ?? RP_ID,
    clientDataJson,
    privateKey: over.signWith ?? key,
    signCount: over.signCount ?? 6,
    ...(over.userVerified === false ? { userVerified: false } : {}),
  });
  return JSON.stringify({
    credentialId: over.credentialId ?? CREDENTIAL,
    authenticatorData: authenticatorData.toString("base64url"),
    clientDataJson: clientDataJson.toString("base64url"),
    signature: (over.tamper ? over.tamper(signature) : signature).toString("base64url"),
    ...(over.userHandle ? { userHandle: over.userHandle } : {}),
  });
}

const counter = async () =>
  await db.selectFrom("authenticators").select(["counter", "last_used_at"]).executeTakeFirstOrThrow();

describe("verifyPasskeyStamp", () => {
  it("accepts an assertion over the body and names the user; the counter moves only on commit", async () => {
    const caller = await verifyPasskeyStamp(ctx(), { body: BODY, headerValue: stamp() });
    expect(caller.user).toEqual({ id: "user-1", orgId: "org-1", appId: app.id, email: "ada@example.com" });
    expect(caller.app).toBe(app);
    expect(caller.authenticatorId).toBe("auth-1");
    expect(caller.credentialId).toBe(CREDENTIAL);
    expect(await counter()).toEqual({ counter: 5, last_used_at: null });
    await caller.commitCounter();
    expect(await counter()).toEqual({ counter: 6, last_used_at: NOW });
  });

  it('accepts a passkey that proved presence without user verification (WebAuthn\'s "discouraged"), and a user handle', async () => {
    const caller = await verifyPasskeyStamp(ctx(), {
      body: BODY,
      headerValue: stamp({ userVerified: false }),
    });
    expect(caller.user.id).toBe("user-1");
    const withHandle = stamp({ signCount: 7, userHandle: Buffer.from("user-1").toString("base64url") });
    expect((await verifyPasskeyStamp(ctx(), { body: BODY, headerValue: withHandle })).user.id).toBe("user-1");
  });

  const refused = async (headerValue: string, message: RegExp | string, body = BODY) => {
    const e = await verifyPasskeyStamp(ctx(), { body, headerValue }).catch((err: unknown) => err);
    expect(e).toMatchObject({ code: ErrorCode.INVALID_STAMP });
    expect((e as Error).message).toMatch(message);
    expect((await counter()).counter).toBe(5);
  };

  it("refuses a header that is not the assertion's JSON", async () => {
    await refused("not json", "The passkey stamp is malformed");
    await refused(JSON.stringify({ credentialId: CREDENTIAL }), "The passkey stamp is malformed");
  });

  it("refuses a credential nobody registered", async () => {
    await refused(
      stamp({ credentialId: Buffer.from("other").toString("base64url") }),
      "This passkey is not registered",
    );
  });

  it("refuses the assertion of another body, origin, ceremony, relying party or key, and a bad signature", async () => {
    const does = "The passkey stamp does not verify";
    await refused(stamp({ body: `${BODY} ` }), does);
    await refused(stamp(), does, `${BODY} `);
    await refused(stamp({ origin: "https://evil.example" }), does);
    await refused(stamp({ type: "webauthn.create" }), does);
    await refused(stamp({ rpId: "evil.example" }), does);
    await refused(stamp({ signWith: generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey }), does);
    await refused(
      stamp({ tamper: (s) => Buffer.concat([s.subarray(0, -1), Buffer.from([(s.at(-1) ?? 0) ^ 1])]) }),
      does,
    );
  });

  it("says a counter that went backwards may be a cloned passkey", async () => {
    await refused(stamp({ signCount: 4 }), /counter went backwards.*clon/);
    await refused(stamp({ signCount: 5 }), /counter went backwards/);
  });

  it("refuses a disabled user, and a passkey whose app is gone", async () => {
    await db.updateTable("users").set({ disabled_at: NOW }).execute();
    const e = await verifyPasskeyStamp(ctx(), { body: BODY, headerValue: stamp() }).catch(
      (err: unknown) => err,
    );
    expect(e).toMatchObject({ code: ErrorCode.USER_DISABLED, message: "This user is disabled" });
    await db.updateTable("users").set({ disabled_at: null }).execute();
    await db.updateTable("authenticators").set({ app_id: "gone" }).execute();
    await refused(stamp(), "This passkey's app no longer exists");
  });

  it("checks the challenge is hex(sha256(body))", () => {
    const hex = createHash("sha256").update(BODY).digest("hex");
    expect(passkeyStampChallenge(BODY)).toBe(Buffer.from(hex).toString("base64url"));
  });
});
