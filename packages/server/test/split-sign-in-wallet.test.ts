/**
 * Split custody (docs/split-custody.md §3): a split app's new user's wallet carried by the code's sign-in
 * (`/v1/otp`'s `splitWallet`), one request instead of create_split_wallet after it. The wallet is stored
 * with no secret and signs with the user share; it is bound to that sign-in (another code, session key
 * or organisation: 400 USER_SHARE_INVALID, the code not spent), checked as create_split_wallet checks it,
 * refused for a service app and for a user who has a wallet, never looked at for a wrong code, and a spent
 * code makes no second wallet. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  encodeWalletSecret,
  newWalletSecret,
  type PublicAccount,
  type SignInBinding,
  sealSignInWallet,
  splitWalletSecret,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import { type Hex, keccak256, recoverAddress, toHex as viemHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeFrom, type Harness, post, startHarness, TEST_APP, targetKey } from "./helpers";
import { fetchShareKey, holderOfShare, SPLIT, SPLIT_APP, signRawBody } from "./helpers/splitKeyHolder";

const SERVICE = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

/** What a key holder makes for a sign-in: the sealed shares, the accounts, and the user share it keeps. */
async function signInWallet(binding: SignInBinding, shareKey: string, tamper: { shares?: "garbage" } = {}) {
  const { secret, accounts } = await newWalletSecret();
  const encoded = encodeWalletSecret(secret);
  wipeWalletSecret(secret);
  const { userShare, serviceShare } = await splitWalletSecret(encoded);
  encoded.fill(0);
  if (tamper.shares === "garbage") serviceShare.fill(9);
  const sealed = await sealSignInWallet({ userShare, serviceShare, shareKey, ...binding });
  serviceShare.fill(0);
  return { sealed, accounts, userShare };
}

