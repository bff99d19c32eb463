/**
 * Spec values and errors of the client that only show on a real exchange with the service: 'No user
 * found' (§8) for a session whose user has no wallet, 'Failed to create api key' (§8) when the platform
 * cannot make the target key, the activity poll's 500 ms (§9) measured on the requests a held signature
 * makes, and the OAuth default scopes (§7) on the authorization URL built from the service's answer.
 */
import {
  ActivityError,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  SignerError,
  sendSolanaTransaction,
  toViemAccount,
  waitForActivity,
} from "@latchkey/core";
import { solana } from "@latchkey/core/solana";
import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { address, createDefaultRpcTransport, createSolanaRpcFromTransport, lamports } from "@solana/kit";
import { parseEther, parseGwei, recoverTransactionAddress, type TransactionSerializable } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type SolanaRpcNode, startSolanaRpc } from "../../../test-support/solana/rpc";
import { buildOauthUrl } from "../src/authMethods/oauth/url";
import { mailCount, startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

const ADMIN_KEY = generateP256PrivateKey();
const APP = {
  id: "values-app",
  name: "Values App",
  apiKeys: ["lk_values_core_0123456789abcdef"],
  allowedOrigins: ["http://127.0.0.1:1"],
  signingPolicy: {
    rules: [{ id: "large", effect: "needs_approval" as const, valueAboveWei: parseEther("1").toString() }],
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
};

let svc: TestService;
beforeAll(async () => {
  svc = await startService({ apps: [APP] });
});
afterAll(async () => {
  await svc?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const newSigner = () =>
  createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
  });

describe("'No user found' (spec §8)", () => {
  it("a sign-in whose user the service answers without a wallet address fails with USER_NOT_FOUND", async () => {
    const email = "walletless@example.com";
    const first = await signInWithOtp(svc, email);
    const orgId = first.user?.orgId as string;
    // The organisation loses its wallet accounts (as an operator's cleanup would leave it): the service
    // still knows the user, but answers no address for it.
    await svc.service.ctx.db.deleteFrom("wallet_accounts").where("org_id", "=", orgId).execute();
    const signer = newSigner();
    const sent = mailCount(svc, email);
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    const error = await signer.authenticate({ type: "otp", otpCode: await svc.otpCode(email, sent) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SignerError);
    expect({ code: (error as SignerError).code, message: (error as SignerError).message }).toEqual({
      code: "USER_NOT_FOUND",
      message: "No user found",
    });
    expect(signer.user).toBeNull();
    expect(signer.status).toBe("DISCONNECTED");
  });
});

describe("'Failed to create api key' (spec §8)", () => {
  it("a platform whose random source fails cannot make the target key: CREATE_API_KEY_FAILED, no code is sent", async () => {
    const sent: string[] = [];
    const signer = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
      fetch: (input, init) => {
        sent.push(
          new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url).pathname,
        );
        return fetch(input, init);
      },
    });
    await signer.init();
    const failing = new Error("no entropy");
    // The platform refuses randomness (a locked-down runtime): the key holder cannot make a key.
    vi.spyOn(globalThis.crypto, "getRandomValues").mockImplementation(() => {
      throw failing;
    });
    const before = mailCount(svc, "nokey@example.com");
    const error = await signer
      .authenticate({ type: "email", email: "nokey@example.com", emailMode: "otp" })
      .then(
        () => null,
        (e: unknown) => e,
      );
    vi.restoreAllMocks();
    expect(error).toBeInstanceOf(SignerError);
    expect({
      code: (error as SignerError).code,
      message: (error as SignerError).message,
      cause: (error as SignerError).cause,
    }).toEqual({ code: "CREATE_API_KEY_FAILED", message: "Failed to create api key", cause: failing });
    // Nothing asked the service to mail a code for a key that does not exist.
    expect(sent.filter((p) => /\/signer\/v1\/(auth|signup)$/.test(p))).toEqual([]);
    expect(mailCount(svc, "nokey@example.com")).toBe(before);
    // With randomness back, the same signer makes its key and the code is sent.
    await signer.authenticate({ type: "email", email: "nokey@example.com", emailMode: "otp" });
    expect(await signer.keyHolder.getTargetPublicKey()).toMatch(/^04[0-9a-f]{128}$/);
  });
});

