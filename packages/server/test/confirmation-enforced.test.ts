/**
 * Enforced confirmations (issue 46): an app whose signing policy requires confirmation signs nothing
 * without the auth frame's confirmation of the exact body — a P-256 signature over the body's SHA-256 and
 * when the user confirmed, by the key the frame registered for the session (same origin only). Bound to
 * the body, the session and two minutes; replaying the body answers the one signature it made. A bare
 * digest and a Solana transaction are read for the frame (`preview_signing`). SQLite and PostgreSQL.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import { stampWithPrivateKey } from "@latchkey/protocol";
import { CONFIRMATION_KEY_PATH, CONFIRMATION_KEY_TYPE, confirmationMessage } from "@latchkey/protocol/frame";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import { getTransferCheckedInstruction } from "@solana-program/token";
import { type Hex, hashMessage, recoverAddress, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { main } from "../src/cli/index";
import type { AppConfig } from "../src/config";
import {
  type EmailUser,
  type Harness,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startHarness,
} from "./helpers";

const API_KEY = "lk_confirm_key_0123456789abcdef01";
const KINDS_KEY = "lk_confirm_kinds_0123456789abcdef";
const APP: AppConfig = {
  id: "confirm-app",
  name: "Confirm App",
  apiKeys: [API_KEY],
  allowedOrigins: ["http://confirm.test"],
  signingPolicy: { confirmation: { required: true } },
};
const KINDS_APP: AppConfig = {
  id: "confirm-kinds-app",
  name: "Confirm Kinds App",
  apiKeys: [KINDS_KEY],
  allowedOrigins: ["http://confirm-kinds.test"],
  signingPolicy: { confirmation: { required: ["solanaPayload"] } },
};

/** The auth frame's confirmation key, as WebCrypto makes it: P-256, the public key uncompressed. */
function confirmKey(): { privateKey: KeyObject; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const jwk = publicKey.export({ format: "jwk" });
  const coord = (v: string | undefined) => Buffer.from(v ?? "", "base64url").toString("hex");
  return { privateKey, publicKey: `04${coord(jwk.x)}${coord(jwk.y)}` };
}

/** What the frame answers on Confirm: `v1.<confirmedAtMs>.<r‖s hex>` over the body's digest. */
function confirmation(key: KeyObject, body: string, confirmedAtMs = Date.now()): string {
  const digest = createHash("sha256").update(body).digest("hex");
  const signature = sign("sha256", Buffer.from(confirmationMessage(digest, confirmedAtMs)), {
    key,
    dsaEncoding: "ieee-p1363",
  });
  return `v1.${confirmedAtMs}.${signature.toString("hex")}`;
}

const digest = () => `0x${randomBytes(32).toString("hex")}` as Hex;

