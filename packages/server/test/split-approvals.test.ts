/**
 * Held signatures of a split-custody wallet (docs/split-custody.md §7): an app admin's approval is
 * recorded, not signed (the activity stays CONSENSUS_NEEDED with `approval`); the user's key holder
 * completes it with `complete_activity`, its share sealed to that body, and the held activity becomes
 * COMPLETED once with a signature that verifies for the user's address. Refusals: no share 403, another
 * body's share 400, another user 404, before the approval 409, after it expired 409 (an admin approves
 * again), twice 409 (one signature), a rule that now denies it 403 (REJECTED). SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import {
  type Hex,
  keccak256,
  parseEther,
  parseGwei,
  recoverAddress,
  recoverTransactionAddress,
  serializeTransaction,
  toHex as viemHex,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listHeldActivities } from "../src/keyManagement/policies/adminCli";
import { APPROVAL_TTL_MS } from "../src/keyManagement/policies/heldActivities";
import {
  codeFrom,
  type EmailUser,
  type Harness,
  post,
  signUpByEmail,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";
import { AdminClient } from "./helpers/adminClient";
import { makeSplitWallet, type SplitKeyHolder, signRawBody } from "./helpers/splitKeyHolder";

const ADMIN_KEY = generateP256PrivateKey();
const ADMIN_POLICY = {
  rawPayloads: "needs_approval" as const,
  rules: [{ id: "large", effect: "needs_approval" as const, valueAboveWei: parseEther("0.1").toString() }],
  adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
};
/** A split app whose policy holds every raw payload and every transaction for its admin "ops". */
const HELD_APP = {
  id: "split-approvals",
  name: "Split Approvals",
  apiKeys: ["lk_split_approvals_0123456789ab"],
  allowedOrigins: ["http://approvals.test"],
  custody: "split" as const,
  signingPolicy: ADMIN_POLICY,
};
const HELD = { authorization: `Bearer ${HELD_APP.apiKeys[0]}` };
/** The same policy with a rule that denies every raw payload (what an admin may change to meanwhile). */
const DENYING_POLICY = { ...ADMIN_POLICY, rawPayloads: "deny" as const };

type Activity = {
  id: string;
  status: string;
  result: Record<string, unknown>;
  failure?: { code: string };
  approval?: { approvedBy: string; approvedAt: { seconds: string }; expiresAt: { seconds: string } };
};

const evmSignature = (result: Record<string, unknown>) => {
  const r = result.signRawPayloadResult as { r: string; s: string; v: string };
  return `0x${r.r}${r.s}${(27 + Number.parseInt(r.v, 16)).toString(16)}` as Hex;
};

