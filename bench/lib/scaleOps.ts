/**
 * What the scale benchmark measures, as requests against one service ("target"): email sign-in (code
 * request → session), sign-payload, a sponsored operation's policy check (pm_getPaymasterStubData), the
 * email lookup, and the admin API's user search (by email, by address) and users list (first page, and
 * a page from a random point). Requests are built (and stamped) before they are sent.
 */

import { randomBytes } from "node:crypto";
import http from "node:http";
import {
  generateP256PrivateKey,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "../../packages/protocol/src/index";
import { type AdminEndpointName, adminApi } from "../../packages/protocol/src/schemas";
import { type PreparedRequest, runLoad, sendRequest } from "./load";
import { fillerUser, type SeedPlan } from "./scaleSeed";
import { type ServiceHandle, sleep } from "./service";

/** A user made through the service, signed in: the bench signs for these. */
export interface RealUser {
  email: string;
  orgId: string;
  userId: string;
  address: string;
  /** The session's P-256 private key, opened from the credential bundle (after `signIn`). */
  sessionKey?: Uint8Array;
}

export interface ScaleTarget {
  /** "1k", "1M": the size it holds. */
  name: string;
  svc: ServiceHandle;
  /** Users in the database (real and filler). */
  users: number;
  plan: SeedPlan;
  real: RealUser[];
  /** The app's organisation (admin API bodies are addressed to it). */
  appOrgId: string;
  adminKey: Uint8Array;
  policyId: string;
  chainId: number;
  entryPoint: string;
  allowedTarget: string;
}

/** One batch's outcome: latencies in ms, errors, and named parts (a sign-in's two requests). */
export interface Batch {
  latencies: number[];
  errors: number;
  samples: string[];
  parts?: Record<string, number[]>;
}

/** Any user of the target, real or filler, uniformly: its email, EVM address and keyset position. */
export function anyUser(t: ScaleTarget): { email: string; address: string; cursor?: string } {
  const pick = Math.floor(Math.random() * t.users);
  if (pick < t.real.length) {
    const r = t.real[pick] as RealUser;
    return { email: r.email, address: r.address };
  }
  const i = t.plan.from + Math.floor(Math.random() * (t.plan.to - t.plan.from));
  const u = fillerUser(t.plan, i, t.plan.to);
  return { email: u.email, address: u.address, cursor: `${u.createdAt}.${u.userId}` };
}

function signedIn(t: ScaleTarget): RealUser & { sessionKey: Uint8Array } {
  const live = t.real.filter((r) => r.sessionKey);
  const r = live[Math.floor(Math.random() * live.length)];
  if (!r?.sessionKey) throw new Error(`${t.name}: no signed-in user to sign for`);
  return r as RealUser & { sessionKey: Uint8Array };
}

const json = (x: unknown) => Buffer.from(JSON.stringify(x));

/**
 * A timestamp no body had before (admin bodies are single use, and two built in the same millisecond
 * would otherwise be the same body): now, or one past the last given (the window allows a minute ahead).
 */
let lastTimestamp = 0;
function uniqueTimestamp(): string {
  lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
  return String(lastTimestamp);
}

function adminRequest(
  t: ScaleTarget,
  name: AdminEndpointName,
  params: Record<string, unknown>,
): PreparedRequest {
  const endpoint = adminApi[name];
  const text = JSON.stringify({
    type: endpoint.type,
    organizationId: t.appOrgId,
    timestampMs: uniqueTimestamp(),
    ...params,
  });
  const stamp = stampWithPrivateKey(text, t.adminKey);
  return {
    path: endpoint.path,
    body: Buffer.from(text),
    headers: { [stamp.stampHeaderName]: stamp.stampHeaderValue },
  };
}

const EXECUTE_SELECTOR = "b61d27f6"; // execute(address,uint256,bytes)

function sponsorRequest(t: ScaleTarget): PreparedRequest {
  const u = signedIn(t);
  const target = t.allowedTarget.slice(2).toLowerCase().padStart(64, "0");
  // execute(target, 0, 0xd09de08a): one call to the policy's allowed contract.
  const callData = `0x${EXECUTE_SELECTOR}${target}${"0".repeat(64)}${(96).toString(16).padStart(64, "0")}${(4).toString(16).padStart(64, "0")}d09de08a${"0".repeat(56)}`;
  const text = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "pm_getPaymasterStubData",
    params: [
      {
        sender: u.address,
        nonce: `0x${randomBytes(4).toString("hex")}`,
        callData,
        callGasLimit: "0x186a0",
        verificationGasLimit: "0x493e0",
        preVerificationGas: "0xea60",
        maxFeePerGas: "0x77359400",
        maxPriorityFeePerGas: "0x3b9aca00",
        signature: `0x${"11".repeat(65)}`,
        eip7702Auth: {
          address: "0xe6Cae83BdE06E4c305530e199D7217f42808555B",
          chainId: `0x${t.chainId.toString(16)}`,
          nonce: "0x0",
          r: `0x${"ff".repeat(32)}`,
          s: `0x${"7a".repeat(32)}`,
          yParity: "0x1",
        },
      },
      t.entryPoint,
      `0x${t.chainId.toString(16)}`,
      { policyId: t.policyId },
    ],
  });
  const stamp = stampWithPrivateKey(text, u.sessionKey);
  return {
    path: "/rpc/v1",
    body: Buffer.from(text),
    headers: { [stamp.stampHeaderName]: stamp.stampHeaderValue },
  };
}