describe("activity polling (spec §9: every 500 ms)", () => {
  it("a held signature is polled at ~500 ms intervals until the admin approves it", async () => {
    const polls: number[] = [];
    const recordingFetch: typeof fetch = (input, init) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (url.endsWith("/public/v1/query/get_activity")) polls.push(performance.now());
      return fetch(input, init);
    };
    const signer = await signInWithOtp(svc, "poll@example.com", {
      apiKey: APP.apiKeys[0] as string,
      fetch: recordingFetch,
    });
    const account = toViemAccount(signer);
    const tx = {
      type: "eip1559",
      chainId: 31337,
      nonce: 0,
      to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      value: parseEther("2"),
      gas: 21000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: parseGwei("1"),
    } as TransactionSerializable;
    const held = await account.signTransaction(tx).then(
      () => null,
      (e: unknown) => e,
    );
    expect(held).toBeInstanceOf(ActivityError);
    const activityId = (held as ActivityError).activityId;
    expect((held as ActivityError).activityStatus).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    const waiting = waitForActivity(signer, { activityId });
    // Let it poll a few times, then approve as the app's admin would.
    await vi.waitFor(() => expect(polls.length).toBeGreaterThanOrEqual(4), { timeout: 5000, interval: 50 });
    const appOrg = (await svc.service.ctx.apps.byId(APP.id))?.orgId as string;
    const body = JSON.stringify({
      type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
      timestampMs: String(Date.now()),
      organizationId: appOrg,
      parameters: { activityId },
    });
    const stamp = stampWithPrivateKey(body, ADMIN_KEY);
    const approved = await fetch(`${svc.baseUrl}/public/v1/submit/approve_activity`, {
      method: "POST",
      headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
      body,
    });
    expect(approved.status).toBe(200);
    const { activity, signedTransaction } = await waiting;
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverTransactionAddress({ serializedTransaction: signedTransaction as never })).toBe(
      account.address,
    );
    const gaps = polls.slice(1).map((t, i) => t - (polls[i] as number));
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    // Each wait is the 500 ms interval plus the request's own time: none shorter than 450 ms (a 250 ms
    // interval fails), and at least one under 950 ms (a 1000 ms interval fails; one slow request under load does not).
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(450);
    expect(Math.min(...gaps)).toBeLessThan(950);
  });
});

describe("OAuth default scopes (spec §7)", () => {
  it("the authorization URL carries each provider's default scope when the service names none", async () => {
    // The dev app's prepare-oauth answer, with the providers the spec names and no scope of their own.
    const prepared = {
      codeChallenge: "c".repeat(43),
      requestKey: "req",
      authProviders: ["google", "apple", "facebook", "twitch", "auth0"].map((id) => ({
        id,
        clientId: `${id}-client`,
        authEndpoint: `https://${id}.idp.test/authorize`,
      })),
    };
    const scopeOf = (authProviderId: string, scope?: string) =>
      new URL(
        buildOauthUrl({
          prepared: scope
            ? {
                ...prepared,
                authProviders: prepared.authProviders.map((p) =>
                  p.id === authProviderId ? { ...p, scope } : p,
                ),
              }
            : prepared,
          params: { authProviderId, mode: "redirect" },
          targetPublicKey: "04ab",
          nonce: "n",
          callbackUrl: "https://auth.test/oauth/callback",
          redirectUrl: "https://app.test/",
        }),
      ).searchParams.get("scope");
    expect(
      Object.fromEntries(["google", "apple", "facebook", "twitch", "auth0"].map((id) => [id, scopeOf(id)])),
    ).toEqual({
      google: "openid email profile",
      apple: "openid email name",
      facebook: "email public_profile",
      twitch: "openid user:read:email",
      auth0: "openid email profile",
    });
    // The service's own scope wins over the default.
    expect(scopeOf("apple", "openid email")).toBe("openid email");
  });
});

describe("Solana commitment (spec §9: confirmed)", () => {
  let node: SolanaRpcNode;
  let solanaSvc: TestService;
  beforeAll(async () => {
    node = await startSolanaRpc();
    solanaSvc = await startService({ solana: { rpcUrl: node.url } });
  });
  afterAll(async () => {
    await Promise.all([solanaSvc?.close(), node?.close()]);
  });

  it("a send asks for the blockhash and the preflight at 'confirmed', and for nothing at another level", async () => {
    const signer = await signInWithOtp(solanaSvc, "commitment@example.com", { solana: solana() });
    const from = signer.user?.solanaAddress as string;
    node.svm.airdrop(address(from), lamports(1_000_000_000n));
    // Every JSON-RPC request the client sends, as sent (method and params), on the way to the node.
    const sent: { method: string; params: unknown[] }[] = [];
    const transport = createDefaultRpcTransport({ url: node.url });
    const rpc = createSolanaRpcFromTransport(async (request) => {
      sent.push(request.payload as { method: string; params: unknown[] });
      return (await transport(request)) as never;
    });
    const to = "9B5XszUGdMaxCZ7uSQhPzdks5ZQSmWxrmzCSvtJ6Ns6g";
    const { signature } = await sendSolanaTransaction(signer, {
      transfer: { toAddress: to, amount: 1_000_000n },
      connection: rpc,
    });
    expect(node.svm.getBalance(address(to))).toBe(1_000_000n);
    const commitments = sent.map(({ method, params }) => {
      const config = params.find(
        (p): p is { commitment?: string; preflightCommitment?: string } =>
          typeof p === "object" && p !== null && !Array.isArray(p),
      );
      return [method, config?.commitment ?? config?.preflightCommitment ?? null] as const;
    });
    expect(commitments.find(([m]) => m === "getLatestBlockhash")).toEqual([
      "getLatestBlockhash",
      "confirmed",
    ]);
    expect(commitments.find(([m]) => m === "sendTransaction")).toEqual(["sendTransaction", "confirmed"]);
    // Nothing is asked at another level.
    expect(commitments.filter(([, c]) => c !== null && c !== "confirmed")).toEqual([]);
    expect(sent.some((r) => r.method === "getSignatureStatuses")).toBe(true);
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{86,88}$/);
  });
});