describe.each(["sqlite", "postgres"] as const)("enforced confirmations (%s)", (kind) => {
  let h: Harness & { dbUrl: string };
  let user: EmailUser;
  const auth = { authorization: `Bearer ${API_KEY}` };
  const frameKey = confirmKey();

  beforeAll(async () => {
    h = await startHarness(kind, { apps: [APP, KINDS_APP] });
    user = await signUpByEmail(h, `confirm-${kind}-${randomBytes(3).toString("hex")}@example.com`, auth);
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  /** The frame's registration of its confirmation key; `site` is the browser's Sec-Fetch-Site. */
  function register(sessionKey: Uint8Array, orgId: string, publicKey: string, site?: string) {
    const text = JSON.stringify({
      type: CONFIRMATION_KEY_TYPE,
      timestampMs: String(Date.now()),
      organizationId: orgId,
      publicKey,
    });
    const stamp = stampWithPrivateKey(text, sessionKey);
    return post(h.url, CONFIRMATION_KEY_PATH, text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
      ...(site ? { "sec-fetch-site": site } : {}),
    });
  }

  /** `/v1/sign-payload` of a digest, with the frame's confirmation when given one. */
  function signDigest(u: EmailUser, payload: Hex, withConfirmation?: (body: string) => string) {
    const request = stamped(
      "/public/v1/submit/sign_raw_payload",
      signBody(u.orgId, u.address, payload, "HASH_FUNCTION_NO_OP"),
      u.sessionKey,
    );
    const body = request.stampedRequest.body;
    return post(
      h.url,
      "/signer/v1/sign-payload",
      {
        stampedRequest: {
          ...request.stampedRequest,
          ...(withConfirmation ? { confirmation: withConfirmation(body) } : {}),
        },
      },
      auth,
    ).then((r) => ({ ...r, body }));
  }

  const activitiesOf = (userId: string) =>
    h.service.ctx.db
      .selectFrom("activities")
      .select(["id", "status"])
      .where("user_id", "=", userId)
      .execute();
  const auditOf = (userId: string, event: string) =>
    h.service.ctx.db
      .selectFrom("audit_log")
      .select(["details"])
      .where("user_id", "=", userId)
      .where("event", "=", event)
      .execute();

  it("refuses a signature without the frame's confirmation, signing and recording nothing", async () => {
    const refused = await signDigest(user, digest());
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("CONFIRMATION_REQUIRED");
    expect(refused.json.error).toBe(
      "This app requires you to confirm this signature in the Latchkey frame; nothing was signed",
    );
    expect(await activitiesOf(user.userId)).toEqual([]);
    const [event] = await auditOf(user.userId, "signing.confirmation_refused");
    expect(JSON.parse(event?.details ?? "{}")).toMatchObject({
      code: "CONFIRMATION_REQUIRED",
      kinds: ["rawPayload"],
    });
  });

  it("takes a confirmation key only from the service's own origin", async () => {
    for (const site of [undefined, "cross-site", "same-site"]) {
      const r = await register(user.sessionKey, user.orgId, frameKey.publicKey, site);
      expect(r.status).toBe(403);
      expect(r.json.code).toBe("FORBIDDEN");
    }
    const bad = await register(user.sessionKey, user.orgId, "04abcd", "same-origin");
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("INVALID_PUBLIC_KEY");
    // Not registered yet: a well-formed confirmation is still refused.
    const early = await signDigest(user, digest(), (body) => confirmation(frameKey.privateKey, body));
    expect(early.status).toBe(403);
    expect(early.json.code).toBe("CONFIRMATION_INVALID");
    const ok = await register(user.sessionKey, user.orgId, frameKey.publicKey, "same-origin");
    expect(ok.status).toBe(200);
  });

  it("signs with the frame's confirmation of this exact body, once", async () => {
    const payload = digest();
    let confirmationA = "";
    const signed = await signDigest(user, payload, (body) => {
      confirmationA = confirmation(frameKey.privateKey, body);
      return confirmationA;
    });
    expect(signed.status).toBe(200);
    expect(await recoverAddress({ hash: payload, signature: signed.json.signature as Hex })).toBe(
      user.address,
    );

    // The same body again answers the same signature: one activity, one signature.
    const again = await post(
      h.url,
      "/signer/v1/sign-payload",
      {
        stampedRequest: {
          ...stamped("/public/v1/submit/sign_raw_payload", JSON.parse(signed.body), user.sessionKey)
            .stampedRequest,
          body: signed.body,
          confirmation: confirmationA,
        },
      },
      auth,
    );
    expect(again.json.signature).toBe(signed.json.signature);
    const done = (await activitiesOf(user.userId)).filter((a) => a.status === "ACTIVITY_STATUS_COMPLETED");
    expect(done).toHaveLength(1);
    // The security log has the signature once, with what the user was shown, confirmed in the frame.
    const completed = await auditOf(user.userId, "signing.completed");
    expect(completed.map((e) => JSON.parse(e.details ?? "{}"))).toEqual([
      {
        activityId: done[0]?.id,
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        summary: ["Raw signature", "Signs a hash whose content cannot be read"],
        confirmedInFrame: true,
      },
    ]);

    // A's confirmation on another body B: refused, nothing signed.
    const other = await signDigest(user, digest(), () => confirmationA);
    expect(other.status).toBe(403);
    expect(other.json.code).toBe("CONFIRMATION_INVALID");
    expect(other.json.error).toBe("The confirmation is not for this request");
    expect(await activitiesOf(user.userId)).toHaveLength(1);
  });

  it("refuses an expired confirmation, a foreign key's, and one for another session", async () => {
    const expired = await signDigest(user, digest(), (body) =>
      confirmation(frameKey.privateKey, body, Date.now() - 121_000),
    );
    expect(expired.status).toBe(403);
    expect(expired.json.code).toBe("CONFIRMATION_INVALID");
    expect(expired.json.error).toBe("The confirmation has expired: confirm the request again");

    // A page script's own key, never registered: refused.
    const attacker = confirmKey();
    const forged = await signDigest(user, digest(), (body) => confirmation(attacker.privateKey, body));
    expect(forged.json.code).toBe("CONFIRMATION_INVALID");
    const garbage = await signDigest(user, digest(), () => "v1.123.abc");
    expect(garbage.json.code).toBe("CONFIRMATION_INVALID");

    // The same user's other session has no key of the frame's: its confirmation does not carry over.
    const second = await signUpByEmail(
      h,
      `confirm2-${kind}-${randomBytes(3).toString("hex")}@example.com`,
      auth,
    );
    const otherSession = await signDigest(second, digest(), (body) =>
      confirmation(frameKey.privateKey, body),
    );
    expect(otherSession.status).toBe(403);
    expect(otherSession.json.code).toBe("CONFIRMATION_INVALID");
    expect(otherSession.json.error).toBe(
      "This session has no confirmation key: sign in through the Latchkey frame to confirm signatures",
    );
    expect(
      (await activitiesOf(user.userId)).filter((a) => a.status === "ACTIVITY_STATUS_COMPLETED"),
    ).toHaveLength(1);
    expect(await activitiesOf(second.userId)).toEqual([]);
  });

  it("checks the key-management API's X-Confirmation the same way", async () => {
    const payload = digest();
    const text = JSON.stringify(signBody(user.orgId, user.address, payload, "HASH_FUNCTION_NO_OP"));
    const stamp = stampWithPrivateKey(text, user.sessionKey);
    const headers = { [stamp.stampHeaderName]: stamp.stampHeaderValue };
    const refused = await post(h.url, "/public/v1/submit/sign_raw_payload", text, headers);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("CONFIRMATION_REQUIRED");
    const ok = await post(h.url, "/public/v1/submit/sign_raw_payload", text, {
      ...headers,
      "x-confirmation": confirmation(frameKey.privateKey, text),
    });
    expect(ok.status).toBe(200);
    const activity = ok.json.activity as {
      status: string;
      result: { signRawPayloadResult: { r: string; s: string; v: string } };
    };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const { r, s, v } = activity.result.signRawPayloadResult;
    expect(
      await recoverAddress({
        hash: payload,
        signature: `0x${r}${s}${(27 + Number.parseInt(v, 16)).toString(16)}`,
      }),
    ).toBe(user.address);
  });

  it("confirms Solana transactions where the policy names them, and reads them for the frame", async () => {
    const kindsAuth = { authorization: `Bearer ${KINDS_KEY}` };
    const solUser = await signUpByEmail(
      h,
      `confirm-sol-${kind}-${randomBytes(3).toString("hex")}@example.com`,
      kindsAuth,
    );
    const me = createNoopSigner(address(solUser.solanaAddress));
    const bob = address(base58.encode(new Uint8Array(32).fill(3)));
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(me, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: base58.encode(new Uint8Array(32).fill(9)) as Blockhash, lastValidBlockHeight: 100n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({ source: me, destination: bob, amount: 1_500_000_000n }),
            getTransferCheckedInstruction({
              source: address(base58.encode(new Uint8Array(32).fill(4))),
              mint: address(base58.encode(new Uint8Array(32).fill(6))),
              destination: address(base58.encode(new Uint8Array(32).fill(5))),
              authority: me,
              amount: 2_500_000n,
              decimals: 6,
            }),
          ],
          m,
        ),
    );
    const messageBytes = new Uint8Array(compileTransaction(message).messageBytes);
    const payload = `0x${Buffer.from(messageBytes).toString("hex")}`;
    const parameters = {
      signWith: solUser.solanaAddress,
      payload,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
    };

    // What the frame draws: the service's reading of the transaction.
    const previewText = JSON.stringify({
      type: "QUERY_TYPE_PREVIEW_SIGNING",
      organizationId: solUser.orgId,
      request: { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters },
    });
    const previewStamp = stampWithPrivateKey(previewText, solUser.sessionKey);
    const preview = await post(h.url, "/public/v1/query/preview_signing", previewText, {
      [previewStamp.stampHeaderName]: previewStamp.stampHeaderValue,
    });
    expect(preview.status).toBe(200);
    const { summary, kind: previewKind } = preview.json.preview as {
      kind: string;
      summary: { title: string; lines: { text: string }[] };
    };
    expect(previewKind).toBe("solanaTransaction");
    const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;
    const mint = base58.encode(new Uint8Array(32).fill(6));
    const tokenAccount = base58.encode(new Uint8Array(32).fill(5));
    expect(summary.lines.map((l) => l.text)).toEqual([
      `Send 1.5 SOL to ${short(bob)}`,
      `Send 2.5 ${short(mint)} to the token account ${short(tokenAccount)}`,
    ]);

    // A digest on an EVM account is not named by this app's policy: it signs without a confirmation.
    const digestSigned = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(solUser.orgId, solUser.address, digest(), "HASH_FUNCTION_NO_OP"),
        solUser.sessionKey,
      ),
      kindsAuth,
    );
    expect(digestSigned.status).toBe(200);

    const body = {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      timestampMs: String(Date.now()),
      organizationId: solUser.orgId,
      parameters,
    };
    const request = stamped("/public/v1/submit/sign_raw_payload", body, solUser.sessionKey);
    const refused = await post(h.url, "/signer/v1/sign-payload", request, kindsAuth);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("CONFIRMATION_REQUIRED");

    const solKey = confirmKey();
    expect((await register(solUser.sessionKey, solUser.orgId, solKey.publicKey, "same-origin")).status).toBe(
      200,
    );
    const signed = await post(
      h.url,
      "/signer/v1/sign-payload",
      {
        stampedRequest: {
          ...request.stampedRequest,
          confirmation: confirmation(solKey.privateKey, request.stampedRequest.body),
        },
      },
      kindsAuth,
    );
    expect(signed.status).toBe(200);
    const signature = (signed.json.signature as string).slice(2, 130);
    const logged = (await auditOf(solUser.userId, "signing.completed")).map((e) =>
      JSON.parse(e.details ?? "{}"),
    );
    // The digest (not named by this app's policy: not confirmed), then the Solana transfer (confirmed).
    expect(logged.map((d) => [d.summary?.[1], d.confirmedInFrame])).toEqual([
      ["Signs a hash whose content cannot be read", false],
      [`Send 1.5 SOL to ${short(bob)}`, true],
    ]);
    expect(ed25519.verify(signature, messageBytes, base58.decode(solUser.solanaAddress))).toBe(true);
  });

  it("reads a smart account's message through the hash its owner signs, and only when it is that hash", async () => {
    const account = "0x1111111111111111111111111111111111111111";
    const wrapper = (hash: Hex, original?: object) =>
      JSON.stringify({
        domain: { name: "LatchkeySimpleAccount", version: "1", chainId: 31337, verifyingContract: account },
        types: { LatchkeySimpleAccountMessage: [{ name: "hash", type: "bytes32" }] },
        primaryType: "LatchkeySimpleAccountMessage",
        message: { hash },
        ...(original ? { latchkeyOriginal: original } : {}),
      });
    const previewOf = async (payload: string) => {
      const text = JSON.stringify({
        type: "QUERY_TYPE_PREVIEW_SIGNING",
        organizationId: user.orgId,
        request: {
          type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
          parameters: {
            signWith: user.address,
            payload,
            encoding: "PAYLOAD_ENCODING_EIP712",
            hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
          },
        },
      });
      const stamp = stampWithPrivateKey(text, user.sessionKey);
      const r = await post(h.url, "/public/v1/query/preview_signing", text, {
        [stamp.stampHeaderName]: stamp.stampHeaderValue,
      });
      return r.json.preview as {
        kind: string;
        summary: { title: string; lines: { text: string }[]; warnings: string[] };
      };
    };
    const message = toHex("Pay 5 USDC to the shop");
    const read = await previewOf(wrapper(hashMessage({ raw: message }), { kind: "message", message }));
    expect(read.kind).toBe("message");
    expect(read.summary.lines.map((l) => l.text)).toEqual([
      "Pay 5 USDC to the shop",
      "Signed as your smart account 0x1111…1111",
    ]);
    expect(read.summary.warnings).toEqual([]);

    // An "original" that is not what the hash stands for is not shown: the hash is, as unreadable.
    const lying = await previewOf(wrapper(digest(), { kind: "message", message }));
    expect(lying.kind).toBe("typedData");
    expect(lying.summary.lines.map((l) => l.text).join("\n")).not.toContain("Pay 5 USDC");
    expect(lying.summary.warnings).toContain(
      "Signs a hash for your smart account: what it stands for cannot be read",
    );
    const bare = await previewOf(wrapper(digest()));
    expect(bare.summary.warnings).toContain(
      "Signs a hash for your smart account: what it stands for cannot be read",
    );
  });

  it("lists the signatures made, with what they do, in `latchkey activity signed`", async () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      code = await main(["activity", "signed", "--app", APP.id, "--db", h.dbUrl]);
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(0);
    const text = out.join("");
    // The two digests this file signed for the app, each confirmed in the frame, newest first.
    const blocks = text.trim().split("\n\n");
    expect(blocks).toHaveLength(2);
    for (const block of blocks) {
      const [head, ...lines] = block.split("\n");
      expect(head).toMatch(
        /^\S+ {2}ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2 {2}\d{4}-\d\d-\d\dT\S+ {2}\S+ {2}\(confirmed in the frame\)$/,
      );
      expect(lines).toEqual(["  Raw signature", "  Signs a hash whose content cannot be read"]);
    }
  });

  it("reads a bare digest for the frame as an unreadable hash", async () => {
    const text = JSON.stringify({
      type: "QUERY_TYPE_PREVIEW_SIGNING",
      organizationId: user.orgId,
      request: {
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        parameters: {
          signWith: user.address,
          payload: digest(),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        },
      },
    });
    const stamp = stampWithPrivateKey(text, user.sessionKey);
    const r = await post(h.url, "/public/v1/query/preview_signing", text, {
      [stamp.stampHeaderName]: stamp.stampHeaderValue,
    });
    const preview = r.json.preview as { kind: string; summary: { title: string; lines: { text: string }[] } };
    expect(preview.kind).toBe("raw");
    expect(preview.summary.title).toBe("Raw signature");
    expect(preview.summary.lines[0]?.text).toBe("Signs a hash whose content cannot be read");
  });
});