function signPayloadRequest(t: ScaleTarget): PreparedRequest {
  const u = signedIn(t);
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    timestampMs: String(Date.now()),
    organizationId: u.orgId,
    parameters: {
      signWith: u.address,
      payload: randomBytes(32).toString("hex"),
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    },
  });
  const stamp = stampWithPrivateKey(body, u.sessionKey);
  return {
    path: "/signer/v1/sign-payload",
    body: json({ stampedRequest: { body, stamp, url: "https://x/public/v1/submit/sign_raw_payload" } }),
  };
}

interface RequestOp {
  kind: "requests";
  build(t: ScaleTarget): PreparedRequest;
  /** A 2xx answer must pass this (undefined: fine). */
  validate(body: string): string | undefined;
}
interface FlowOp {
  kind: "flow";
  run(t: ScaleTarget, n: number, connections: number): Promise<Batch>;
}
export type ScaleOp = { name: string; what: string } & (RequestOp | FlowOp);

const has = (re: RegExp, why: string) => (body: string) => (re.test(body) ? undefined : why);
const atLeastOne = has(/"items":\[\{/, "no user in the answer");

export const SCALE_OPS: ScaleOp[] = [
  {
    name: "email_sign_in",
    what: "POST /signer/v1/auth then /signer/v1/otp (code from the SMTP catcher, not timed) → session",
    kind: "flow",
    run: (t, n, c) => signInBatch(t, n, c),
  },
  {
    name: "sign_payload",
    what: "POST /signer/v1/sign-payload, a real user's session stamps, their key signs",
    kind: "requests",
    build: signPayloadRequest,
    validate: has(/"signature":"0x[0-9a-f]{130}"/, "no signature"),
  },
  {
    name: "sponsor_policy_check",
    what: "POST /rpc/v1 pm_getPaymasterStubData: a real user's 7702 operation, stamped, under a policy with daily limits",
    kind: "requests",
    build: sponsorRequest,
    validate: has(/"paymasterData"/, "no paymaster data"),
  },
  {
    name: "lookup_by_email",
    what: "POST /signer/v1/lookup: any user's email → organisation",
    kind: "requests",
    build: (t) => ({ path: "/signer/v1/lookup", body: json({ email: anyUser(t).email }) }),
    validate: has(/"orgId":"[^"]+"/, "user not found"),
  },
  {
    name: "admin_search_email",
    what: "POST /admin/v1/users/search {email}: any user",
    kind: "requests",
    build: (t) => adminRequest(t, "search_users", { email: anyUser(t).email }),
    validate: atLeastOne,
  },
  {
    name: "admin_search_address",
    what: "POST /admin/v1/users/search {address}: any user's EVM address",
    kind: "requests",
    build: (t) => adminRequest(t, "search_users", { address: anyUser(t).address }),
    validate: atLeastOne,
  },
  {
    name: "admin_users_list",
    what: "POST /admin/v1/users/search {}: the newest 50 users",
    kind: "requests",
    build: (t) => adminRequest(t, "search_users", {}),
    validate: (body) => (body.match(/"userId"/g)?.length === 50 ? undefined : "not 50 users"),
  },
  {
    name: "admin_users_page",
    what: "POST /admin/v1/users/search {cursor}: 50 users after a random user's position",
    kind: "requests",
    build: (t) => {
      let u = anyUser(t);
      while (!u.cursor) u = anyUser(t);
      return adminRequest(t, "search_users", { cursor: u.cursor });
    },
    validate: has(/"items":\[/, "no items"),
  },
];

/** Runs `n` requests of a request op against `t` over `connections` sockets; latencies kept. */
export async function requestBatch(
  op: RequestOp,
  t: ScaleTarget,
  n: number,
  connections: number,
): Promise<Batch> {
  const requests = Array.from({ length: n }, () => op.build(t));
  const r = await runLoad({
    baseUrl: t.svc.baseUrl,
    requests,
    connections,
    headers: { authorization: `Bearer ${t.svc.apiKey}` },
    validate: (_s, body) => op.validate(body),
    keepLatencies: true,
  });
  return { latencies: [...(r.latencies ?? [])], errors: r.errors, samples: r.errorSamples };
}

/** The newest code mailed to `email` after the first `after` mails the catcher caught. */
async function codeFor(svc: ServiceHandle, email: string, after: number): Promise<string> {
  const caught = svc.caught;
  if (!caught) throw new Error("The scale bench reads codes from its SMTP catcher (configApps)");
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (let i = caught.length - 1; i >= after; i--) {
      const m = caught[i];
      const code = m?.to === email ? /\b(\d{6})\b/.exec(m.subject)?.[1] : undefined;
      if (code) return code;
    }
    if (Date.now() > deadline) throw new Error(`No code mailed to ${email}`);
    await sleep(2);
  }
}

/**
 * Signs `email` in by code: /v1/auth (mails a code) and /v1/otp (the session). Answers the two requests'
 * latencies (the wait for the mail is not in them) and, when asked, the session key.
 */
export async function signInOnce(
  t: ScaleTarget,
  agent: http.Agent,
  email: string,
  expirationSeconds?: number,
): Promise<{ authMs: number; otpMs: number; sessionKey?: Uint8Array; orgId: string }> {
  const url = new URL(t.svc.baseUrl);
  const headers = { "content-type": "application/json", authorization: `Bearer ${t.svc.apiKey}` };
  const targetPrivateKey = generateP256PrivateKey();
  const targetPublicKey = toHex(p256PublicKeyFromPrivate(targetPrivateKey, false));
  const post = async (path: string, body: unknown) => {
    const t0 = process.hrtime.bigint();
    const r = await sendRequest(agent, url, { path, body: json(body) }, headers, 30_000);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 200) throw new Error(`${path} → ${r.status}: ${r.body.slice(0, 300)}`);
    return { ms, answer: JSON.parse(r.body) as Record<string, unknown> };
  };
  const before = t.svc.caught?.length ?? 0;
  const auth = await post("/signer/v1/auth", { email, targetPublicKey });
  const orgId = String(auth.answer.orgId);
  const otpCode = await codeFor(t.svc, email, before);
  const otp = await post("/signer/v1/otp", {
    orgId,
    otpId: auth.answer.otpId,
    otpCode,
    targetPublicKey,
    ...(expirationSeconds ? { expirationSeconds } : {}),
  });
  const bundle = otp.answer.credentialBundle;
  if (otp.answer.status !== "SUCCESS" || typeof bundle !== "string")
    throw new Error(`sign-in did not succeed: ${JSON.stringify(otp.answer).slice(0, 300)}`);
  const sessionKey =
    expirationSeconds !== undefined
      ? await openCredentialBundle({ bundle, targetPrivateKey, targetPublicKey })
      : undefined;
  return { authMs: auth.ms, otpMs: otp.ms, orgId, ...(sessionKey ? { sessionKey } : {}) };
}

/** `n` sign-ins of random users (real or filler), `connections` at a time. */
async function signInBatch(t: ScaleTarget, n: number, connections: number): Promise<Batch> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const out: Batch = { latencies: [], errors: 0, samples: [], parts: { auth: [], otp: [] } };
  let next = 0;
  // Two sign-ins of one user at once would read each other's codes: each flow has a user of its own.
  const busy = new Set<string>();
  const worker = async () => {
    while (next < n) {
      next++;
      let email = anyUser(t).email;
      while (busy.has(email)) email = anyUser(t).email;
      busy.add(email);
      try {
        const r = await signInOnce(t, agent, email);
        out.latencies.push(r.authMs + r.otpMs);
        out.parts?.auth?.push(r.authMs);
        out.parts?.otp?.push(r.otpMs);
      } catch (e) {
        out.errors++;
        if (out.samples.length < 5) out.samples.push(e instanceof Error ? e.message : String(e));
      } finally {
        busy.delete(email);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
  return out;
}

/** Signs every real user in (fresh sessions for the measurement), `connections` at a time. */
export async function signInRealUsers(t: ScaleTarget, connections = 8): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  const worker = async () => {
    while (next < t.real.length) {
      const u = t.real[next++] as RealUser;
      const r = await signInOnce(t, agent, u.email, 6 * 60 * 60);
      u.sessionKey = r.sessionKey;
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
}

export async function runBatch(op: ScaleOp, t: ScaleTarget, n: number, connections: number): Promise<Batch> {
  return op.kind === "flow" ? op.run(t, n, connections) : requestBatch(op, t, n, connections);
}
