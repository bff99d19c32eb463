import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ActivityError, createMemoryKeyHolder, SignerClient } from "@latchkey/core";
import {
  decodeStamp,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  STAMP_HEADER_NAME,
  sealCredentialBundle,
  toHex,
  verifyApiKeyStamp,
} from "@latchkey/protocol/crypto";
import type { ActivityStatus } from "@latchkey/protocol/wire";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

// A signer service that answers its activities later (spec §4 "activity polling": anything but COMPLETED,
// FAILED, REJECTED and CONSENSUS_NEEDED is polled with get_activity). Latchkey's own service completes an
// activity within the submit, so this file starts a real HTTP server that plays such a service: it checks
// every stamp, records each request with its time, and walks each activity through the statuses a test gives.

interface Seen {
  path: string;
  body: Record<string, unknown>;
  at: number;
}

const ORG = "org-held";
let server: Server;
let baseUrl: string;
let sessionPublicKey: string;
let seen: Seen[];
/** The statuses the next submitted activity goes through: the submit's answer, then one per get_activity. */
let script: ActivityStatus[];

const activityOf = (id: string, status: ActivityStatus) => ({
  id,
  organizationId: ORG,
  status,
  type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  intent: {},
  result:
    status === "ACTIVITY_STATUS_COMPLETED" ? { signRawPayloadResult: { r: "01", s: "02", v: "00" } } : {},
  fingerprint: "",
  createdAt: { seconds: "0", nanos: "0" },
  updatedAt: { seconds: "0", nanos: "0" },
  ...(status === "ACTIVITY_STATUS_FAILED" ? { failure: { code: "SIGNING_FAILED", message: "No key" } } : {}),
});

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  let next = 0;
  const activities = new Map<string, ActivityStatus[]>();
  server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const header = req.headers[STAMP_HEADER_NAME.toLowerCase()];
      let stamp: ReturnType<typeof decodeStamp> | undefined;
      try {
        stamp = typeof header === "string" ? decodeStamp(header) : undefined;
      } catch {
        stamp = undefined;
      }
      if (!stamp || stamp.publicKey !== sessionPublicKey || !verifyApiKeyStamp(text, stamp))
        return answer(401, { code: "STAMP_INVALID", message: "bad stamp" });
      const body = JSON.parse(text) as Record<string, unknown>;
      const path = req.url ?? "";
      seen.push({ path, body, at: performance.now() });
      if (path === "/public/v1/submit/sign_raw_payload") {
        const id = `act-${++next}`;
        const [first, ...rest] = script;
        activities.set(id, rest);
        return answer(200, { activity: activityOf(id, first as ActivityStatus) });
      }
      if (path === "/public/v1/query/get_activity") {
        const id = String(body.activityId);
        const left = activities.get(id);
        if (body.organizationId !== ORG || !left?.length)
          return answer(404, { code: "NOT_FOUND", message: `no activity ${id}` });
        return answer(200, { activity: activityOf(id, left.shift() as ActivityStatus) });
      }
      return answer(404, { code: "NOT_FOUND", message: path });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

beforeEach(() => {
  seen = [];
});

/** A client whose key holder opened a credential bundle sealed by "the service", as after a sign-in. */
async function signedInClient(): Promise<SignerClient> {
  const keyHolder = createMemoryKeyHolder();
  const sessionKey = generateP256PrivateKey();
  sessionPublicKey = toHex(p256PublicKeyFromPrivate(sessionKey, true));
  const bundle = await sealCredentialBundle({
    plaintext: sessionKey,
    targetPublicKey: await keyHolder.initTargetKey(),
  });
  expect(await keyHolder.injectCredentialBundle(bundle)).toBe(sessionPublicKey);
  return new SignerClient({ baseUrl, apiKey: "app-key", keyHolder });
}

const signRaw = (client: SignerClient, options?: Parameters<SignerClient["submit"]>[2]) =>
  client.submit(
    "sign_raw_payload",
    {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      organizationId: ORG,
      parameters: { signWith: "0x01", payload: "0x02", encoding: "PAYLOAD_ENCODING_HEXADECIMAL" },
    },
    options,
  );

