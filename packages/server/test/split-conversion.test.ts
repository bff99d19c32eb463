/**
 * Moving a whole wallet to split custody (docs/split-custody.md §3.1): a pregenerated user, a user
 * imported with `latchkey users import`, and a service app's user after the app moved to split each sign
 * in; their key holder runs begin_split_wallet (the user share sealed to its ephemeral key, the service's
 * share pending, the whole wallet still signing) and complete_split_wallet (the share bound to the body;
 * the whole sealed copy destroyed in the same transaction). Same addresses; signing needs the share
 * afterwards. A wrong or replaced share changes nothing. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  STEP_UP_MAX_AGE_MS,
  toHex,
} from "@latchkey/protocol";
import { combineShares, decodeWalletSecret, mnemonicOfSecret } from "@latchkey/protocol/custody";
import { type Hex, recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../src/config";
import { entropyToMnemonic } from "../src/crypto/wallet";
import { codeFrom, type Harness, post, signUpByEmail, stamped, startHarness, targetKey } from "./helpers";
import { AdminClient } from "./helpers/adminClient";
import { latchkey } from "./helpers/latchkey";
import {
  beginSplit,
  completeSplitBody,
  convertToSplit,
  fetchShareKey,
  holderOfShare,
  type SplitUser,
  signRawBody,
  submitStamped,
} from "./helpers/splitKeyHolder";

const ADMIN_KEY = generateP256PrivateKey();
const SPLIT_SHOP = {
  id: "split-shop",
  name: "Split Shop",
  apiKeys: ["lk_split_shop_0123456789abcdef"],
  allowedOrigins: ["http://shop.test"],
  emailMode: "OTP",
  custody: "split",
  signingPolicy: {
    adminKeys: [{ name: "backend", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
} satisfies AppConfig;
const MOVING = {
  id: "moving",
  name: "Moving",
  apiKeys: ["lk_moving_key_0123456789abcdef"],
  allowedOrigins: ["http://moving.test"],
  emailMode: "OTP",
} satisfies AppConfig;
const SHOP = { authorization: `Bearer ${SPLIT_SHOP.apiKeys[0]}` };
const MOVE = { authorization: `Bearer ${MOVING.apiKeys[0]}` };
const DIGEST = `0x${"ab".repeat(32)}`;

describe.each(["sqlite", "postgres"] as const)("moving a wallet to split custody (%s)", (kind) => {
  const masterKey = randomBytes(32);
  let h: Harness & { dbUrl: string };
  let admin: AdminClient;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [SPLIT_SHOP, MOVING], masterKey });
    const orgId = (await h.service.ctx.apps.byId(SPLIT_SHOP.id))?.orgId as string;
    admin = new AdminClient(h.url, orgId, ADMIN_KEY, () => h.clock.now);
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  const db = () => h.service.ctx.db;

  /** An email sign-in of a user who exists: auth → the mailed code → otp → the session key. */
  async function signIn(email: string, headers: Record<string, string>): Promise<SplitUser> {
    const t = targetKey();
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t.publicKey }, headers);
    expect(auth.status, JSON.stringify(auth.json)).toBe(200);
    const code = codeFrom((await h.smtp.waitFor(email, before)).raw);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
      headers,
    );
    expect(otp.status, JSON.stringify(otp.json)).toBe(200);
    const orgId = auth.json.orgId as string;
    const sessionKey = await t.open(otp.json.credentialBundle as string);
    const who = await whoami({ orgId, sessionKey }, headers);
    return { orgId, userId: who.userId as string, sessionKey };
  }

  async function whoami(user: { orgId: string; sessionKey: Uint8Array }, headers: Record<string, string>) {
    const res = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
      headers,
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json;
  }

  const walletRow = (walletId: string) =>
    db()
      .selectFrom("wallets")
      .select(["custody", "sealed_mnemonic", "sealed_service_share", "sealed_pending_share"])
      .where("id", "=", walletId)
      .executeTakeFirstOrThrow();
  const accountRows = (walletId: string) =>
    db()
      .selectFrom("wallet_accounts")
      .select(["address", "sealed_private_key", "secret_index"])
      .where("wallet_id", "=", walletId)
      .execute();

  /** A raw signature of DIGEST by `address`, with the holder's share or none; answers status and signer. */
  async function sign(user: SplitUser, address: string, share?: (body: string) => Promise<string>) {
    const text = JSON.stringify({
      timestampMs: String(h.clock.now),
      organizationId: user.orgId,
      ...signRawBody(address, DIGEST),
    });
    const res = await submitStamped(
      h.url,
      "sign_raw_payload",
      text,
      user.sessionKey,
      share && (await share(text)),
    );
    const activity = res.json.activity as { status: string; result: Record<string, unknown> } | undefined;
    if (res.status !== 200 || activity?.status !== "ACTIVITY_STATUS_COMPLETED")
      return { status: res.status, code: res.json.code as string | undefined };
    const r = activity.result.signRawPayloadResult as { r: string; s: string; v: string };
    const signer = await recoverAddress({
      hash: DIGEST as Hex,
      signature: `0x${r.r}${r.s}${(27 + Number.parseInt(r.v, 16)).toString(16)}` as Hex,
    });
    return { status: res.status, signer };
  }

  const walletOf = async (orgId: string) =>
    (await db().selectFrom("wallets").select("id").where("org_id", "=", orgId).executeTakeFirstOrThrow()).id;

  /** Everything about the wallet a failed completion must leave as it was. */
  const snapshot = async (walletId: string) => ({
    wallet: await walletRow(walletId),
    accounts: await accountRows(walletId),
  });

  it("a pregenerated user of a split app: whole until the first sign-in, then split with the same addresses", async () => {
    const email = unique("pregen");
    const made = await admin.call("pregenerate_user", { email });
    expect(made.status, JSON.stringify(made.json)).toBe(200);
    const { walletId, address } = made.json as { walletId: string; address: string };
    // Custodial until the first sign-in: the service holds the wallet sealed whole.
    expect((await walletRow(walletId)).sealed_mnemonic).not.toBe("");

    const user = await signIn(email, SHOP);
    expect(await whoami(user, SHOP)).toMatchObject({
      custody: "split",
      walletState: "whole",
      walletId,
      address,
    });
    expect(await sign(user, address)).toEqual({ status: 200, signer: address });
    // A split app's whole wallet is never cached for signing: its key is destroyed when it is split.
    expect(
      [...h.service.ctx.caches.signingAccounts.keys()].filter((k) => k.startsWith(`${user.orgId}/`)),
    ).toEqual([]);

    // Begun, not completed: the whole wallet still signs, the pending share is kept.
    const first = await beginSplit({ url: h.url, now: () => h.clock.now }, user, walletId);
    expect(first.status, JSON.stringify(first.json)).toBe(200);
    const pending = (await walletRow(walletId)).sealed_pending_share;
    expect(pending).toEqual(expect.any(String));
    expect((await walletRow(walletId)).sealed_mnemonic).not.toBe("");
    expect(await sign(user, address)).toEqual({ status: 200, signer: address });
    // Begun again: the pending share is replaced, so the first share is now worthless.
    const second = await beginSplit({ url: h.url, now: () => h.clock.now }, user, walletId);
    expect(second.userShare).toBeDefined();
    expect((await walletRow(walletId)).sealed_pending_share).not.toBe(pending);

    const shareKey = await fetchShareKey(h.url, SHOP);
    const now = () => h.clock.now;
    const stale = holderOfShare({ url: h.url, now }, user, {
      walletId,
      userShare: first.userShare as Uint8Array,
      shareKey,
    });
    const holder = holderOfShare({ url: h.url, now }, user, {
      walletId,
      userShare: second.userShare as Uint8Array,
      shareKey,
    });
    const before = await snapshot(walletId);
    // The replaced share, a share sealed for another body, no share: refused, nothing changes.
    const replaced = await stale.submit("complete_split_wallet", completeSplitBody(walletId));
    expect([replaced.status, replaced.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const otherBody = await holder.sealFor("{}");
    const rebound = await holder.submit("complete_split_wallet", completeSplitBody(walletId), {
      share: otherBody,
    });
    expect([rebound.status, rebound.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const none = await holder.submit("complete_split_wallet", completeSplitBody(walletId), { share: "none" });
    expect([none.status, none.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    expect(await snapshot(walletId)).toEqual(before);
    expect(await sign(user, address)).toEqual({ status: 200, signer: address });

    const done = await holder.submit("complete_split_wallet", completeSplitBody(walletId));
    expect(done.status, JSON.stringify(done.json)).toBe(200);
    // The whole sealed copy is gone; the service keeps only its share.
    const row = await walletRow(walletId);
    expect(row).toMatchObject({ custody: "split", sealed_mnemonic: "", sealed_pending_share: null });
    expect(row.sealed_service_share).toEqual(expect.any(String));
    const accounts = await accountRows(walletId);
    expect(accounts.map((a) => a.sealed_private_key)).toEqual(accounts.map(() => ""));
    expect(accounts.map((a) => Number(a.secret_index)).sort()).toEqual(accounts.map((_, i) => i));
    expect(await whoami(user, SHOP)).toMatchObject({
      custody: "split",
      walletState: "ready",
      walletId,
      address,
    });
    const audit = await db()
      .selectFrom("audit_log")
      .select("event")
      .where("event", "in", ["wallet.split_begun", "wallet.split"])
      .where("user_id", "=", user.userId)
      .execute();
    expect(audit.map((a) => a.event).sort()).toEqual([
      "wallet.split",
      "wallet.split_begun",
      "wallet.split_begun",
    ]);

    // Signing now needs the share; with it, the same address signs.
    expect(await sign(user, address)).toEqual({ status: 403, code: "USER_SHARE_REQUIRED" });
    expect(await sign(user, address, holder.sealFor)).toEqual({ status: 200, signer: address });
    expect(await sign(user, address, stale.sealFor)).toEqual({ status: 400, code: "USER_SHARE_INVALID" });
    // Replayed, completed again with a new body, or begun again: the wallet is split already.
    const replayed = await submitStamped(
      h.url,
      "complete_split_wallet",
      done.text,
      user.sessionKey,
      done.share,
    );
    expect([replayed.status, replayed.json.code]).toEqual([409, "WALLET_ALREADY_SPLIT"]);
    const again = await holder.submit("complete_split_wallet", completeSplitBody(walletId));
    expect([again.status, again.json.code]).toEqual([409, "WALLET_ALREADY_SPLIT"]);
    const rebegin = await beginSplit({ url: h.url, now }, user, walletId);
    expect([rebegin.status, rebegin.json.code]).toEqual([409, "WALLET_ALREADY_SPLIT"]);
  });

  it("complete without a begin: 409 SPLIT_NOT_BEGUN; another user's wallet: 404; an old session must step up", async () => {
    const email = unique("nobegin");
    const made = await admin.call("pregenerate_user", { email });
    const { walletId } = made.json as { walletId: string };
    const user = await signIn(email, SHOP);
    const shareKey = await fetchShareKey(h.url, SHOP);
    const holder = holderOfShare({ url: h.url, now: () => h.clock.now }, user, {
      walletId,
      userShare: randomBytes(40),
      shareKey,
    });
    const early = await holder.submit("complete_split_wallet", completeSplitBody(walletId));
    expect([early.status, early.json.code]).toEqual([409, "SPLIT_NOT_BEGUN"]);
    const other = await signIn((await pregen(unique("other"))).email, SHOP);
    const theirs = await beginSplit({ url: h.url, now: () => h.clock.now }, other, walletId);
    expect([theirs.status, theirs.json.code]).toEqual([404, "WALLET_NOT_FOUND"]);
    h.clock.advance(STEP_UP_MAX_AGE_MS + 60_000);
    try {
      const stale = await beginSplit({ url: h.url, now: () => h.clock.now }, user, walletId);
      expect([stale.status, stale.json.code]).toEqual([403, "STEP_UP_REQUIRED"]);
    } finally {
      h.clock.advance(-(STEP_UP_MAX_AGE_MS + 60_000));
    }
    expect((await walletRow(walletId)).sealed_pending_share).toBeNull();
  });

  async function pregen(email: string) {
    const made = await admin.call("pregenerate_user", { email });
    expect(made.status).toBe(200);
    return { email, ...(made.json as { walletId: string; address: string }) };
  }

  it("a user imported with `latchkey users import` into a split app: the imported phrase, split at sign-in", async () => {
    const email = unique("imported");
    const mnemonic = entropyToMnemonic(randomBytes(16));
    const file = join(tmpdir(), `split-import-${kind}-${randomBytes(4).toString("hex")}.jsonl`);
    writeFileSync(file, `${JSON.stringify({ email, emailVerified: true, wallet: { mnemonic } })}\n`);
    const env = {
      ...process.env,
      LATCHKEY_MASTER_KEY: masterKey.toString("hex"),
      LATCHKEY_MASTER_KEY_FILE: "",
    };
    const run = await latchkey(["users", "import", file, "--app", SPLIT_SHOP.id, "--db", h.dbUrl], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("1 created");

    const user = await signIn(email, SHOP);
    const who = await whoami(user, SHOP);
    expect(who).toMatchObject({ custody: "split", walletState: "whole" });
    const walletId = who.walletId as string;
    const holder = await convertToSplit({ url: h.url, now: () => h.clock.now }, user, walletId, SHOP);
    expect(await whoami(user, SHOP)).toMatchObject({ walletState: "ready", address: who.address });
    // The split secret is the imported phrase (the export frame shows it from both shares).
    const row = await walletRow(walletId);
    const serviceShare = new Uint8Array(
      await h.service.ctx.keyring.open(row.sealed_service_share as string, `wallet_share:${walletId}`),
    );
    expect(mnemonicOfSecret(decodeWalletSecret(await combineShares(holder.userShare, serviceShare)))).toBe(
      mnemonic,
    );
    expect(await sign(user, who.address as string)).toEqual({ status: 403, code: "USER_SHARE_REQUIRED" });
    expect(await sign(user, who.address as string, holder.sealFor)).toEqual({
      status: 200,
      signer: who.address,
    });
  });

  it("a service app moved to split: its users' wallets are split at their next sign-in", async () => {
    const email = unique("moving");
    const before = await signUpByEmail(h, email, MOVE);
    const address = before.address;
    // While the app keeps wallets whole, its users' wallets are not split.
    const refused = await beginSplit(
      { url: h.url, now: () => h.clock.now },
      before,
      await walletOf(before.orgId),
    );
    expect([refused.status, refused.json.code]).toEqual([409, "SPLIT_CUSTODY_UNSUPPORTED"]);
    expect(await whoami(before, MOVE)).toMatchObject({ custody: "service", walletState: "ready" });
    // The operator changes the app's config to `custody: "split"` (applied at the service's start).
    await db().updateTable("apps").set({ custody: "split" }).where("id", "=", MOVING.id).execute();
    h.service.ctx.apps.invalidate();
    try {
      const user = await signIn(email, MOVE);
      const who = await whoami(user, MOVE);
      expect(who).toMatchObject({ custody: "split", walletState: "whole", address });
      expect(await sign(user, address)).toEqual({ status: 200, signer: address });
      const holder = await convertToSplit(
        { url: h.url, now: () => h.clock.now },
        user,
        who.walletId as string,
        MOVE,
      );
      expect(await whoami(user, MOVE)).toMatchObject({ custody: "split", walletState: "ready", address });
      expect(await sign(user, address)).toEqual({ status: 403, code: "USER_SHARE_REQUIRED" });
      expect(await sign(user, address, holder.sealFor)).toEqual({ status: 200, signer: address });
      // The Solana account's key is in the split secret too (its place recorded).
      const accounts = await accountRows(who.walletId as string);
      expect(accounts).toHaveLength(2);
      expect(accounts.every((a) => a.sealed_private_key === "" && a.secret_index !== null)).toBe(true);
    } finally {
      await db().updateTable("apps").set({ custody: "service" }).where("id", "=", MOVING.id).execute();
      h.service.ctx.apps.invalidate();
    }
  });
});
