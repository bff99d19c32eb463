/**
 * The key-management API's successful answers (spec §7): `get_user` and `get_api_keys` describe the
 * caller; `create_api_keys` stores a P-256 key (compressed) with the caller's `expirationSeconds`, which
 * then stamps until that lifetime is over; `sign_raw_payloads` signs several payloads in one activity,
 * each signature recovering to the account. On SQLite (SCENARIO_DATABASES in helpers.ts).
 */

import {
  compressP256PublicKey,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { getAddressEncoder } from "@solana/kit";
import { type Hex, hashMessage, recoverAddress, serializeSignature } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmailUser,
  type Harness,
  post,
  SCENARIO_DATABASES,
  signUpByEmail,
  startHarness,
  TEST_APP,
} from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

describe.each(SCENARIO_DATABASES)("key-management reads and writes that succeed (%s)", (kind) => {
  let h: Harness;
  let user: EmailUser;
  const email = `km-${kind}@example.com`;

  beforeAll(async () => {
    h = await startHarness(kind);
    user = await signUpByEmail(h, email, KEY);
  });
  afterAll(async () => {
    await h?.close();
  });

  let clock = Date.now();
  const ts = () => String(Math.max(h.clock.now, ++clock));

  /** A stamped query or submit, as @latchkey/core sends it (stamped by `key`, the session key by default). */
  async function stampedPost(path: string, body: object, key = user.sessionKey) {
    const text = JSON.stringify(body);
    const stamp = stampWithPrivateKey(text, key);
    return post(h.url, path, text, { [stamp.stampHeaderName]: stamp.stampHeaderValue });
  }
  const query = (name: string, type: string, extra: object = {}, key?: Uint8Array) =>
    stampedPost(
      `/public/v1/query/${name}`,
      { type, organizationId: user.orgId, timestampMs: ts(), ...extra },
      key,
    );
  const submit = (name: string, type: string, parameters: object) =>
    stampedPost(`/public/v1/submit/${name}`, {
      type,
      timestampMs: ts(),
      organizationId: user.orgId,
      parameters,
    });

  it("get_user answers the caller: id, email, its session key among the api keys", async () => {
    const r = await query("get_user", "QUERY_TYPE_GET_USER", { userId: user.userId });
    expect(r.status).toBe(200);
    const got = r.json.user as {
      userId: string;
      userName: string;
      userEmail: string;
      authenticators: unknown[];
      apiKeys: { credential: { publicKey: string } }[];
      createdAt: { seconds: string };
    };
    expect({
      userId: got.userId,
      userName: got.userName,
      userEmail: got.userEmail,
      authenticators: got.authenticators,
    }).toEqual({ userId: user.userId, userName: email, userEmail: email, authenticators: [] });
    const session = toHex(compressP256PublicKey(p256PublicKeyFromPrivate(user.sessionKey, false)));
    expect(got.apiKeys.map((k) => k.credential.publicKey)).toContain(session);
    expect(Math.abs(Number(got.createdAt.seconds) * 1000 - Date.now())).toBeLessThan(120_000);
  });

  it("create_api_keys stores P-256 keys with the caller's expirationSeconds; get_api_keys lists them; each stamps until it expires", async () => {
    const short = generateP256PrivateKey();
    const long = generateP256PrivateKey();
    const lasting = generateP256PrivateKey();
    const created = await submit("create_api_keys", "ACTIVITY_TYPE_CREATE_API_KEYS_V2", {
      userId: user.userId,
      apiKeys: [
        {
          apiKeyName: "short",
          // Uncompressed on the way in: the service keeps the compressed P-256 point.
          publicKey: toHex(p256PublicKeyFromPrivate(short, false)),
          curveType: "API_KEY_CURVE_P256",
          expirationSeconds: "600",
        },
        {
          apiKeyName: "long",
          publicKey: toHex(p256PublicKeyFromPrivate(long, true)),
          expirationSeconds: 7200,
        },
        { apiKeyName: "lasting", publicKey: toHex(p256PublicKeyFromPrivate(lasting, true)) },
      ],
    });
    expect(created.status).toBe(200);
    const activity = created.json.activity as {
      status: string;
      result: { createApiKeysResult: { apiKeyIds: string[] } };
    };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const ids = activity.result.createApiKeysResult.apiKeyIds;
    expect(ids).toHaveLength(3);

    const listed = await query("get_api_keys", "QUERY_TYPE_GET_API_KEYS", { userId: user.userId });
    expect(listed.status).toBe(200);
    const keys = listed.json.apiKeys as {
      apiKeyId: string;
      apiKeyName: string;
      credential: { publicKey: string; type: string };
      expirationSeconds?: string;
    }[];
    const mine = ids.map((id) => keys.find((k) => k.apiKeyId === id));
    expect(mine).toEqual([
      {
        apiKeyId: ids[0],
        apiKeyName: "short",
        credential: {
          publicKey: toHex(p256PublicKeyFromPrivate(short, true)),
          type: "CREDENTIAL_TYPE_API_KEY_P256",
        },
        expirationSeconds: "600",
        createdAt: expect.any(Object),
      },
      {
        apiKeyId: ids[1],
        apiKeyName: "long",
        credential: {
          publicKey: toHex(p256PublicKeyFromPrivate(long, true)),
          type: "CREDENTIAL_TYPE_API_KEY_P256",
        },
        expirationSeconds: "7200",
        createdAt: expect.any(Object),
      },
      {
        apiKeyId: ids[2],
        apiKeyName: "lasting",
        credential: {
          publicKey: toHex(p256PublicKeyFromPrivate(lasting, true)),
          type: "CREDENTIAL_TYPE_API_KEY_P256",
        },
        createdAt: expect.any(Object),
      },
    ]);

    // The new keys stamp for the user: whoami answers the same user.
    const whoami = async (key: Uint8Array) => {
      const r = await query("whoami", "QUERY_TYPE_WHOAMI", {}, key);
      return { status: r.status, userId: r.json.userId, code: r.json.code };
    };
    for (const key of [short, long, lasting])
      expect(await whoami(key)).toEqual({ status: 200, userId: user.userId, code: undefined });
    // 601 s later the 600-second key no longer stamps; the 7200-second one and the lasting one still do.
    h.clock.advance(601_000);
    try {
      const expired = await whoami(short);
      expect(expired.status).toBe(401);
      expect(await whoami(long)).toEqual({ status: 200, userId: user.userId, code: undefined });
      expect(await whoami(lasting)).toEqual({ status: 200, userId: user.userId, code: undefined });
      h.clock.advance(7200_000);
      expect((await whoami(long)).status).toBe(401);
      expect(await whoami(lasting)).toEqual({ status: 200, userId: user.userId, code: undefined });
    } finally {
      h.clock.advance(-(601_000 + 7200_000));
      clock = h.clock.now;
    }
  });

  it("sign_raw_payloads signs three EVM digests in one activity, each recovering to the account", async () => {
    const digests = ["one", "two", "three"].map((m) => hashMessage(m));
    const r = await submit("sign_raw_payloads", "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", {
      signWith: user.address,
      payloads: digests,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    });
    expect(r.status).toBe(200);
    const activity = r.json.activity as {
      status: string;
      result: { signRawPayloadsResult: { signatures: { r: string; s: string; v: string }[] } };
    };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const sigs = activity.result.signRawPayloadsResult.signatures;
    expect(sigs).toHaveLength(3);
    const recovered = await Promise.all(
      sigs.map((sig, i) =>
        recoverAddress({
          hash: digests[i] as Hex,
          signature: serializeSignature({
            r: `0x${sig.r}`,
            s: `0x${sig.s}`,
            yParity: Number.parseInt(sig.v, 16) as 0 | 1,
          }),
        }),
      ),
    );
    expect(recovered).toEqual([user.address, user.address, user.address]);
    // Three different digests, three different signatures: not one signature repeated.
    expect(new Set(sigs.map((s) => s.r + s.s)).size).toBe(3);
  });

  it("sign_raw_payloads signs two messages with the Solana account (ed25519), each verifying", async () => {
    const messages = ["solana one", "solana two"].map((m) => Buffer.from(m).toString("hex"));
    const r = await submit("sign_raw_payloads", "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS", {
      signWith: user.solanaAddress,
      payloads: messages,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
    });
    expect(r.status).toBe(200);
    const sigs = (
      r.json.activity as {
        result: { signRawPayloadsResult: { signatures: { r: string; s: string }[] } };
      }
    ).result.signRawPayloadsResult.signatures;
    const publicKey = new Uint8Array(getAddressEncoder().encode(user.solanaAddress as never));
    expect(
      sigs.map((sig, i) =>
        ed25519.verify(
          Buffer.from(sig.r + sig.s, "hex"),
          Buffer.from(messages[i] as string, "hex"),
          publicKey,
        ),
      ),
    ).toEqual([true, true]);
  });
});
