/**
 * Grants for split-custody users (docs/split-custody.md §5.1), on SQLite and PostgreSQL, against the real
 * service: the consent request carries the user's share (sealed to the share key for that body), the
 * grant keeps it sealed under the data keys, and the app's backend signs under the grant's caps with the
 * user away. Revoking, expiry (at the next use, and by the retention sweep) destroy the share; then the
 * backend gets the grant's usual refusal. A share sealed for another body, a forged one or none: refused,
 * nothing written. No share in the logs, activities or audit rows.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { BackendApiError, createBackendClient } from "@latchkey/backend";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { sealUserShare } from "@latchkey/protocol/custody";
import { type Address, recoverMessageAddress, recoverTransactionAddress } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retentionSchema, sweepRetention } from "../src/limits/retention";
import { type Harness, post, signUpByEmail, startHarness, TEST_APP } from "./helpers";
import { makeSplitWallet, SPLIT, SPLIT_APP, type SplitKeyHolder } from "./helpers/splitKeyHolder";

const SERVER_KEY = generateP256PrivateKey();
const APP = {
  ...SPLIT_APP,
  serverKeys: [{ name: "bot", publicKey: toHex(p256PublicKeyFromPrivate(SERVER_KEY, true)) }],
};
const SERVICE = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const MINUTE = 60_000;

/** Every way the bytes of a share could be written into a row or a log line. */
const spellings = (bytes: Uint8Array) => {
  const b = Buffer.from(bytes);
  return [b.toString("hex"), b.toString("base64url"), b.toString("base64")];
};

/** The refusal a backend call ends in: its code and status. */
async function refusal(p: Promise<unknown>) {
  try {
    await p;
  } catch (e) {
    if (e instanceof BackendApiError) return { code: e.code, status: e.status, data: e.data };
    throw e;
  }
  throw new Error("expected a refusal");
}

