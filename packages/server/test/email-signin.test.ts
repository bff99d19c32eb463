import { createPublicKey, verify } from "node:crypto";
import { base58 } from "@scure/base";
import { hashMessage, keccak256, recoverAddress, toHex as viemHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  codeFrom,
  type Harness,
  LINK_APP,
  linkFrom,
  post,
  SCENARIO_DATABASES,
  signBody,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const LINK_KEY = { authorization: `Bearer ${LINK_APP.apiKeys[0]}` };

function ed25519Verify(solanaAddress: string, message: Uint8Array, signature: Uint8Array): boolean {
  const spki = Buffer.concat([
    Buffer.from("302a300506032b6570032100", "hex"),
    Buffer.from(base58.decode(solanaAddress)),
  ]);
  return verify(null, message, createPublicKey({ key: spki, format: "der", type: "spki" }), signature);
}

describe.each(SCENARIO_DATABASES)("email sign-in end to end (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind);
  });
  afterAll(async () => {
    await h?.close();
  });

  async function signUpWithOtp(email: string) {
    const target = targetKey();
    const before = h.smtp.mails.length;
    const signup = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: target.publicKey }, KEY);
    expect(signup.status).toBe(200);
    const mail = await h.smtp.waitFor(email, before);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      {
        orgId: signup.json.orgId,
        otpId: signup.json.otpId,
        otpCode: codeFrom(mail.raw),
        targetPublicKey: target.publicKey,
      },
      KEY,
    );
    expect(otp.status).toBe(200);
    expect(otp.json.status).toBe("SUCCESS");
    const sessionKey = await target.open(otp.json.credentialBundle as string);
    return { signup: signup.json as Record<string, string>, sessionKey, user: otp.json.user };
  }

  it("signs up by email code, then signs an EVM digest and a Solana message", async () => {
    const email = `new-${kind}@example.com`;
    const lookup = await post(h.url, "/signer/v1/lookup", { email }, KEY);
    expect(lookup.json).toEqual({ orgId: null });

    const { signup, sessionKey, user } = await signUpWithOtp(email);
    expect(signup.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(signup.solanaAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(sessionKey).toHaveLength(32);

    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: signup.orgId }, sessionKey),
      KEY,
    );
    expect(who.status).toBe(200);
    expect(who.json).toEqual({
      email,
      orgId: signup.orgId,
      userId: signup.userId,
      address: signup.address,
      solanaAddress: signup.solanaAddress,
      // Split custody's fields (docs/split-custody.md): a service app's user has a ready service wallet.
      custody: "service",
      walletState: "ready",
      walletId: expect.any(String),
      recovery: [],
    });
    // The code's answer already named the user, as whoami does: the client connects without whoami.
    expect(user).toEqual(who.json);

    // EVM: the 65-byte r‖s‖v signature recovers to the user's address.
    const digest = hashMessage("hello latchkey");
    const evm = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(signup.orgId as string, signup.address as string, digest, "HASH_FUNCTION_NO_OP"),
        sessionKey,
      ),
      KEY,
    );
    expect(evm.status).toBe(200);
    const sig = evm.json.signature as `0x${string}`;
    expect(sig).toMatch(/^0x[0-9a-f]{130}$/);
    expect(["1b", "1c"]).toContain(sig.slice(-2));
    expect(await recoverAddress({ hash: digest, signature: sig })).toBe(signup.address);

    // Solana: ed25519 over the message bytes, the 64-byte signature first.
    const message = new TextEncoder().encode("solana message from latchkey");
    const sol = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(
          signup.orgId as string,
          signup.solanaAddress as string,
          viemHex(message),
          "HASH_FUNCTION_NOT_APPLICABLE",
        ),
        sessionKey,
      ),
      KEY,
    );
    expect(sol.status).toBe(200);
    const solSig = Buffer.from((sol.json.signature as string).slice(2), "hex");
    expect(solSig).toHaveLength(65);
    expect(ed25519Verify(signup.solanaAddress as string, message, solSig.subarray(0, 64))).toBe(true);
  });

  it("signs in a returning user by email code", async () => {
    const email = `returning-${kind}@example.com`;
    const first = await signUpWithOtp(email);
    const lookup = await post(h.url, "/signer/v1/lookup", { email: email.toUpperCase() }, KEY);
    expect(lookup.json).toEqual({ orgId: first.signup.orgId });

    const target = targetKey();
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: target.publicKey }, KEY);
    expect(auth.status).toBe(200);
    expect(auth.json.orgId).toBe(first.signup.orgId);
    const mail = await h.smtp.waitFor(email, before);
    const otp = await post(
      h.url,
      "/signer/v1/otp",
      {
        orgId: auth.json.orgId,
        otpId: auth.json.otpId,
        otpCode: codeFrom(mail.raw),
        targetPublicKey: target.publicKey,
      },
      KEY,
    );
    const sessionKey = await target.open(otp.json.credentialBundle as string);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: first.signup.orgId }, sessionKey),
      KEY,
    );
    expect(who.json.address).toBe(first.signup.address);
    expect(otp.json.user).toEqual(who.json);

    // The code is single use.
    const again = await post(
      h.url,
      "/signer/v1/otp",
      {
        orgId: auth.json.orgId,
        otpId: auth.json.otpId,
        otpCode: codeFrom(mail.raw),
        targetPublicKey: target.publicKey,
      },
      KEY,
    );
    expect(again.status).toBe(400);
    expect(again.json.code).toBe("OTP_ALREADY_USED");
  });

  it("signs up and back in through a magic link whose bundle only this browser's key opens", async () => {
    const email = `link-${kind}@example.com`;
    const target = targetKey();
    const before = h.smtp.mails.length;
    const config = await post(h.url, "/signer/v1/signer-config", {}, LINK_KEY);
    expect(config.json).toMatchObject({ email: { mode: "MAGIC_LINK" } });
    const signup = await post(
      h.url,
      "/signer/v1/signup",
      { email, targetPublicKey: target.publicKey, redirectParams: "from=mail" },
      LINK_KEY,
    );
    expect(signup.status).toBe(200);
    expect(signup.json.otpId).toBeUndefined();
    const link = linkFrom((await h.smtp.waitFor(email, before)).raw);
    expect(link.origin + link.pathname).toBe("http://link.test/auth/callback");
    expect(link.searchParams.get("orgId")).toBe(signup.json.orgId);
    expect(link.searchParams.get("from")).toBe("mail");
    const bundle = link.searchParams.get("bundle") as string;

    await expect(targetKey().open(bundle)).rejects.toThrow();
    const sessionKey = await target.open(bundle);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: signup.json.orgId }, sessionKey),
      LINK_KEY,
    );
    expect(who.json.email).toBe(email);

    // Returning user: /v1/auth mails a new link.
    const t2 = targetKey();
    const mark = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: t2.publicKey }, LINK_KEY);
    expect(auth.status).toBe(200);
    const link2 = linkFrom((await h.smtp.waitFor(email, mark)).raw);
    const key2 = await t2.open(link2.searchParams.get("bundle") as string);
    const who2 = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: auth.json.orgId }, key2),
      LINK_KEY,
    );
    expect(who2.json.userId).toBe(signup.json.userId);
  });

  it("burns a code after five wrong tries", async () => {
    const email = `burn-${kind}@example.com`;
    const target = targetKey();
    const before = h.smtp.mails.length;
    const signup = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: target.publicKey }, KEY);
    const code = codeFrom((await h.smtp.waitFor(email, before)).raw);
    const wrong = code === "000000" ? "111111" : "000000";
    const submit = (otpCode: string) =>
      post(
        h.url,
        "/signer/v1/otp",
        { orgId: signup.json.orgId, otpId: signup.json.otpId, otpCode, targetPublicKey: target.publicKey },
        KEY,
      );
    for (let i = 0; i < 5; i++) {
      const r = await submit(wrong);
      expect(r.status).toBe(400);
      expect(r.json).toEqual({ error: "invalid OTP code", code: "INVALID_OTP" });
    }
    const right = await submit(code);
    expect(right.status).toBe(400);
    expect(right.json.code).toBe("OTP_ATTEMPTS_EXCEEDED");
  });

  it("refuses an expired code and an expired session", async () => {
    const email = `expiry-${kind}@example.com`;
    const { signup, sessionKey } = await signUpWithOtp(email);
    const whoami = () =>
      post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: signup.orgId }, sessionKey),
        KEY,
      );
    expect((await whoami()).status).toBe(200);

    const target = targetKey();
    const before = h.smtp.mails.length;
    const auth = await post(h.url, "/signer/v1/auth", { email, targetPublicKey: target.publicKey }, KEY);
    const code = codeFrom((await h.smtp.waitFor(email, before)).raw);

    h.clock.advance(15 * 60 * 1000 + 1000);
    try {
      const expired = await whoami();
      expect(expired.status).toBe(401);
      expect(expired.json.code).toBe("SESSION_EXPIRED");
      const late = await post(
        h.url,
        "/signer/v1/otp",
        { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: target.publicKey },
        KEY,
      );
      expect(late.status).toBe(400);
      expect(late.json.code).toBe("OTP_EXPIRED");
    } finally {
      h.clock.advance(-(15 * 60 * 1000 + 1000));
    }
  });

  it("executes a submit body once: a resubmission answers the first activity", async () => {
    const { signup, sessionKey } = await signUpWithOtp(`idem-${kind}@example.com`);
    const digest = keccak256(viemHex("idempotent"));
    const req = stamped(
      "/public/v1/submit/sign_raw_payload",
      signBody(signup.orgId as string, signup.address as string, digest, "HASH_FUNCTION_NO_OP"),
      sessionKey,
    );
    const a = await post(h.url, "/signer/v1/sign-payload", req, KEY);
    const b = await post(h.url, "/signer/v1/sign-payload", req, KEY);
    expect(b.json.signature).toBe(a.json.signature);

    // The same body sent straight to the key-management API returns the same activity.
    const direct = await post(h.url, "/public/v1/submit/sign_raw_payload", req.stampedRequest.body, {
      [req.stampedRequest.stamp.stampHeaderName]: req.stampedRequest.stamp.stampHeaderValue,
    });
    expect(direct.status).toBe(200);
    const activity = direct.json.activity as {
      id: string;
      status: string;
      result: { signRawPayloadResult: { r: string } };
    };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.result.signRawPayloadResult.r).toBe((a.json.signature as string).slice(2, 66));
    const count = await h.service.ctx.db
      .selectFrom("activities")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("org_id", "=", signup.orgId as string)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);

    const got = await post(
      h.url,
      "/public/v1/query/get_activity",
      JSON.stringify({ organizationId: signup.orgId, activityId: activity.id }),
      {
        "X-Stamp": stamped("/x", { organizationId: signup.orgId, activityId: activity.id }, sessionKey)
          .stampedRequest.stamp.stampHeaderValue,
      },
    );
    expect((got.json.activity as { id: string }).id).toBe(activity.id);
  });

  it("makes a read-write session and API keys through the key-management API", async () => {
    const { signup, sessionKey } = await signUpWithOtp(`keys-${kind}@example.com`);
    const target = targetKey();
    const body = {
      type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
      timestampMs: String(Date.now()),
      organizationId: signup.orgId,
      parameters: { targetPublicKey: target.publicKey, expirationSeconds: "3600" },
    };
    const text = JSON.stringify(body);
    const { stampHeaderValue } = stamped("/x", body, sessionKey).stampedRequest.stamp;
    const res = await post(h.url, "/public/v1/submit/create_read_write_session", text, {
      "X-Stamp": stampHeaderValue,
    });
    expect(res.status).toBe(200);
    const result = (
      res.json.activity as {
        result: { createReadWriteSessionResultV2: { credentialBundle: string; apiKeyId: string } };
      }
    ).result.createReadWriteSessionResultV2;
    const newKey = await target.open(result.credentialBundle);
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: signup.orgId }, newKey),
      KEY,
    );
    expect(who.json.userId).toBe(signup.userId);

    const q = (name: string, b: object, key = sessionKey) =>
      post(h.url, `/public/v1/query/${name}`, JSON.stringify(b), {
        "X-Stamp": stamped("/x", b, key).stampedRequest.stamp.stampHeaderValue,
      });
    const wallets = await q("list_wallets", { organizationId: signup.orgId });
    const walletId = (wallets.json.wallets as { walletId: string }[])[0]?.walletId as string;
    const accounts = await q("list_wallet_accounts", { organizationId: signup.orgId, walletId });
    expect((accounts.json.accounts as { address: string }[]).map((a) => a.address)).toEqual([
      signup.address,
      signup.solanaAddress,
    ]);

    // Delete the new session key: it stops working at once.
    const del = {
      type: "ACTIVITY_TYPE_DELETE_API_KEYS",
      timestampMs: String(Date.now()),
      organizationId: signup.orgId,
      parameters: { userId: signup.userId, apiKeyIds: [result.apiKeyId] },
    };
    const delRes = await post(h.url, "/public/v1/submit/delete_api_keys", JSON.stringify(del), {
      "X-Stamp": stamped("/x", del, sessionKey).stampedRequest.stamp.stampHeaderValue,
    });
    expect(delRes.status).toBe(200);
    const gone = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: signup.orgId }, newKey),
      KEY,
    );
    expect(gone.status).toBe(401);
    expect(gone.json.code).toBe("INVALID_STAMP");
  });

  it("keeps no key material in the clear in the database", async () => {
    const { signup } = await signUpWithOtp(`dump-${kind}@example.com`);
    const { db, keyring } = h.service.ctx;
    const wallet = await db
      .selectFrom("wallets")
      .selectAll()
      .where("org_id", "=", signup.orgId as string)
      .executeTakeFirstOrThrow();
    const mnemonic = (await keyring.open(wallet.sealed_mnemonic, `wallet:${wallet.id}`)).toString("utf8");
    expect(mnemonic.split(" ")).toHaveLength(12);
    const accounts = await db
      .selectFrom("wallet_accounts")
      .selectAll()
      .where("org_id", "=", signup.orgId as string)
      .execute();
    // The whole phrase, and any three of its words in a row, would betray the mnemonic.
    const words = mnemonic.split(" ");
    const secrets = [mnemonic, ...words.slice(0, -2).map((_, i) => words.slice(i, i + 3).join(" "))];
    for (const a of accounts) {
      const pk = await keyring.open(a.sealed_private_key, `wallet_account:${a.id}`);
      secrets.push(pk.toString("hex"), pk.toString("base64"));
    }
    const tables = [
      "apps",
      "app_api_keys",
      "data_keys",
      "users",
      "wallets",
      "wallet_accounts",
      "api_keys",
      "otps",
      "activities",
      "audit_log",
    ] as const;
    let dump = "";
    for (const t of tables) dump += JSON.stringify(await db.selectFrom(t).selectAll().execute());
    for (const s of secrets) expect(dump.includes(s)).toBe(false);
    expect(dump.includes(TEST_APP.apiKeys[0] as string)).toBe(false);
    // A sealed key cannot be opened as another row's.
    const [first] = accounts;
    await expect(
      keyring.open(first?.sealed_private_key as string, "wallet_account:someone-else"),
    ).rejects.toThrow();
  });
});