describe("SignerClient.submit against a service that completes activities later", () => {
  it("polls get_activity every 500 ms while CREATED or PENDING, and answers the COMPLETED activity", async () => {
    const client = await signedInClient();
    script = ["ACTIVITY_STATUS_CREATED", "ACTIVITY_STATUS_PENDING", "ACTIVITY_STATUS_COMPLETED"];
    const activity = await signRaw(client);
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(activity.result).toEqual({ signRawPayloadResult: { r: "01", s: "02", v: "00" } });
    expect(seen.map((s) => s.path)).toEqual([
      "/public/v1/submit/sign_raw_payload",
      "/public/v1/query/get_activity",
      "/public/v1/query/get_activity",
    ]);
    // Each poll names the organisation and the submitted activity, in a stamped body of its own.
    for (const poll of seen.slice(1)) {
      expect(poll.body).toEqual({
        type: "QUERY_TYPE_GET_ACTIVITY",
        organizationId: ORG,
        activityId: activity.id,
      });
    }
    // The real default sleep between one answer and the next poll (the exact 500 ms is pinned by the next test).
    for (let i = 1; i < seen.length; i++) {
      const gap = (seen[i] as Seen).at - (seen[i - 1] as Seen).at;
      expect(gap).toBeGreaterThanOrEqual(490);
      expect(gap).toBeLessThan(1500);
    }
  });

  it("waits exactly 500 ms before each poll: not at 499 ms, at 500 ms (spec §9)", async () => {
    // A clock of the test's own drives the client's sleep, so the interval is read off the wire, not timed.
    let now = 0;
    const sleeps: { at: number; wake: () => void }[] = [];
    const advance = (ms: number) => {
      now += ms;
      for (const due of sleeps.filter((s) => s.at <= now)) {
        sleeps.splice(sleeps.indexOf(due), 1);
        due.wake();
      }
    };
    const sleep = (ms: number) => new Promise<void>((wake) => sleeps.push({ at: now + ms, wake }));
    const keyed = await signedInClient();
    const client = new SignerClient({ baseUrl, apiKey: "app-key", keyHolder: keyed.keyHolder, sleep });
    script = ["ACTIVITY_STATUS_PENDING", "ACTIVITY_STATUS_PENDING", "ACTIVITY_STATUS_COMPLETED"];
    const paths = () => seen.map((s) => s.path.split("/").at(-1));
    const done = signRaw(client);
    for (const polled of [1, 2]) {
      await vi.waitFor(() => expect(sleeps).toHaveLength(1));
      expect(paths()).toHaveLength(polled);
      advance(499);
      expect(sleeps).toHaveLength(1);
      advance(1);
      expect(sleeps).toHaveLength(0);
      await vi.waitFor(() => expect(paths()).toHaveLength(polled + 1));
    }
    expect((await done).status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(paths()).toEqual(["sign_raw_payload", "get_activity", "get_activity"]);
  });

  it("a polled activity that ends FAILED throws an ActivityError with the service's failure", async () => {
    const client = await signedInClient();
    script = ["ACTIVITY_STATUS_PENDING", "ACTIVITY_STATUS_FAILED"];
    const error = await signRaw(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActivityError);
    expect(error).toMatchObject({
      activityId: expect.stringMatching(/^act-\d+$/),
      activityStatus: "ACTIVITY_STATUS_FAILED",
      failureCode: "SIGNING_FAILED",
      message: "No key",
    });
    expect(seen.map((s) => s.path)).toEqual([
      "/public/v1/submit/sign_raw_payload",
      "/public/v1/query/get_activity",
    ]);
  });

  it("with a stamper of its own (a passkey) a pending activity fails at once: no poll, no second prompt", async () => {
    const client = await signedInClient();
    script = ["ACTIVITY_STATUS_PENDING", "ACTIVITY_STATUS_COMPLETED"];
    let prompts = 0;
    const error = await signRaw(client, {
      stamper: (body) => {
        prompts++;
        return client.keyHolder.stamp(body);
      },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ActivityError);
    expect(error).toMatchObject({ activityStatus: "ACTIVITY_STATUS_PENDING" });
    expect(prompts).toBe(1);
    expect(seen.map((s) => s.path)).toEqual(["/public/v1/submit/sign_raw_payload"]);
  });
});
