/**
 * Split custody, service side (docs/split-custody.md): a split app's users are made with no wallet; the
 * key holder makes it (create_split_wallet, checked against the shares); every signature needs the
 * request's user share for that exact body (EVM, Solana, typed data; key-management and signer API);
 * without it 403 USER_SHARE_REQUIRED, with another body's 400 USER_SHARE_INVALID, nothing signed and the
 * activity FAILED; recovery blobs; whoami and signer-config; the split export bundle; the refusals of
 * what is not supported yet; a grant without the share (grants: grants-split-custody.test.ts). A
 * "service" app beside it is unchanged. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import {
  combineShares,
  decodeWalletSecret,
  decryptRecoveryShare,
  encryptRecoveryShare,
  mnemonicOfSecret,
  newRecoveryCode,
  newWalletSecret,
  recoveryCodeBytes,
  sealServiceShare,
} from "@latchkey/protocol/custody";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { type Hex, keccak256, recoverAddress, verifyTypedData, toHex as viemHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, post, signUpByEmail, startHarness, TEST_APP } from "./helpers";
import { AdminClient } from "./helpers/adminClient";
import {
  exportServiceShare,
  fetchShareKey,
  makeSplitWallet,
  SPLIT,
  SPLIT_APP,
  signRawBody,
} from "./helpers/splitKeyHolder";

const ADMIN_KEY = generateP256PrivateKey();
/** A split app whose policy holds raw payloads for an admin, who may also pregenerate users. */
const HELD_APP = {
  id: "split-held",
  name: "Split Held",
  apiKeys: ["lk_split_held_0123456789abcdef"],
  allowedOrigins: ["http://held.test"],
  custody: "split" as const,
  signingPolicy: {
    rawPayloads: "needs_approval" as const,
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
};
const HELD = { authorization: `Bearer ${HELD_APP.apiKeys[0]}` };
const SERVICE = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

const signatureOf = (activity: { result: Record<string, unknown> }) => {
  const r = activity.result.signRawPayloadResult as { r: string; s: string; v: string };
  return `0x${r.r}${r.s}${(27 + Number.parseInt(r.v, 16)).toString(16)}` as Hex;
};

describe.each(["sqlite", "postgres"] as const)("split custody (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [TEST_APP, SPLIT_APP, HELD_APP] });
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  const holderOf = async (name: string) => {
    const user = await signUpByEmail(h, unique(name), SPLIT);
    return { user, holder: await makeSplitWallet(h, user, SPLIT) };
  };

  async function whoami(user: { orgId: string; sessionKey: Uint8Array }, headers = SPLIT) {
    const body = JSON.stringify({ type: "QUERY_TYPE_WHOAMI", organizationId: user.orgId });
    return post(
      h.url,
      "/signer/v1/whoami",
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, user.sessionKey),
          url: "https://s.test/public/v1/query/whoami",
        },
      },
      headers,
    );
  }

  it("signer-config publishes the app's custody and the share key; the frames carry it as a meta", async () => {
    const split = await post(h.url, "/signer/v1/signer-config", {}, SPLIT);
    const service = await post(h.url, "/signer/v1/signer-config", {}, SERVICE);
    const custody = split.json.custody as { mode: string; shareKey: string };
    expect(custody.mode).toBe("split");
    expect(custody.shareKey).toMatch(/^04[0-9a-f]{128}$/);
    expect(service.json.custody).toEqual({ mode: "service", shareKey: custody.shareKey });
    for (const frame of ["auth", "export"]) {
      const html = await (await fetch(`${h.url}/frames/${frame}?appId=${SPLIT_APP.id}`)).text();
      expect(html).toContain(`<meta name="latchkey-share-key" content="${custody.shareKey}">`);
    }
  });

  it("a split app's user is made with no wallet; a service app's as before", async () => {
    const user = await signUpByEmail(h, unique("nowallet"), SPLIT);
    expect(user.address).toBeUndefined();
    const who = await whoami(user);
    expect(who.status).toBe(200);
    expect(who.json).toMatchObject({ custody: "split", walletState: "none", recovery: [] });
    expect(who.json.address).toBeUndefined();
    expect(who.json.walletId).toBeUndefined();
    const wallets = await h.service.ctx.db
      .selectFrom("wallets")
      .select("id")
      .where("org_id", "=", user.orgId)
      .execute();
    expect(wallets).toEqual([]);
    // The key-management whoami says the same.
    const body = JSON.stringify({ type: "QUERY_TYPE_WHOAMI", organizationId: user.orgId });
    const q = await post(h.url, "/public/v1/query/whoami", body, {
      "X-Stamp": stampWithPrivateKey(body, user.sessionKey).stampHeaderValue,
    });
    expect(q.json).toMatchObject({ custody: "split", walletState: "none", recovery: [] });

    const svc = await signUpByEmail(h, unique("service"), SERVICE);
    expect(svc.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const svcWho = await whoami(svc, SERVICE);
    expect(svcWho.json).toMatchObject({ custody: "service", walletState: "ready", address: svc.address });
    expect(svcWho.json.walletId).toEqual(expect.any(String));
    expect(svcWho.json.recovery).toEqual([]);
  });

  it("create_split_wallet stores the service share sealed and public rows only; whoami is ready", async () => {
    const { user, holder } = await holderOf("create");
    const who = await whoami(user);
    expect(who.json).toMatchObject({
      custody: "split",
      walletState: "ready",
      walletId: holder.walletId,
      address: holder.address,
      solanaAddress: holder.solanaAddress,
    });
    const db = h.service.ctx.db;
    const wallet = await db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", holder.walletId)
      .executeTakeFirstOrThrow();
    expect(wallet.custody).toBe("split");
    expect(wallet.sealed_mnemonic).toBe("");
    expect(wallet.sealed_service_share).toEqual(expect.any(String));
    const accounts = await db
      .selectFrom("wallet_accounts")
      .selectAll()
      .where("wallet_id", "=", holder.walletId)
      .orderBy("secret_index")
      .execute();
    expect(accounts.map((a) => [a.address, a.sealed_private_key, Number(a.secret_index)])).toEqual([
      [holder.address, "", 0],
      [holder.solanaAddress, "", 1],
    ]);
    // The activity's record names no share.
    const activity = await db
      .selectFrom("activities")
      .select(["intent", "result"])
      .where("user_id", "=", user.userId)
      .where("type", "=", "ACTIVITY_TYPE_CREATE_SPLIT_WALLET")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(activity.intent).createSplitWalletIntent.serviceShare).toBe("[redacted]");
    const audit = await db
      .selectFrom("audit_log")
      .select(["event", "details"])
      .where("user_id", "=", user.userId)
      .where("event", "=", "wallet.created")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details ?? "{}")).toEqual({
      walletId: holder.walletId,
      custody: "split",
      addresses: [holder.address, holder.solanaAddress],
    });
  });

  it("create_split_wallet refuses a second wallet, missing or bad shares, and accounts that do not match", async () => {
    const { user, holder } = await holderOf("refusals");
    const shareKey = await fetchShareKey(h.url, SPLIT);
    const sealed = await sealServiceShare({
      serviceShare: new Uint8Array(holder.userShare.length).fill(7),
      shareKey,
      organizationId: user.orgId,
    });
    const again = await holder.submit("create_split_wallet", {
      type: "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
      parameters: { serviceShare: sealed, accounts: holder.accounts },
    });
    expect([again.status, again.json.code]).toEqual([409, "WALLET_EXISTS"]);

    // A fresh user, each refusal in turn.
    const fresh = await signUpByEmail(h, unique("fresh"), SPLIT);
    const { secret, accounts } = await newWalletSecret();
    const { encodeWalletSecret, splitWalletSecret, sealUserShare } = await import(
      "@latchkey/protocol/custody"
    );
    const { userShare, serviceShare } = await splitWalletSecret(encodeWalletSecret(secret));
    const own = await sealServiceShare({ serviceShare, shareKey, organizationId: fresh.orgId });
    const forOther = await sealServiceShare({ serviceShare, shareKey, organizationId: holder.orgId });
    const send = async (
      parameters: Record<string, unknown>,
      share: "own" | "none" | ((body: string) => Promise<string>) = "own",
    ) => {
      const text = JSON.stringify({
        type: "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
        timestampMs: String(Date.now()),
        organizationId: fresh.orgId,
        parameters,
      });
      const sealedShare =
        share === "none"
          ? undefined
          : share === "own"
            ? await sealUserShare({ userShare, shareKey, body: text })
            : await share(text);
      return post(h.url, "/public/v1/submit/create_split_wallet", text, {
        "X-Stamp": stampWithPrivateKey(text, fresh.sessionKey).stampHeaderValue,
        ...(sealedShare ? { "X-User-Share": sealedShare } : {}),
      });
    };
    const noShare = await send({ serviceShare: own, accounts }, "none");
    expect([noShare.status, noShare.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const otherOrg = await send({ serviceShare: forOther, accounts });
    expect([otherOrg.status, otherOrg.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const replayed = await send({ serviceShare: own, accounts }, async () =>
      sealUserShare({ userShare, shareKey, body: "another body" }),
    );
    expect([replayed.status, replayed.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const notAShare = await send({ serviceShare: own, accounts }, async () => "AAAA");
    expect([notAShare.status, notAShare.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const wrongAddress = accounts.map((a, i) => (i === 0 ? { ...a, address: holder.address } : a));
    const mismatch = await send({ serviceShare: own, accounts: wrongAddress });
    expect([mismatch.status, mismatch.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const fewer = await send({ serviceShare: own, accounts: accounts.slice(0, 1) });
    expect([fewer.status, fewer.json.code]).toEqual([400, "INVALID_REQUEST"]);
    // Nothing was written by any of them.
    const wallets = await h.service.ctx.db
      .selectFrom("wallets")
      .select("id")
      .where("org_id", "=", fresh.orgId)
      .execute();
    expect(wallets).toEqual([]);
    // And the right request still makes it.
    const ok = await send({ serviceShare: own, accounts });
    expect(ok.status).toBe(200);
    expect((ok.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("signs EVM digests, typed data and Solana messages with the user's share; viem and ed25519 verify", async () => {
    const { holder } = await holderOf("sign");
    const digest = keccak256(viemHex("split custody"));
    const evm = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest));
    expect(evm.status).toBe(200);
    const activity = evm.json.activity as { status: string; result: Record<string, unknown> };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverAddress({ hash: digest, signature: signatureOf(activity) })).toBe(holder.address);

    const typedData = {
      domain: { name: "Split", version: "1", chainId: 1 },
      types: { Mail: [{ name: "contents", type: "string" }] },
      primaryType: "Mail" as const,
      message: { contents: "hello" },
    };
    const typed = await holder.submit(
      "sign_raw_payload",
      signRawBody(holder.address, JSON.stringify(typedData), {
        encoding: "PAYLOAD_ENCODING_EIP712",
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
      }),
    );
    const typedActivity = typed.json.activity as { status: string; result: Record<string, unknown> };
    expect(typedActivity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(
      await verifyTypedData({
        ...typedData,
        address: holder.address as Hex,
        signature: signatureOf(typedActivity),
      }),
    ).toBe(true);

    const message = Buffer.from("a solana message").toString("hex");
    const sol = await holder.submit(
      "sign_raw_payload",
      signRawBody(holder.solanaAddress, message, { hashFunction: "HASH_FUNCTION_NOT_APPLICABLE" }),
    );
    const solActivity = sol.json.activity as { status: string; result: Record<string, unknown> };
    expect(solActivity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const r = solActivity.result.signRawPayloadResult as { r: string; s: string };
    expect(
      ed25519.verify(
        Buffer.from(r.r + r.s, "hex"),
        Buffer.from(message, "hex"),
        base58.decode(holder.solanaAddress),
      ),
    ).toBe(true);

    // sign_raw_payloads: one share for the whole body.
    const many = await holder.submit("sign_raw_payloads", {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
      parameters: {
        signWith: holder.address,
        payloads: [digest, keccak256(viemHex("two"))],
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      },
    });
    expect((many.json.activity as { status: string }).status).toBe("ACTIVITY_STATUS_COMPLETED");
  });

  it("the signer API's sign-payload takes the share in stampedRequest.userShare", async () => {
    const { holder, user } = await holderOf("signer-api");
    const digest = keccak256(viemHex("signer api"));
    const body = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: holder.orgId,
      ...signRawBody(holder.address, digest),
    });
    const stampedRequest = {
      body,
      stamp: stampWithPrivateKey(body, user.sessionKey),
      url: "https://s.test/public/v1/submit/sign_raw_payload",
    };
    const without = await post(h.url, "/signer/v1/sign-payload", { stampedRequest }, SPLIT);
    expect([without.status, without.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    expect(without.json.error).toContain("X-User-Share");
    // The same body, resent with its share, answers what was recorded: FAILED (sign again, a new body).
    const body2 = JSON.stringify({ ...JSON.parse(body), timestampMs: String(Date.now() + 1) });
    const ok = await post(
      h.url,
      "/signer/v1/sign-payload",
      {
        stampedRequest: {
          body: body2,
          stamp: stampWithPrivateKey(body2, user.sessionKey),
          url: stampedRequest.url,
          userShare: await holder.sealFor(body2),
        },
      },
      SPLIT,
    );
    expect(ok.status).toBe(200);
    expect(await recoverAddress({ hash: digest, signature: ok.json.signature as Hex })).toBe(holder.address);
  });

  it("no share: 403 USER_SHARE_REQUIRED, FAILED, nothing signed; another body's share: 400 USER_SHARE_INVALID", async () => {
    const { holder, user } = await holderOf("noshare");
    const digest = keccak256(viemHex("refused"));
    const none = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest), {
      share: "none",
    });
    expect([none.status, none.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const activityId = (none.json.details as { activityId: string }[] | undefined)?.[0]?.activityId;
    const row = await h.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result", "failure"])
      .where("id", "=", activityId ?? "")
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("ACTIVITY_STATUS_FAILED");
    expect(row.result).toBe("{}");
    expect(JSON.parse(row.failure ?? "{}").code).toBe("USER_SHARE_REQUIRED");
    // Resent, the same body answers the same.
    const resent = await holder.submit("sign_raw_payload", JSON.parse(none.text), { share: "none" });
    expect(resent.json.code).toBe("USER_SHARE_REQUIRED");

    const other = await holder.sealFor("another body");
    const invalid = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest), {
      share: other,
    });
    expect([invalid.status, invalid.json.code]).toEqual([400, "USER_SHARE_INVALID"]);

    // Another wallet's share of the same length, sealed for this very body: it does not combine to this key.
    const { holder: stranger } = await holderOf("stranger");
    const text = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: holder.orgId,
      ...signRawBody(holder.address, digest),
    });
    const { sealUserShare } = await import("@latchkey/protocol/custody");
    const foreign = await sealUserShare({
      userShare: stranger.userShare,
      shareKey: holder.shareKey,
      body: text,
    });
    const { submitStamped } = await import("./helpers/splitKeyHolder");
    const wrongKey = await submitStamped(h.url, "sign_raw_payload", text, user.sessionKey, foreign);
    expect([wrongKey.status, wrongKey.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
  });

  it("recovery: a code's blob and a passkey's are stored, replaced and listed; whoami lists the kinds", async () => {
    const { user, holder } = await holderOf("recovery");
    const code = newRecoveryCode();
    const blob = await encryptRecoveryShare({
      userShare: holder.userShare,
      walletId: holder.walletId,
      ikm: recoveryCodeBytes(code),
    });
    const set = (parameters: Record<string, unknown>) =>
      holder.submit(
        "set_recovery_share",
        { type: "ACTIVITY_TYPE_SET_RECOVERY_SHARE", parameters },
        { share: "none" },
      );
    const ok = await set({ walletId: holder.walletId, kind: "code", blob });
    expect(ok.status).toBe(200);
    expect((ok.json.activity as { result: unknown }).result).toEqual({
      setRecoveryShareResult: { walletId: holder.walletId, kind: "code" },
    });
    // A passkey's blob needs one of the user's passkeys; a code's names none.
    const noCredential = await set({ walletId: holder.walletId, kind: "passkey", blob });
    expect([noCredential.status, noCredential.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const unknownPasskey = await set({
      walletId: holder.walletId,
      kind: "passkey",
      credentialId: "AAAA",
      blob,
    });
    expect([unknownPasskey.status, unknownPasskey.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const notMine = await set({ walletId: "00000000-0000-0000-0000-000000000000", kind: "code", blob });
    expect([notMine.status, notMine.json.code]).toEqual([404, "WALLET_NOT_FOUND"]);
    // Replaced, not added.
    const code2 = newRecoveryCode();
    const blob2 = await encryptRecoveryShare({
      userShare: holder.userShare,
      walletId: holder.walletId,
      ikm: recoveryCodeBytes(code2),
    });
    expect((await set({ walletId: holder.walletId, kind: "code", blob: blob2 })).status).toBe(200);

    const body = JSON.stringify({ type: "QUERY_TYPE_GET_RECOVERY_SHARES", organizationId: user.orgId });
    const listed = await post(
      h.url,
      "/signer/v1/get-recovery-shares",
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, user.sessionKey),
          url: "https://s.test/public/v1/query/get_recovery_shares",
        },
      },
      SPLIT,
    );
    expect(listed.status).toBe(200);
    const shares = listed.json.recoveryShares as { kind: string; blob: typeof blob2; walletId: string }[];
    expect(shares).toHaveLength(1);
    expect(shares[0]).toMatchObject({ kind: "code", walletId: holder.walletId, blob: blob2 });
    const restored = await decryptRecoveryShare({
      blob: shares[0]?.blob ?? blob2,
      walletId: holder.walletId,
      ikm: recoveryCodeBytes(code2),
    });
    expect(Buffer.from(restored).equals(Buffer.from(holder.userShare))).toBe(true);
    // The key-management query answers the same blobs.
    const q = await post(h.url, "/public/v1/query/get_recovery_shares", body, {
      "X-Stamp": stampWithPrivateKey(body, user.sessionKey).stampHeaderValue,
    });
    expect((q.json.recoveryShares as unknown[]).length).toBe(1);
    expect((await whoami(user)).json.recovery).toEqual(["code"]);
    // The activity keeps no blob.
    const rows = await h.service.ctx.db
      .selectFrom("activities")
      .select("intent")
      .where("user_id", "=", user.userId)
      .where("type", "=", "ACTIVITY_TYPE_SET_RECOVERY_SHARE")
      .execute();
    for (const r of rows) expect(r.intent).not.toContain(blob2.ciphertext);
  });

  it("export: the bundle carries split:v1:<service share>; with the user's share it is the phrase", async () => {
    const { holder } = await holderOf("export");
    const serviceShare = await exportServiceShare(h.url, holder, holder.walletId);
    const secret = decodeWalletSecret(await combineShares(holder.userShare, serviceShare));
    expect(mnemonicOfSecret(secret)).toBe(holder.mnemonic);
  });

  it("what split custody does not support yet answers 409 SPLIT_CUSTODY_UNSUPPORTED, saying what", async () => {
    // An import before the user's own wallet is made (an import into a split wallet: split-import.test.ts).
    const user = await signUpByEmail(h, unique("unsupported"), SPLIT);
    const text = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: user.orgId,
      type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
      parameters: { userId: user.userId },
    });
    const { submitStamped } = await import("./helpers/splitKeyHolder");
    const init = await submitStamped(h.url, "init_import_wallet", text, user.sessionKey);
    expect([init.status, init.json.code]).toEqual([409, "SPLIT_CUSTODY_UNSUPPORTED"]);
    expect(init.json.message).toContain("Importing a wallet");
  });

  it("a grant without the user's share: 403 USER_SHARE_REQUIRED; before the wallet is made: 404", async () => {
    const { user } = await holderOf("grant");
    const body = JSON.stringify({
      type: "OPERATION_TYPE_CREATE_GRANT",
      timestampMs: String(Date.now()),
      organizationId: user.orgId,
      parameters: { permissions: { chainIds: [1], messages: true, expiresAt: Date.now() + 3_600_000 } },
    });
    // A grant keeps the user's share (grants-split-custody.test.ts): consent must hand it over.
    const grant = await post(
      h.url,
      "/signer/v1/grants/create",
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, user.sessionKey),
          url: "https://s.test/public/v1/query/whoami",
        },
      },
      SPLIT,
    );
    expect([grant.status, grant.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    // A split app's user whose wallet is not made yet has nothing to grant.
    const walletless = await signUpByEmail(h, unique("walletless"), SPLIT);
    const early = JSON.stringify({
      type: "OPERATION_TYPE_CREATE_GRANT",
      timestampMs: String(Date.now()),
      organizationId: walletless.orgId,
      parameters: { permissions: { chainIds: [1], messages: true, expiresAt: Date.now() + 3_600_000 } },
    });
    const none = await post(
      h.url,
      "/signer/v1/grants/create",
      {
        stampedRequest: {
          body: early,
          stamp: stampWithPrivateKey(early, walletless.sessionKey),
          url: "https://s.test/public/v1/query/whoami",
        },
      },
      SPLIT,
    );
    expect([none.status, none.json.code]).toEqual([404, "WALLET_NOT_FOUND"]);
  });

  it("in a split app a pregenerated user is made with a whole wallet, split at the first sign-in (split-conversion.test.ts)", async () => {
    const orgId = (await h.service.ctx.apps.byId(HELD_APP.id))?.orgId as string;
    const admin = new AdminClient(h.url, orgId, ADMIN_KEY);
    const pregenerated = await admin.call("pregenerate_user", { email: unique("pregen") });
    expect(pregenerated.status).toBe(200);
    expect(pregenerated.json.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("a held signature of a split wallet: the approval is recorded, nothing signed (split-approvals.test.ts)", async () => {
    const user = await signUpByEmail(h, unique("held"), HELD);
    const holder = await makeSplitWallet(h, user, HELD);
    const digest = keccak256(viemHex("held"));
    const held = await holder.submit("sign_raw_payload", signRawBody(holder.address, digest));
    const activity = held.json.activity as { id: string; status: string };
    expect(activity.status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    const orgId = (await h.service.ctx.apps.byId(HELD_APP.id))?.orgId as string;
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
      timestampMs: String(Date.now()),
      organizationId: orgId,
      parameters: { activityId: activity.id },
    });
    const approved = await post(h.url, "/public/v1/submit/approve_activity", body, {
      "X-Stamp": stampWithPrivateKey(body, ADMIN_KEY).stampHeaderValue,
    });
    expect(approved.status).toBe(200);
    const row = await h.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result", "approved_by"])
      .where("id", "=", activity.id)
      .executeTakeFirstOrThrow();
    expect([row.status, row.result, row.approved_by]).toEqual([
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
      "{}",
      "ops",
    ]);
  });

  it("a service app's user still signs without any share", async () => {
    const svc = await signUpByEmail(h, unique("svcsign"), SERVICE);
    const digest = keccak256(viemHex("service"));
    const text = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: svc.orgId,
      ...signRawBody(svc.address, digest),
    });
    const res = await post(h.url, "/public/v1/submit/sign_raw_payload", text, {
      "X-Stamp": stampWithPrivateKey(text, svc.sessionKey).stampHeaderValue,
    });
    const activity = res.json.activity as { status: string; result: Record<string, unknown> };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverAddress({ hash: digest, signature: signatureOf(activity) })).toBe(svc.address);
  });
});