describe.each(["sqlite", "postgres"] as const)("held signatures of a split wallet (%s)", (kind) => {
  let h: Harness;
  let appOrg: string;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [TEST_APP, HELD_APP] });
    appOrg = (await h.service.ctx.apps.byId(HELD_APP.id))?.orgId as string;
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  /** A split user whose key holder made the wallet (stamps at the service's clock). */
  const splitUser = async (name: string) => {
    const email = unique(name);
    const user: EmailUser = await signUpByEmail(h, email, HELD);
    const holder = await makeSplitWallet({ url: h.url, now: () => h.clock.now }, user, HELD);
    return { email, user, holder };
  };

  /** A new session for the user (the holder stamps with it from now on): the same device, later. */
  async function signInAgain(email: string, user: EmailUser) {
    const t = targetKey();
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, HELD);
    const code = codeFrom((await h.smtp.waitFor(email, before)).raw);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
      HELD,
    );
    user.sessionKey = await t.open(otp.json.credentialBundle as string);
  }

  /** An admin key's decision (`approve_activity` / `reject_activity`), stamped by "ops". */
  async function decide(path: "approve_activity" | "reject_activity", activityId: string) {
    const body = JSON.stringify({
      type: path === "approve_activity" ? "ACTIVITY_TYPE_APPROVE_ACTIVITY" : "ACTIVITY_TYPE_REJECT_ACTIVITY",
      timestampMs: String(h.clock.now),
      organizationId: appOrg,
      parameters: { activityId },
    });
    return post(h.url, `/public/v1/submit/${path}`, body, {
      "X-Stamp": stampWithPrivateKey(body, ADMIN_KEY).stampHeaderValue,
    });
  }

  async function getActivity(user: EmailUser, activityId: string): Promise<Activity> {
    const body = JSON.stringify({ organizationId: user.orgId, activityId });
    const { json } = await post(h.url, "/public/v1/query/get_activity", body, {
      "X-Stamp": stampWithPrivateKey(body, user.sessionKey).stampHeaderValue,
    });
    return json.activity as Activity;
  }

  /** The holder's completion of `activityId` (its own share sealed to this body unless told otherwise). */
  const complete = (holder: SplitKeyHolder, activityId: string, opts: { share?: string } = {}) =>
    holder.submit(
      "complete_activity",
      { type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY", parameters: { activityId } },
      opts,
    );

  /** A split user whose raw payload is held: the holder and the held activity. */
  async function heldPayload(name: string, text = name) {
    const { email, user, holder } = await splitUser(name);
    const digest = keccak256(viemHex(text));
    const held = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest));
    const activity = held.json.activity as Activity;
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    return { email, user, holder, digest, activity };
  }

  const rowOf = (id: string) =>
    h.service.ctx.db.selectFrom("activities").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  it("approve records the approval and signs nothing; the user's client completes it: COMPLETED, verifies", async () => {
    const { user, holder, digest, activity } = await heldPayload("approve-complete");
    const approved = await decide("approve_activity", activity.id);
    expect(approved.status).toBe(200);
    expect((approved.json.activity as Activity).result).toEqual({
      approveActivityResult: {
        activityId: activity.id,
        status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        approvals: { approved: 1, required: 1, duplicate: false },
      },
    });
    // No signature exists until the user's device completes it; the user sees the approval.
    const waiting = await getActivity(user, activity.id);
    expect(waiting.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect(waiting.result).toEqual({});
    expect(waiting.approval?.approvedBy).toBe("ops");
    expect(Number(waiting.approval?.expiresAt.seconds) - Number(waiting.approval?.approvedAt.seconds)).toBe(
      APPROVAL_TTL_MS / 1000,
    );
    const audit = await h.service.ctx.db
      .selectFrom("audit_log")
      .select("details")
      .where("user_id", "=", holder.userId)
      .where("event", "=", "signing.approved")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details ?? "{}")).toMatchObject({ activityId: activity.id, admin: "ops" });
    // Approving again while the approval lasts: 409, nothing changes.
    const again = await decide("approve_activity", activity.id);
    expect([again.status, again.json.code]).toEqual([409, "ACTIVITY_NOT_PENDING"]);

    const done = await complete(holder, activity.id);
    expect(done.status).toBe(200);
    const completion = done.json.activity as Activity;
    expect(completion.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const answer = completion.result.completeActivityResult as {
      activityId: string;
      result: Record<string, unknown>;
    };
    expect(answer.activityId).toBe(activity.id);
    expect(await recoverAddress({ hash: digest, signature: evmSignature(answer.result) })).toBe(
      holder.address,
    );
    const held = await getActivity(user, activity.id);
    expect(held.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(held.result).toEqual(answer.result);
    // The completion's record names no share.
    const row = await rowOf(completion.id);
    expect(JSON.parse(row.intent)).toEqual({ completeActivityIntent: { activityId: activity.id } });

    // Resent, the same body answers what it recorded; a new completion is refused: one signature.
    const resent = await post(h.url, "/public/v1/submit/complete_activity", done.text, {
      "X-Stamp": stampWithPrivateKey(done.text, user.sessionKey).stampHeaderValue,
      "X-User-Share": done.share as string,
    });
    expect([resent.status, (resent.json.activity as Activity).id]).toEqual([200, completion.id]);
    const twice = await complete(holder, activity.id);
    expect([twice.status, twice.json.code]).toEqual([409, "ACTIVITY_NOT_PENDING"]);
    expect((await rowOf(activity.id)).result).toBe(JSON.stringify(answer.result));
  });

  it("complete without a share, with another body's share, by another user, before approval: refused, still held", async () => {
    const { holder, activity } = await heldPayload("refusals");
    const early = await complete(holder, activity.id);
    expect([early.status, early.json.code]).toEqual([409, "ACTIVITY_NOT_APPROVED"]);
    expect((await decide("approve_activity", activity.id)).status).toBe(200);

    const noShare = await complete(holder, activity.id, { share: "none" });
    expect([noShare.status, noShare.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const otherBody = await holder.sealFor(JSON.stringify({ another: "body" }));
    const wrongShare = await complete(holder, activity.id, { share: otherBody });
    expect([wrongShare.status, wrongShare.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const { holder: stranger } = await splitUser("stranger");
    const notYours = await complete(stranger, activity.id);
    expect([notYours.status, notYours.json.code]).toEqual([404, "ACTIVITY_NOT_FOUND"]);
    const bad = await holder.submit("complete_activity", {
      type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
      parameters: { activityId: activity.id, extra: 1 },
    });
    expect(bad.status).toBe(400);
    // The account the device names (its key holder picks the share by it) must be the held one's.
    const otherAccount = await holder.submit("complete_activity", {
      type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
      parameters: { activityId: activity.id, signWith: stranger.address },
    });
    expect([otherAccount.status, otherAccount.json.code]).toEqual([400, "INVALID_REQUEST"]);
    expect(otherAccount.json.message).toContain("is not the account");

    const row = await rowOf(activity.id);
    expect([row.status, row.result]).toEqual(["ACTIVITY_STATUS_CONSENSUS_NEEDED", "{}"]);
    // Nothing was recorded for the refused completions.
    const completions = await h.service.ctx.db
      .selectFrom("activities")
      .select("id")
      .where("type", "=", "ACTIVITY_TYPE_COMPLETE_ACTIVITY")
      .where("org_id", "in", [holder.orgId, stranger.orgId])
      .execute();
    expect(completions).toEqual([]);
    // With the share, naming the held account (any case), it completes.
    const done = await holder.submit("complete_activity", {
      type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
      parameters: { activityId: activity.id, signWith: holder.address.toLowerCase() },
    });
    expect(done.status).toBe(200);
  });

  it("an approval expires after 24 h: 409 APPROVAL_EXPIRED; an admin approves again and it completes", async () => {
    const { email, user, holder, digest, activity } = await heldPayload("expiry");
    expect((await decide("approve_activity", activity.id)).status).toBe(200);
    h.clock.advance(APPROVAL_TTL_MS + 1000);
    // A day later the user signs in again on the same device (the holder still has its share).
    await signInAgain(email, user);
    const late = await complete(holder, activity.id);
    expect([late.status, late.json.code]).toEqual([409, "APPROVAL_EXPIRED"]);
    expect((await rowOf(activity.id)).status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    expect((await decide("approve_activity", activity.id)).status).toBe(200);
    const done = await complete(holder, activity.id);
    expect(done.status).toBe(200);
    const held = await getActivity(user, activity.id);
    expect(await recoverAddress({ hash: digest, signature: evmSignature(held.result) })).toBe(holder.address);
  });

  it("a rule changed to deny before the completion wins: 403 POLICY_DENIED, REJECTED, never signed", async () => {
    const { holder, activity } = await heldPayload("denied");
    expect((await decide("approve_activity", activity.id)).status).toBe(200);
    const db = h.service.ctx.db;
    await db
      .updateTable("apps")
      .set({ signing_policy: JSON.stringify(DENYING_POLICY) })
      .where("id", "=", HELD_APP.id)
      .execute();
    h.service.ctx.apps.invalidate();
    try {
      const refused = await complete(holder, activity.id);
      expect([refused.status, refused.json.code]).toEqual([403, "POLICY_DENIED"]);
      const row = await rowOf(activity.id);
      expect([row.status, row.result]).toEqual(["ACTIVITY_STATUS_REJECTED", "{}"]);
    } finally {
      await db
        .updateTable("apps")
        .set({ signing_policy: JSON.stringify(ADMIN_POLICY) })
        .where("id", "=", HELD_APP.id)
        .execute();
      h.service.ctx.apps.invalidate();
    }
  });

  it("two completions at once: one signature, the other 409", async () => {
    const { holder, activity } = await heldPayload("race");
    expect((await decide("approve_activity", activity.id)).status).toBe(200);
    // Two bodies (a millisecond apart), each with its own share, sent together.
    const first = complete(holder, activity.id);
    h.clock.advance(1);
    const answers = await Promise.all([first, complete(holder, activity.id)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const completed = await h.service.ctx.db
      .selectFrom("activities")
      .select("id")
      .where("org_id", "=", holder.orgId)
      .where("type", "=", "ACTIVITY_TYPE_COMPLETE_ACTIVITY")
      .execute();
    expect(completed).toHaveLength(1);
  });

  it("through the admin API: approve answers it still held, list_activities shows the approval", async () => {
    const { holder, activity } = await heldPayload("admin-api");
    const admin = new AdminClient(h.url, appOrg, ADMIN_KEY, () => h.clock.now);
    const approved = await admin.call("approve_activity", { activityId: activity.id });
    expect([approved.status, approved.json]).toEqual([
      200,
      {
        activityId: activity.id,
        status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        approvals: { approved: 1, required: 1, duplicate: false },
      },
    ]);
    const listed = await admin.call("list_activities", { userId: holder.userId });
    const item = (
      listed.json.items as { activityId: string; approval?: { approvedBy: string; expiresAt: number } }[]
    ).find((i) => i.activityId === activity.id);
    expect(item?.approval).toEqual({
      approvedBy: "ops",
      approvedAt: expect.any(Number),
      expiresAt: expect.any(Number),
    });
    // `latchkey activity list` says it waits for the user's device, until when.
    const { held } = await listHeldActivities(h.service.ctx.db, HELD_APP.id);
    expect(held.find((a) => a.activityId === activity.id)?.approvedUntil).toBe(
      new Date(item?.approval?.expiresAt as number).toISOString(),
    );
    expect((await complete(holder, activity.id)).status).toBe(200);
  });

  it("a rejected held signature cannot be completed", async () => {
    const { holder, activity } = await heldPayload("rejected");
    expect((await decide("reject_activity", activity.id)).status).toBe(200);
    const res = await complete(holder, activity.id);
    expect([res.status, res.json.code]).toEqual([409, "ACTIVITY_NOT_PENDING"]);
  });

  it("a held transaction and a held Solana payload complete with the user's share", async () => {
    const { user, holder } = await splitUser("tx");
    const unsignedTransaction = serializeTransaction({
      type: "eip1559",
      chainId: 1,
      nonce: 0,
      to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      value: parseEther("0.5"),
      gas: 21000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
    });
    const tx = await holder.submit("sign_transaction", {
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      parameters: { signWith: holder.address, unsignedTransaction, type: "TRANSACTION_TYPE_ETHEREUM" },
    });
    const heldTx = tx.json.activity as Activity;
    expect(tx.json.code).toBeUndefined();
    expect(heldTx.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    const message = Buffer.from("a held solana message");
    const sol = await holder.submit(
      "sign_raw_payload",
      signRawBody(holder.solanaAddress, `0x${message.toString("hex")}`, {
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
      }),
    );
    const heldSol = sol.json.activity as Activity;
    expect(heldSol.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    for (const a of [heldTx, heldSol]) expect((await decide("approve_activity", a.id)).status).toBe(200);
    expect((await complete(holder, heldTx.id)).status).toBe(200);
    expect((await complete(holder, heldSol.id)).status).toBe(200);

    const signedTx = (await getActivity(user, heldTx.id)).result.signTransactionResult as {
      signedTransaction: Hex;
    };
    expect(
      await recoverTransactionAddress({ serializedTransaction: signedTx.signedTransaction as never }),
    ).toBe(holder.address);
    const solResult = (await getActivity(user, heldSol.id)).result.signRawPayloadResult as {
      r: string;
      s: string;
    };
    expect(
      ed25519.verify(
        Buffer.from(`${solResult.r}${solResult.s}`, "hex"),
        message,
        base58.decode(holder.solanaAddress),
      ),
    ).toBe(true);
  });
});
