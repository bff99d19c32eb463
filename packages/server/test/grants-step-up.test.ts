/**
 * Issue 48: a permission grant lets the app's backend sign while the user is away, so making one needs a
 * fresh sign-in, as a wallet export does (a session minutes old with no proof is refused; an email code's
 * verification token then makes it, once); and a grant signs with the account the app shows, the
 * imported one after a wallet import. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import { createBackendClient } from "@latchkey/backend";
import {
  encodeImportSecret,
  encryptToImportKey,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  parseImportSecret,
  STEP_UP_MAX_AGE_MS,
  stampWithPrivateKey,
  toHex,
  verifyImportBundle,
} from "@latchkey/protocol";
import { recoverMessageAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isBip39Mnemonic } from "../src/users/importedWallet";
import {
  type EmailUser,
  type Harness,
  LINK_APP,
  post,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  verificationToken,
} from "./helpers";
import { SoftAuthenticator } from "./soft-authenticator";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const SERVER_KEY = generateP256PrivateKey();
const HOUR = 3600_000;

describe.each(["sqlite", "postgres"] as const)(
  "grants: fresh sign-in and the current wallet (%s)",
  (kind) => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(kind, {
        apps: [
          {
            ...TEST_APP,
            serverKeys: [{ name: "bot", publicKey: toHex(p256PublicKeyFromPrivate(SERVER_KEY, true)) }],
          },
          LINK_APP,
        ],
      });
    });
    afterAll(async () => {
      await h?.close();
    });

    const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
    const permissions = () => ({ chainIds: [1], messages: true, expiresAt: h.clock.now + HOUR });

    /** `/v1/grants/create`, stamped by the user's session over the operation (and its proof). */
    function createGrant(user: EmailUser, proof: Record<string, unknown> = {}) {
      return post(
        h.url,
        "/signer/v1/grants/create",
        stamped(
          "/public/v1/query/whoami",
          {
            type: "OPERATION_TYPE_CREATE_GRANT",
            timestampMs: String(h.clock.now),
            organizationId: user.orgId,
            parameters: { permissions: permissions(), ...proof },
          },
          user.sessionKey,
        ),
        KEY,
      );
    }

    const grantsOf = (userId: string) =>
      h.service.ctx.db.selectFrom("grants").select("id").where("user_id", "=", userId).execute();

    it("create_grant from a session older than the step-up window needs a fresh sign-in; an email code's token makes it, once", async () => {
      const email = unique("stale");
      const user = await signUpByEmail(h, email, KEY);
      h.clock.advance(STEP_UP_MAX_AGE_MS + 10_000);
      const refused = await createGrant(user);
      expect([refused.status, refused.json.code]).toEqual([403, "STEP_UP_REQUIRED"]);
      expect(refused.json.data).toEqual({ stepUpMethods: ["email"] });
      expect(await grantsOf(user.userId)).toHaveLength(0);
      // A code for another address proves nothing about this account.
      const foreign = await createGrant(user, {
        verificationToken: await verificationToken(h, KEY, unique("x")),
      });
      expect([foreign.status, foreign.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
      const token = await verificationToken(h, KEY, email);
      const made = await createGrant(user, { verificationToken: token });
      expect([made.status, made.json.code]).toEqual([200, undefined]);
      const grantId = (made.json.grant as { grantId: string }).grantId;
      const audit = await h.service.ctx.db
        .selectFrom("audit_log")
        .select("details")
        .where("user_id", "=", user.userId)
        .where("event", "=", "grant.created")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(audit.details as string)).toMatchObject({ grantId, stepUp: "email" });
      // The token is spent by the grant it made.
      const again = await createGrant(user, { verificationToken: token });
      expect([again.status, again.json.code]).toEqual([400, "INVALID_VERIFICATION_TOKEN"]);
      expect(await grantsOf(user.userId)).toHaveLength(1);
    });

    it("a passkey added with a proof stamps create_grant after the window: that is the step-up", async () => {
      const email = unique("passkey");
      const user = await signUpByEmail(h, email, KEY);
      const passkey = new SoftAuthenticator("app.test", "http://app.test");
      const challenge = randomBytes(32).toString("base64url");
      const text = JSON.stringify({
        type: "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        timestampMs: String(h.clock.now),
        organizationId: user.orgId,
        parameters: {
          userId: user.userId,
          authenticators: [{ authenticatorName: "pk", challenge, attestation: passkey.attest(challenge) }],
        },
      });
      const added = await post(h.url, "/public/v1/submit/create_authenticators", text, {
        "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
      });
      expect([added.status, added.json.code]).toEqual([200, undefined]);
      h.clock.advance(STEP_UP_MAX_AGE_MS + 10_000);
      const body = JSON.stringify({
        type: "OPERATION_TYPE_CREATE_GRANT",
        timestampMs: String(h.clock.now),
        organizationId: user.orgId,
        parameters: { permissions: permissions() },
      });
      const made = await post(
        h.url,
        "/signer/v1/grants/create",
        {
          stampedRequest: {
            body,
            stamp: { stampHeaderName: "X-Stamp-WebAuthn", stampHeaderValue: passkey.stamp(body) },
            url: "https://signer.test/public/v1/query/whoami",
          },
        },
        KEY,
      );
      expect([made.status, made.json.code]).toEqual([200, undefined]);
      const audit = await h.service.ctx.db
        .selectFrom("audit_log")
        .select("details")
        .where("user_id", "=", user.userId)
        .where("event", "=", "grant.created")
        .executeTakeFirstOrThrow();
      expect(JSON.parse(audit.details as string)).toMatchObject({ stepUp: "passkey" });
    });

    it("a fresh email-code session makes a grant without more", async () => {
      const user = await signUpByEmail(h, unique("fresh"), KEY);
      const made = await createGrant(user);
      expect([made.status, made.json.code]).toEqual([200, undefined]);
    });

    it("a grant signs with the account the app shows: the imported one after a wallet import", async () => {
      const user = await signUpByEmail(h, unique("importer"), KEY);
      const made = await createGrant(user);
      expect(made.status).toBe(200);
      const grantId = (made.json.grant as { grantId: string }).grantId;
      // The user imports an EVM private key (their session is fresh): the app now shows its address.
      const key = randomBytes(32).toString("hex");
      const imported = privateKeyToAddress(`0x${key}`);
      const submit = (type: string, path: string, parameters: Record<string, unknown>) => {
        const text = JSON.stringify({
          type,
          timestampMs: String(h.clock.now),
          organizationId: user.orgId,
          parameters,
        });
        return post(h.url, `/public/v1/submit/${path}`, text, {
          "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
        });
      };
      const init = await submit("ACTIVITY_TYPE_INIT_IMPORT_WALLET", "init_import_wallet", {
        userId: user.userId,
      });
      const importBundle = (
        init.json.activity as { result: { initImportWalletResult: { importBundle: string } } }
      ).result.initImportWalletResult.importBundle;
      const frame = await fetch(`${h.url}/frames/import?appId=${TEST_APP.id}`).then((r) => r.text());
      const { targetPublicKey } = verifyImportBundle({
        importBundle,
        organizationId: user.orgId,
        userId: user.userId,
        signerPublicKey: /name="latchkey-import-signer" content="([0-9a-f]+)"/.exec(frame)?.[1] ?? "",
        nowMs: h.clock.now,
      });
      const encryptedBundle = await encryptToImportKey({
        plaintext: encodeImportSecret(parseImportSecret("evm_private_key", key, isBip39Mnemonic)),
        targetPublicKey,
      });
      const done = await submit("ACTIVITY_TYPE_IMPORT_WALLET", "import_wallet", {
        userId: user.userId,
        encryptedBundle,
      });
      expect([done.status, done.json.code]).toEqual([200, undefined]);
      const who = await post(
        h.url,
        "/signer/v1/whoami",
        stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
        KEY,
      );
      expect(who.json.address).toBe(imported);
      // The backend signs under the grant made before the import: with the imported key.
      const backend = createBackendClient({
        url: h.url,
        appId: TEST_APP.id,
        serverKey: SERVER_KEY,
        now: () => h.clock.now,
      });
      const message = "rebalance after import";
      const signed = await backend.signMessage({ userId: user.userId, grantId, message });
      expect(signed.address).toBe(imported);
      expect(await recoverMessageAddress({ message, signature: signed.signature })).toBe(imported);
      expect(imported).not.toBe(user.address);
    });
  },
);
