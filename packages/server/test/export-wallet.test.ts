/**
 * Wallet export (spec §1, DESIGN §3.4, §9 "Export"): `export_wallet` answers the mnemonic sealed to the
 * export frame's target key and signed by the service's export-signing key, which `/frames/export` pins;
 * only after a fresh sign-in (step-up), rate-limited, audited, with a security notice to the account's
 * email. Bad input answers a stable 4xx and writes nothing. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  generateP256PrivateKey,
  openExportBundle,
  p256PublicKeyFromPrivate,
  STEP_UP_MAX_AGE_MS,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bip32DerivePrivateKey,
  EVM_PATH,
  evmAddressFromPrivateKey,
  mnemonicToSeed,
  SOLANA_PATH,
  slip10Ed25519,
} from "../src/crypto/wallet";
import {
  type EmailUser,
  type Harness,
  post,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  verificationToken as verifyContact,
} from "./helpers";
import { SoftAuthenticator } from "./soft-authenticator";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const EXPORT_PATH = "/public/v1/submit/export_wallet";

/** The export frame's target key, held in memory here. */
function frameKey() {
  const privateKey = generateP256PrivateKey();
  return { privateKey, publicKey: toHex(p256PublicKeyFromPrivate(privateKey, false)) };
}

describe.each(["sqlite", "postgres"] as const)("wallet export (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    // A limit above what one test spends: the limit test counts up to it; a fixed window that the
    // other tests' clock jumps may or may not cross would make their counts depend on the wall clock.
    h = await startHarness(kind, { rateLimits: { exportsPerUser: 8 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

  function submit(user: EmailUser, parameters: Record<string, unknown>, opts: { orgId?: string } = {}) {
    const text = JSON.stringify({
      type: "ACTIVITY_TYPE_EXPORT_WALLET",
      timestampMs: String(h.clock.now),
      organizationId: opts.orgId ?? user.orgId,
      parameters,
    });
    return post(h.url, EXPORT_PATH, text, {
      "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
    });
  }

  async function walletIdOf(user: EmailUser): Promise<string> {
    const body = JSON.stringify({ type: "QUERY_TYPE_LIST_WALLETS", organizationId: user.orgId });
    const res = await post(h.url, "/public/v1/query/list_wallets", body, {
      "X-Stamp": stampWithPrivateKey(body, user.sessionKey).stampHeaderValue,
    });
    return (res.json.wallets as { walletId: string }[])[0]?.walletId as string;
  }

  const verificationToken = (contact: string) => verifyContact(h, KEY, contact);

  /** The pinned key in `/frames/export` (and the page's CSP). */
  async function exportFrame() {
    const res = await fetch(`${h.url}/frames/export?appId=${TEST_APP.id}`);
    const html = await res.text();
    return {
      status: res.status,
      csp: res.headers.get("content-security-policy") ?? "",
      signer: /name="latchkey-export-signer" content="([0-9a-f]+)"/.exec(html)?.[1] ?? "",
    };
  }

  async function rows(userId: string) {
    const db = h.service.ctx.db;
    const activities = await db
      .selectFrom("activities")
      .select("id")
      .where("user_id", "=", userId)
      .where("type", "=", "ACTIVITY_TYPE_EXPORT_WALLET")
      .execute();
    const audits = await db
      .selectFrom("audit_log")
      .select("id")
      .where("user_id", "=", userId)
      .where("event", "=", "wallet.exported")
      .execute();
    return { activities: activities.length, audits: audits.length };
  }

  it("exports right after an email sign-in: the frame's pinned key opens it, the words derive the addresses", async () => {
    const email = unique("fresh");
    const user = await signUpByEmail(h, email, KEY);
    const walletId = await walletIdOf(user);
    const target = frameKey();
    const before = h.smtp.mails.length;
    const res = await submit(user, { walletId, targetPublicKey: target.publicKey });
    expect(res.json.code ?? "").toBe("");
    expect(res.status).toBe(200);
    const activity = res.json.activity as {
      status: string;
      result: Record<string, { exportBundle: string }>;
    };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const exportBundle = activity.result.exportWalletResult?.exportBundle as string;
    const bundle = JSON.parse(exportBundle) as Record<string, string>;
    expect(Object.keys(bundle).sort()).toEqual(["data", "dataSignature", "enclaveQuorumPublic", "version"]);
    expect(bundle.version).toBe("v1.0.0");
    expect(
      Object.keys(JSON.parse(Buffer.from(bundle.data as string, "hex").toString("utf8"))).sort(),
    ).toEqual(["ciphertext", "encappedPublic", "organizationId"]);

    const frame = await exportFrame();
    expect(frame.status).toBe(200);
    expect(frame.csp).toMatch(/default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-/);
    expect(frame.csp).toContain("connect-src 'none'");
    expect(frame.csp).toContain("frame-ancestors http://app.test");
    expect(frame.signer).toBe(bundle.enclaveQuorumPublic);

    const open = (over: Partial<Parameters<typeof openExportBundle>[0]> = {}) =>
      openExportBundle({
        exportBundle,
        targetPrivateKey: target.privateKey,
        targetPublicKey: target.publicKey,
        organizationId: user.orgId,
        signerPublicKey: frame.signer,
        ...over,
      });
    const mnemonic = Buffer.from(await open()).toString("utf8");
    expect(mnemonic.split(" ")).toHaveLength(12);
    const seed = mnemonicToSeed(mnemonic);
    expect(evmAddressFromPrivateKey(bip32DerivePrivateKey(seed, EVM_PATH)).address).toBe(user.address);
    expect(base58.encode(ed25519.getPublicKey(slip10Ed25519(seed, SOLANA_PATH)))).toBe(user.solanaAddress);

    // What the frame refuses: another organisation, another signing key, a changed byte.
    await expect(open({ organizationId: "another-org" })).rejects.toThrow("another organization");
    const other = toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false));
    await expect(open({ signerPublicKey: other })).rejects.toThrow("signed by another key");
    const tampered = JSON.stringify({ ...bundle, data: `${(bundle.data as string).slice(0, -2)}00` });
    await expect(open({ exportBundle: tampered })).rejects.toThrow("signature is not valid");

    // Audited, and the account's email is told.
    expect(await rows(user.userId)).toEqual({ activities: 1, audits: 1 });
    expect((await h.smtp.waitFor(email, before)).raw).toContain("wallet was exported");
  });

  it("refuses a stale sign-in with STEP_UP_REQUIRED; a code just mailed to the own email then exports", async () => {
    const email = unique("stale");
    const user = await signUpByEmail(h, email, KEY);
    const walletId = await walletIdOf(user);
    const target = frameKey();
    h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
    const refused = await submit(user, { walletId, targetPublicKey: target.publicKey });
    expect([refused.status, refused.json.code]).toEqual([403, "STEP_UP_REQUIRED"]);
    expect(refused.json.details).toEqual([{ stepUpMethods: ["email"] }]);
    expect(await rows(user.userId)).toEqual({ activities: 0, audits: 0 });

    // A code to another address does not prove this account.
    const foreign = await verificationToken(unique("elsewhere"));
    const wrong = await submit(user, {
      walletId,
      targetPublicKey: target.publicKey,
      verificationToken: foreign,
    });
    expect([wrong.status, wrong.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);

    // A code verified more than five minutes ago is not fresh.
    const old = await verificationToken(email);
    h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
    const late = await submit(user, { walletId, targetPublicKey: target.publicKey, verificationToken: old });
    expect([late.status, late.json.code]).toEqual([403, "STEP_UP_REQUIRED"]);

    const token = await verificationToken(email);
    const beforeNotice = h.smtp.mails.length;
    const ok = await submit(user, { walletId, targetPublicKey: target.publicKey, verificationToken: token });
    expect([ok.status, ok.json.code]).toEqual([200, undefined]);
    expect(await rows(user.userId)).toEqual({ activities: 1, audits: 1 });
    // The spent token is not kept in the activity's record.
    const { intent } = await h.service.ctx.db
      .selectFrom("activities")
      .select("intent")
      .where("user_id", "=", user.userId)
      .where("type", "=", "ACTIVITY_TYPE_EXPORT_WALLET")
      .executeTakeFirstOrThrow();
    expect(intent).not.toContain(token);
    expect(JSON.parse(intent).exportWalletIntent.verificationToken).toBe("[redacted]");
    // Single use: the same token in another body is refused.
    const again = await submit(user, {
      walletId,
      targetPublicKey: frameKey().publicKey,
      verificationToken: token,
    });
    expect([again.status, again.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
    expect((await h.smtp.waitFor(email, beforeNotice)).raw).toContain("wallet was exported");
  });

  it("a passkey-stamped export is a fresh sign-in; the refusal names the passkey", async () => {
    const user = await signUpByEmail(h, unique("passkey"), KEY);
    const walletId = await walletIdOf(user);
    const auth = new SoftAuthenticator("app.test", "http://app.test");
    const challenge = randomBytes(32).toString("base64url");
    const add = JSON.stringify({
      type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
      timestampMs: String(h.clock.now),
      organizationId: user.orgId,
      parameters: {
        userId: user.userId,
        authenticators: [{ authenticatorName: "pk", challenge, attestation: auth.attest(challenge) }],
      },
    });
    const added = await post(h.url, "/public/v1/submit/create_authenticators", add, {
      "X-Stamp": stampWithPrivateKey(add, user.sessionKey).stampHeaderValue,
    });
    expect(added.status).toBe(200);
    h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
    const refused = await submit(user, { walletId, targetPublicKey: frameKey().publicKey });
    expect(refused.json.details).toEqual([{ stepUpMethods: ["email", "passkey"] }]);

    const text = JSON.stringify({
      type: "ACTIVITY_TYPE_EXPORT_WALLET",
      timestampMs: String(h.clock.now),
      organizationId: user.orgId,
      parameters: { walletId, targetPublicKey: frameKey().publicKey },
    });
    const ok = await post(h.url, EXPORT_PATH, text, { "X-Stamp-WebAuthn": auth.stamp(text) });
    expect(ok.json.code ?? "").toBe("");
    expect(ok.status).toBe(200);
  });

  it("a code of the user's authenticator app is a fresh sign-in, accepted once", async () => {
    const user = await signUpByEmail(h, unique("totp"), KEY);
    const walletId = await walletIdOf(user);
    const mfa = (path: string, type: string, parameters: Record<string, unknown>) =>
      post(
        h.url,
        path,
        {
          ...stamped(
            "/public/v1/query/whoami",
            { type, timestampMs: String(h.clock.now), organizationId: user.orgId, parameters },
            user.sessionKey,
          ),
          ...parameters,
        },
        KEY,
      );
    const requested = await mfa(
      "/signer/v1/auth-request-multi-factor",
      "OPERATION_TYPE_REQUEST_MULTI_FACTOR",
      {
        multiFactorType: "totp",
      },
    );
    const secret = new URL(requested.json.multiFactorTotpUrl as string).searchParams.get("secret") as string;
    const multiFactorId = requested.json.multiFactorId as string;
    const code = (stepsAhead = 0) =>
      generate({ secret, epoch: Math.floor(h.clock.now / 1000) + stepsAhead * 30 });
    const verified = await mfa("/signer/v1/auth-verify-multi-factor", "OPERATION_TYPE_VERIFY_MULTI_FACTOR", {
      multiFactorId,
      multiFactorCode: await code(),
    });
    expect(verified.status).toBe(200);
    h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);

    const refused = await submit(user, { walletId, targetPublicKey: frameKey().publicKey });
    expect(refused.json.details).toEqual([{ stepUpMethods: ["email", "totp"] }]);
    const right = await code();
    const ok = await submit(user, {
      walletId,
      targetPublicKey: frameKey().publicKey,
      multiFactor: { multiFactorId, multiFactorCode: right },
    });
    expect(ok.status).toBe(200);
    // Another body with the same code: a code is accepted once.
    const reused = await submit(user, {
      walletId,
      targetPublicKey: frameKey().publicKey,
      multiFactor: { multiFactorId, multiFactorCode: right },
    });
    expect([reused.status, reused.json.code]).toEqual([400, "INVALID_MFA_CODE"]);
    expect(await rows(user.userId)).toEqual({ activities: 1, audits: 1 });
  });

  it("answers bad input with stable 4xx codes and writes nothing", async () => {
    const user = await signUpByEmail(h, unique("bad"), KEY);
    const walletId = await walletIdOf(user);
    const target = frameKey();

    const badJson = await post(h.url, EXPORT_PATH, "{not json", { "X-Stamp": "x" });
    expect([badJson.status, badJson.json.code]).toEqual([400, "INVALID_JSON"]);

    const unknown = await submit(user, { walletId: "no-such-wallet", targetPublicKey: target.publicKey });
    expect([unknown.status, unknown.json.code]).toEqual([404, "WALLET_NOT_FOUND"]);

    // Not a P-256 point, a truncated key, not hex: refused before anything runs.
    for (const targetPublicKey of [`04${"11".repeat(64)}`, target.publicKey.slice(0, 64), "zz", 42]) {
      const wrong = await submit(user, { walletId, targetPublicKey });
      expect([wrong.status, wrong.json.code]).toEqual([400, "INVALID_REQUEST"]);
    }
    const missing = await submit(user, { targetPublicKey: target.publicKey });
    expect([missing.status, missing.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const badCode = await submit(user, {
      walletId,
      targetPublicKey: target.publicKey,
      multiFactor: { multiFactorId: "f", multiFactorCode: "12ab56" },
    });
    expect([badCode.status, badCode.json.code]).toEqual([400, "INVALID_REQUEST"]);
    expect(await rows(user.userId)).toEqual({ activities: 0, audits: 0 });
  });

  it("another user's session cannot export this wallet", async () => {
    const owner = await signUpByEmail(h, unique("owner"), KEY);
    const thief = await signUpByEmail(h, unique("thief"), KEY);
    const walletId = await walletIdOf(owner);
    const target = frameKey();
    // Addressed to the owner's organisation: the thief's key does not belong to it.
    const otherOrg = await submit(
      thief,
      { walletId, targetPublicKey: target.publicKey },
      { orgId: owner.orgId },
    );
    expect([otherOrg.status, otherOrg.json.code]).toEqual([403, "FORBIDDEN"]);
    // In the thief's own organisation, the owner's wallet is as unknown as any.
    const own = await submit(thief, { walletId, targetPublicKey: target.publicKey });
    expect([own.status, own.json.code]).toEqual([404, "WALLET_NOT_FOUND"]);
    expect(await rows(owner.userId)).toEqual({ activities: 0, audits: 0 });
    expect(await rows(thief.userId)).toEqual({ activities: 0, audits: 0 });
  });

  it("limits exports per user (429 RATE_LIMITED, Retry-After) and writes nothing beyond the limit", async () => {
    const user = await signUpByEmail(h, unique("limit"), KEY);
    const walletId = await walletIdOf(user);
    const limit = h.service.ctx.limits.exportsPerUser;
    for (let i = 0; i < limit; i++) {
      const ok = await submit(user, { walletId, targetPublicKey: frameKey().publicKey });
      expect(ok.status).toBe(200);
    }
    const limited = await submit(user, { walletId, targetPublicKey: frameKey().publicKey });
    expect([limited.status, limited.json.code]).toEqual([429, "RATE_LIMITED"]);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await rows(user.userId)).toEqual({ activities: limit, audits: limit });
  });
});