describe.each(["sqlite", "postgres"] as const)("grants for split-custody users (%s)", (kind) => {
  const logs: string[] = [];
  let h: Harness;
  /** Every sealed share the holder sent (as a captured request would show them). */
  const sentShares: string[] = [];
  const recipient: Address = privateKeyToAddress(generatePrivateKey());

  beforeAll(async () => {
    h = await startHarness(kind, {
      apps: [TEST_APP, APP],
      logLevel: "trace",
      logStream: new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const backend = () =>
    createBackendClient({ url: h.url, appId: APP.id, serverKey: SERVER_KEY, now: () => h.clock.now });
  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  const holderOf = async (name: string) =>
    makeSplitWallet(h, await signUpByEmail(h, unique(name), SPLIT), SPLIT);

  /** A stamped grant operation (create or revoke), with a sealed share for its body unless told otherwise. */
  async function grantCall(
    holder: Pick<SplitKeyHolder, "orgId" | "sealFor"> & { sessionKey: Uint8Array },
    op: "create" | "revoke",
    parameters: Record<string, unknown>,
    opts: { share?: "own" | "none" | string; headers?: Record<string, string> } = {},
  ) {
    const body = JSON.stringify({
      type: op === "create" ? "OPERATION_TYPE_CREATE_GRANT" : "OPERATION_TYPE_REVOKE_GRANT",
      timestampMs: String(h.clock.now),
      organizationId: holder.orgId,
      parameters,
    });
    const share =
      opts.share === "none"
        ? undefined
        : opts.share && opts.share !== "own"
          ? opts.share
          : await holder.sealFor(body);
    // The holder's own shares, as sent (a test's garbage is not one).
    if (share && (!opts.share || opts.share === "own")) sentShares.push(share);
    const res = await post(
      h.url,
      `/signer/v1/grants/${op}`,
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, holder.sessionKey),
          url: "https://s.test/public/v1/query/whoami",
          ...(share ? { userShare: share } : {}),
        },
      },
      opts.headers ?? SPLIT,
    );
    return { ...res, body, share };
  }

  const grantRow = (grantId: string) =>
    h.service.ctx.db.selectFrom("grants").selectAll().where("id", "=", grantId).executeTakeFirstOrThrow();
  const grantCount = async (userId: string) =>
    (await h.service.ctx.db.selectFrom("grants").select("id").where("user_id", "=", userId).execute()).length;

  const tx = (value: bigint, to: Address = recipient) => ({
    chainId: 1,
    to,
    value,
    nonce: 0,
    gas: 21_000n,
    maxFeePerGas: 10n ** 9n,
    maxPriorityFeePerGas: 1n,
  });

  let holder: SplitKeyHolder & { sessionKey: Uint8Array };
  let grantId: string;

  it("consent hands over the share; the backend signs within the grant's caps with the user away", async () => {
    const user = await signUpByEmail(h, unique("granter"), SPLIT);
    holder = { ...(await makeSplitWallet(h, user, SPLIT)), sessionKey: user.sessionKey };
    const created = await grantCall(holder, "create", {
      permissions: {
        chainIds: [1],
        contracts: [recipient],
        valuePerTransaction: "1000",
        maxOperations: 3,
        messages: true,
        expiresAt: h.clock.now + 60 * MINUTE,
      },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const grant = created.json.grant as { grantId: string; status: string };
    expect(grant.status).toBe("active");
    grantId = grant.grantId;
    // The grant keeps the share sealed under the data keys, for this grant's row only.
    const row = await grantRow(grantId);
    expect(row.sealed_user_share).toMatch(/^v1\./);
    const opened = await h.service.ctx.keyring.open(
      row.sealed_user_share as string,
      `grant_share:${grantId}`,
    );
    expect(Buffer.from(opened).equals(Buffer.from(holder.userShare))).toBe(true);
    await expect(
      h.service.ctx.keyring.open(row.sealed_user_share as string, "grant_share:other"),
    ).rejects.toThrow();
    const audit = await h.service.ctx.db
      .selectFrom("audit_log")
      .select("details")
      .where("user_id", "=", holder.userId)
      .where("event", "=", "grant.created")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details ?? "{}")).toMatchObject({ grantId, custody: "split" });

    // The user is away: the backend signs with the grant's share and the service's.
    const b = backend();
    const message = await b.signMessage({ userId: holder.userId, grantId, message: "rebalance" });
    expect(message.address).toBe(holder.address);
    expect(await recoverMessageAddress({ message: "rebalance", signature: message.signature })).toBe(
      holder.address,
    );
    const signed = await b.signTransaction({ userId: holder.userId, grantId, transaction: tx(1000n) });
    expect(
      await recoverTransactionAddress({ serializedTransaction: signed.signedTransaction as `0x02${string}` }),
    ).toBe(holder.address);
    // Over the value per transaction, another contract: refused, nothing signed.
    expect(
      await refusal(b.signTransaction({ userId: holder.userId, grantId, transaction: tx(1001n) })),
    ).toMatchObject({ code: "GRANT_LIMIT_EXCEEDED", status: 403, data: { limit: "valuePerTransaction" } });
    const other = privateKeyToAddress(generatePrivateKey());
    expect(
      await refusal(b.signTransaction({ userId: holder.userId, grantId, transaction: tx(1n, other) })),
    ).toMatchObject({ code: "GRANT_DENIED", status: 403 });
    // The third operation is the last one the grant allows.
    await b.signMessage({ userId: holder.userId, grantId, message: "third" });
    expect(await refusal(b.signMessage({ userId: holder.userId, grantId, message: "fourth" }))).toMatchObject(
      { code: "GRANT_LIMIT_EXCEEDED", data: { limit: "maxOperations" } },
    );
  });

  it("no share, a share sealed for another body, a forged share: refused, no grant written", async () => {
    const user = await signUpByEmail(h, unique("refused"), SPLIT);
    const other = { ...(await makeSplitWallet(h, user, SPLIT)), sessionKey: user.sessionKey };
    const permissions = { chainIds: [1], messages: true, expiresAt: h.clock.now + 60 * MINUTE };
    const none = await grantCall(other, "create", { permissions }, { share: "none" });
    expect([none.status, none.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    // A share captured from one consent, replayed with another body (wider permissions).
    const captured = await other.sealFor(
      JSON.stringify({ type: "OPERATION_TYPE_CREATE_GRANT", permissions }),
    );
    const replayed = await grantCall(
      other,
      "create",
      { permissions: { ...permissions, maxOperations: 1000 } },
      { share: captured },
    );
    expect([replayed.status, replayed.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const garbage = await grantCall(other, "create", { permissions }, { share: "not-a-sealed-share" });
    expect([garbage.status, garbage.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    // Another user's share, sealed for this very body: it opens, but does not combine to this key.
    const stranger = await holderOf("stranger");
    const forgedBody = { permissions: { ...permissions, description: "forged" } };
    const text = JSON.stringify({
      type: "OPERATION_TYPE_CREATE_GRANT",
      timestampMs: String(h.clock.now + 1),
      organizationId: other.orgId,
      parameters: forgedBody,
    });
    const forged = await post(
      h.url,
      "/signer/v1/grants/create",
      {
        stampedRequest: {
          body: text,
          stamp: stampWithPrivateKey(text, other.sessionKey),
          url: "https://s.test/public/v1/query/whoami",
          userShare: await sealUserShare({
            userShare: stranger.userShare,
            shareKey: other.shareKey,
            body: text,
          }),
        },
      },
      SPLIT,
    );
    expect([forged.status, forged.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    expect(await grantCount(other.userId)).toBe(0);
    // With its own share for its own body, the same user grants.
    const ok = await grantCall(other, "create", { permissions });
    expect(ok.status).toBe(200);
  });

  it("a service user's grant holds no share, as before", async () => {
    const svc = await signUpByEmail(h, unique("service"), SERVICE);
    const res = await grantCall(
      { orgId: svc.orgId, sessionKey: svc.sessionKey, sealFor: async () => "" },
      "create",
      { permissions: { chainIds: [1], messages: true, expiresAt: h.clock.now + 60 * MINUTE } },
      { share: "none", headers: SERVICE },
    );
    expect(res.status).toBe(200);
    const row = await grantRow((res.json.grant as { grantId: string }).grantId);
    expect(row.sealed_user_share ?? null).toBeNull();
  });

  it("revoking destroys the share in the same transaction; then the backend gets GRANT_REVOKED", async () => {
    const user = await signUpByEmail(h, unique("revoker"), SPLIT);
    const revoker = { ...(await makeSplitWallet(h, user, SPLIT)), sessionKey: user.sessionKey };
    const created = await grantCall(revoker, "create", {
      permissions: { chainIds: [1], messages: true, expiresAt: h.clock.now + 60 * MINUTE },
    });
    const id = (created.json.grant as { grantId: string }).grantId;
    await backend().signMessage({ userId: revoker.userId, grantId: id, message: "before" });
    const revoked = await grantCall(revoker, "revoke", { grantId: id }, { share: "none" });
    expect(revoked.status).toBe(200);
    expect((revoked.json.grant as { status: string }).status).toBe("revoked");
    const row = await grantRow(id);
    expect([row.status, row.sealed_user_share]).toEqual(["revoked", null]);
    expect(
      await refusal(backend().signMessage({ userId: revoker.userId, grantId: id, message: "after" })),
    ).toMatchObject({ code: "GRANT_REVOKED", status: 403 });
  });

  it("expiry: the next use and the retention sweep destroy the share; the backend gets GRANT_EXPIRED", async () => {
    const user = await signUpByEmail(h, unique("expiry"), SPLIT);
    const expiring = { ...(await makeSplitWallet(h, user, SPLIT)), sessionKey: user.sessionKey };
    const permissions = { chainIds: [1], messages: true, expiresAt: h.clock.now + MINUTE };
    const used = (await grantCall(expiring, "create", { permissions })).json.grant as { grantId: string };
    const swept = (
      await grantCall(expiring, "create", { permissions: { ...permissions, description: "swept" } })
    ).json.grant as { grantId: string };
    expect((await grantRow(used.grantId)).sealed_user_share).toBeTruthy();
    expect((await grantRow(swept.grantId)).sealed_user_share).toBeTruthy();
    h.clock.advance(MINUTE + 1000);
    // Used after its end: refused, and its share destroyed then.
    expect(
      await refusal(
        backend().signMessage({ userId: expiring.userId, grantId: used.grantId, message: "late" }),
      ),
    ).toMatchObject({ code: "GRANT_EXPIRED", status: 403 });
    expect((await grantRow(used.grantId)).sealed_user_share).toBeNull();
    // Not used: the sweep destroys it (the service's own sweeper, running beside the test, may come first).
    const report = await sweepRetention(h.service.ctx.db, {
      now: h.clock.now,
      windowSeconds: 600,
      retention: retentionSchema.parse({ batchPauseMs: 0 }),
    });
    expect(report.deleted.grant_shares).toEqual(expect.any(Number));
    const row = await grantRow(swept.grantId);
    expect([row.status, row.sealed_user_share]).toEqual(["active", null]);
    // The row itself stays (listed as expired) until the activities' retention.
    expect(
      await refusal(
        backend().signMessage({ userId: expiring.userId, grantId: swept.grantId, message: "late" }),
      ),
    ).toMatchObject({ code: "GRANT_EXPIRED" });
  });

  it("no share is in the logs, the activity rows or the audit rows", async () => {
    const grants = await h.service.ctx.db
      .selectFrom("grants")
      .select("sealed_user_share")
      .where("user_id", "=", holder.userId)
      .execute();
    const needles = [
      ...spellings(holder.userShare),
      ...sentShares,
      ...grants.map((g) => g.sealed_user_share).filter((s): s is string => !!s),
    ];
    expect(needles.length).toBeGreaterThan(4);
    const activities = await h.service.ctx.db
      .selectFrom("activities")
      .select(["intent", "result", "failure"])
      .execute();
    const audits = await h.service.ctx.db.selectFrom("audit_log").select(["event", "details"]).execute();
    expect(logs.length).toBeGreaterThan(0);
    const haystacks = [
      ...activities.map((a) => `${a.intent} ${a.result} ${a.failure ?? ""}`),
      ...audits.map((a) => `${a.event} ${a.details ?? ""}`),
      logs.join("\n"),
    ];
    for (const needle of needles) {
      expect(needle.length).toBeGreaterThan(20);
      for (const haystack of haystacks) expect(haystack.includes(needle)).toBe(false);
    }
  });
});