describe.each(["sqlite", "postgres"] as const)(
  "a split wallet carried by the code's sign-in (%s)",
  (kind) => {
    let h: Harness;
    let shareKey: string;
    beforeAll(async () => {
      h = await startHarness(kind, { apps: [TEST_APP, SPLIT_APP] });
      shareKey = await fetchShareKey(h.url, SPLIT);
    });
    afterAll(async () => {
      await h?.close();
    });

    const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

    /** A sign-up by email up to the code: the user (no wallet in a split app), the code and its target key. */
    async function signUp(name: string, headers = SPLIT) {
      const email = unique(name);
      const t = targetKey();
      const before = h.smtp.mails.length;
      const s = await post(h.url, "/signer/v1/signup", { email, targetPublicKey: t.publicKey }, headers);
      expect(s.status).toBe(200);
      const otpCode = codeFrom((await h.smtp.waitFor(email, before)).raw);
      const orgId = s.json.orgId as string;
      const otpId = s.json.otpId as string;
      return {
        email,
        t,
        orgId,
        otpId,
        otpCode,
        userId: s.json.userId as string,
        binding: { organizationId: orgId, otpId, targetPublicKey: t.publicKey },
      };
    }
    type SignedUp = Awaited<ReturnType<typeof signUp>>;

    const otp = (
      u: SignedUp,
      splitWallet?: { sealed: string; accounts: PublicAccount[] },
      extra: Record<string, unknown> = {},
      headers = SPLIT,
    ) =>
      post(
        h.url,
        "/signer/v1/otp",
        {
          orgId: u.orgId,
          otpId: u.otpId,
          otpCode: u.otpCode,
          targetPublicKey: u.t.publicKey,
          ...(splitWallet ? { splitWallet } : {}),
          ...extra,
        },
        headers,
      );

    const walletsOf = (orgId: string) =>
      h.service.ctx.db.selectFrom("wallets").selectAll().where("org_id", "=", orgId).execute();

    it("one request: the sign-in records the wallet with no secret, answers it, and it signs with the user share", async () => {
      const u = await signUp("one-request");
      const made = await signInWallet(u.binding, shareKey);
      const res = await otp(u, made);
      expect(res.status).toBe(200);
      const user = res.json.user as Record<string, unknown>;
      const [evm, sol] = made.accounts;
      expect(res.json.status).toBe("SUCCESS");
      expect(user).toMatchObject({
        custody: "split",
        walletState: "ready",
        address: evm?.address,
        solanaAddress: sol?.address,
        walletId: expect.any(String),
      });
      const walletId = user.walletId as string;

      const [wallet, ...others] = await walletsOf(u.orgId);
      expect(others).toEqual([]);
      expect(wallet).toMatchObject({ id: walletId, custody: "split", sealed_mnemonic: "" });
      expect(wallet?.sealed_service_share).toEqual(expect.any(String));
      const accounts = await h.service.ctx.db
        .selectFrom("wallet_accounts")
        .select(["address", "sealed_private_key", "secret_index"])
        .where("wallet_id", "=", walletId)
        .orderBy("secret_index")
        .execute();
      expect(accounts.map((a) => [a.address, a.sealed_private_key, Number(a.secret_index)])).toEqual([
        [evm?.address, "", 0],
        [sol?.address, "", 1],
      ]);
      const audit = await h.service.ctx.db
        .selectFrom("audit_log")
        .select("details")
        .where("user_id", "=", u.userId)
        .where("event", "=", "wallet.created")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(audit.details ?? "{}")).toEqual({
        walletId,
        custody: "split",
        addresses: [evm?.address, sol?.address],
      });

      // The session the sign-in issued signs with the user share, and only with it.
      const sessionKey = await u.t.open(res.json.credentialBundle as string);
      const holder = holderOfShare(
        h,
        { orgId: u.orgId, userId: u.userId, sessionKey },
        {
          walletId,
          userShare: made.userShare,
          shareKey,
        },
      );
      const digest = keccak256(viemHex("signed after a one-request sign-up"));
      const signed = await holder.submit(
        "sign_raw_payload",
        signRawBody(evm?.address ?? "", digest.slice(2)),
      );
      expect(signed.status).toBe(200);
      const r = (signed.json.activity as { result: Record<string, { r: string; s: string; v: string }> })
        .result.signRawPayloadResult;
      const signature = `0x${r?.r}${r?.s}${(27 + Number.parseInt(r?.v ?? "0", 16)).toString(16)}` as Hex;
      expect(await recoverAddress({ hash: digest, signature })).toBe(evm?.address);
      const without = await holder.submit(
        "sign_raw_payload",
        signRawBody(evm?.address ?? "", digest.slice(2)),
        {
          share: "none",
        },
      );
      expect([without.status, without.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);

      // The code is spent: the same request again makes no second wallet.
      const again = await otp(u, made);
      expect([again.status, again.json.code]).toEqual([400, "OTP_ALREADY_USED"]);
      expect(await walletsOf(u.orgId)).toHaveLength(1);
    });

    it("the shares open for that sign-in only: another code, session key or organisation is refused and the code is not spent", async () => {
      const u = await signUp("bound");
      const other = await signUp("bound-other");
      const sealedFor = [
        { ...u.binding, otpId: other.otpId },
        { ...u.binding, targetPublicKey: targetKey().publicKey },
        { ...u.binding, organizationId: other.orgId },
      ];
      for (const binding of sealedFor) {
        const res = await otp(u, await signInWallet(binding, shareKey));
        expect([res.status, res.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
      }
      // Sealed to another key than the service's share key.
      const foreign = await signInWallet(u.binding, targetKey().publicKey);
      const res = await otp(u, foreign);
      expect([res.status, res.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
      expect(await walletsOf(u.orgId)).toEqual([]);
      // Nothing was spent: the same code signs in, without a wallet (made later by create_split_wallet).
      const plain = await otp(u);
      expect(plain.status).toBe(200);
      expect(plain.json.user).toMatchObject({ custody: "split", walletState: "none" });
      expect(await walletsOf(u.orgId)).toEqual([]);
    });

    it("checks the wallet as create_split_wallet does: shares that make no wallet, accounts that do not match", async () => {
      const u = await signUp("checks");
      const garbage = await signInWallet(u.binding, shareKey, { shares: "garbage" });
      const bad = await otp(u, garbage);
      expect([bad.status, bad.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
      const made = await signInWallet(u.binding, shareKey);
      const elsewhere = await signInWallet(u.binding, shareKey);
      const swapped = await otp(u, { sealed: made.sealed, accounts: elsewhere.accounts });
      expect([swapped.status, swapped.json.code]).toEqual([400, "INVALID_REQUEST"]);
      expect(swapped.json.error).toContain("The accounts do not match the wallet the shares make");
      expect(await walletsOf(u.orgId)).toEqual([]);
      // A wrong code is refused before the wallet is looked at (garbage shares, the code's error).
      const wrong = await otp(u, garbage, { otpCode: u.otpCode === "000000" ? "111111" : "000000" });
      expect([wrong.status, wrong.json.code]).toEqual([400, "INVALID_OTP"]);
      // The right one with the right wallet still works.
      expect((await otp(u, made)).status).toBe(200);
      expect(await walletsOf(u.orgId)).toHaveLength(1);
    });

    it("a service app's sign-in carries no wallet, and a user who has one cannot be given another", async () => {
      const s = await signUp("service", SERVICE);
      const res = await otp(s, await signInWallet(s.binding, shareKey), {}, SERVICE);
      expect([res.status, res.json.code]).toEqual([400, "INVALID_REQUEST"]);
      expect(res.json.error).toContain("custody: service");

      // A split user with a wallet signs in again by code: a wallet carried by it is refused.
      const u = await signUp("has-wallet");
      expect((await otp(u, await signInWallet(u.binding, shareKey))).status).toBe(200);
      const t = targetKey();
      const before = h.smtp.mails.length;
      const auth = await post(
        h.url,
        "/signer/v1/auth",
        { email: u.email, targetPublicKey: t.publicKey },
        SPLIT,
      );
      expect(auth.status).toBe(200);
      const again: SignedUp = {
        ...u,
        t,
        otpId: auth.json.otpId as string,
        otpCode: codeFrom((await h.smtp.waitFor(u.email, before)).raw),
        binding: { organizationId: u.orgId, otpId: auth.json.otpId as string, targetPublicKey: t.publicKey },
      };
      const second = await otp(again, await signInWallet(again.binding, shareKey));
      expect([second.status, second.json.code]).toEqual([409, "WALLET_EXISTS"]);
      expect(await walletsOf(u.orgId)).toHaveLength(1);
    });
  },
);
