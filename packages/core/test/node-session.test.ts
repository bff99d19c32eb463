import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  MfaRequiredError,
  SessionManager,
  type SignerApiError,
  SignerStatus,
  signRawMessage,
  toViemAccount,
} from "@latchkey/core";
import { DEFAULT_SESSION_LENGTH_MS, signerRoutes } from "@latchkey/protocol";
import { keccak256, toHex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createManualClock } from "./helpers/clock";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

let svc: TestService;
const clock = createManualClock();

beforeAll(async () => {
  svc = await startService({ now: () => clock.now() });
});
afterAll(async () => {
  await svc?.close();
});

describe("session expiry (injected clock, no sleeping)", () => {
  it("clears the session and disconnects at expirationDateMs; the service refuses the old key too", async () => {
    const signer = await signInWithOtp(svc, "expiry@example.com", { clock });
    const session = signer.sessionManager.getSession();
    expect(session?.expirationDateMs).toBeGreaterThanOrEqual(clock.now() + DEFAULT_SESSION_LENGTH_MS - 1000);
    const disconnected: string[] = [];
    signer.on("disconnected", () => disconnected.push("disconnected"));
    // A read-only stamped request made while the session was live, to replay after expiry.
    const orgId = signer.user?.orgId as string;
    const stampedWhoami = await signer.client.stampRequest("/public/v1/query/whoami", {
      organizationId: orgId,
    });

    clock.advance(DEFAULT_SESSION_LENGTH_MS - 2000);
    expect(signer.status).toBe(SignerStatus.CONNECTED);
    clock.advance(2000);
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));

    expect(signer.status).toBe(SignerStatus.DISCONNECTED);
    expect(signer.user).toBeNull();
    expect(disconnected).toEqual(["disconnected"]);
    expect(signer.sessionManager.storage.getItem(signer.sessionManager.sessionKey)).toBeNull();
    await expect(
      signRawMessage(signer, { message: keccak256("0x") }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: Signer not authenticated]`);
    await expect(signer.keyHolder.stamp("{}")).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SignerError: Signer not authenticated]`,
    );

    const refused = (await signer.client
      .call(signerRoutes.whoami, { stampedRequest: stampedWhoami })
      .catch((e: unknown) => e)) as SignerApiError;
    expect([refused.code, refused.message]).toEqual(["SESSION_EXPIRED", "The session has expired"]);
  });

  it("a session found expired at start is dropped: DISCONNECTED", async () => {
    const signer = await signInWithOtp(svc, "stale@example.com", { clock });
    signer.destroy();
    const storage = signer.sessionManager.storage;
    const expiresAt = signer.sessionManager.getSession()?.expirationDateMs as number;
    const later = createManualClock();
    later.advance(expiresAt - later.now() + 1);
    const restarted = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: signer.keyHolder,
      storage,
      clock: later,
      window: null,
    });
    await restarted.init();
    expect(restarted.status).toBe(SignerStatus.DISCONNECTED);
    expect(storage.getItem(restarted.sessionManager.sessionKey)).toBeNull();
  });

  it("caps the timer at 2147483647 ms and still expires a long session", () => {
    const manual = createManualClock();
    const delays: number[] = [];
    const sessions = new SessionManager({
      storage: createMemoryStorage(),
      eventTarget: null,
      clock: {
        ...manual,
        setTimeout: (fn, ms) => {
          delays.push(ms);
          return manual.setTimeout(fn, ms);
        },
      },
    });
    const changes: string[] = [];
    sessions.watch((change) => changes.push(change.reason));
    // The literal, not MAX_TIMER_DELAY_MS: a test that reads the code's own constant passes whatever it holds.
    const cap = 2_147_483_647;
    const lifetime = cap * 2 + 1000;
    sessions.setSession({
      type: "otp",
      bundle: "x",
      expirationDateMs: manual.now() + lifetime,
      user: { address: "0x0000000000000000000000000000000000000001", userId: "u", orgId: "o" },
    });
    expect(delays).toEqual([cap]);
    manual.advance(cap);
    expect(delays).toEqual([cap, cap]);
    expect(changes).toEqual([]);
    manual.advance(cap);
    // The clock runs on real time too, so the last step is the 1000 ms left less a few.
    expect(delays.slice(0, 2)).toEqual([cap, cap]);
    expect(delays).toHaveLength(3);
    expect(delays[2]).toBeGreaterThan(900);
    expect(delays[2]).toBeLessThanOrEqual(1000);
    expect(changes).toEqual([]);
    manual.advance(1000);
    expect(changes).toEqual(["expired"]);
    expect(sessions.getSession()).toBeNull();
  });
});

describe("restore", () => {
  it("a new signer on the same storage and key holder restores the session and signs", async () => {
    const first = await signInWithOtp(svc, "restore@example.com", { clock });
    first.destroy();
    const connected: string[] = [];
    const second = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: first.keyHolder,
      storage: first.sessionManager.storage,
      clock,
      window: null,
    });
    second.on("connected", (user) => connected.push(user.address));
    await second.init();
    expect(second.status).toBe(SignerStatus.CONNECTED);
    expect(connected).toEqual([first.user?.address]);
    const signature = await toViemAccount(second).signMessage({ message: "restored" });
    expect(
      await verifyMessage({ address: second.user?.address as `0x${string}`, message: "restored", signature }),
    ).toBe(true);
  });

  it("a stored bundle the key holder cannot open is a dead session: cleared, DISCONNECTED", async () => {
    const first = await signInWithOtp(svc, "lost-key@example.com", { clock });
    first.destroy();
    const second = createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: first.sessionManager.storage,
      clock,
      window: null,
    });
    await second.init();
    expect(second.status).toBe(SignerStatus.DISCONNECTED);
    expect(second.sessionManager.getSession()).toBeNull();
  });
});

describe("the signer's error catalogue (spec §8)", () => {
  const fresh = () =>
    createSigner({
      baseUrl: svc.baseUrl,
      apiKey: svc.apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      clock,
      window: null,
    });

  it("submitting a code needs the email auth session with orgId and otpId", async () => {
    const signer = fresh();
    await expect(
      signer.authenticate({ type: "otp", otpCode: "123456" }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: Could not find email auth init session!]`);
    signer.sessionManager.setTemporarySession({ orgId: "", otpId: "x" });
    await expect(
      signer.authenticate({ type: "otp", otpCode: "123456" }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: orgId not found in session]`);
    signer.sessionManager.setTemporarySession({ orgId: "o" });
    await expect(
      signer.authenticate({ type: "otp", otpCode: "123456" }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: otpId not found in session]`);
  });

  it("validating MFA needs a pending MFA context with the same factor", async () => {
    const signer = fresh();
    await expect(
      signer.validateMultiFactors({ multiFactorCode: "123456" }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SignerError: No pending MFA context found. Call submitOtpCode() first.]`,
    );
    signer.sessionManager.setTemporarySession({ orgId: "o", encryptedPayload: "p", mfaFactorId: "f1" });
    await expect(
      signer.validateMultiFactors({ multiFactorCode: "123456", multiFactorId: "f2" }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: MFA factor ID mismatch]`);
  });

  it("signing and accounts need a signed-in user", async () => {
    const signer = fresh();
    await expect(
      signRawMessage(signer, { message: keccak256(toHex("x")) }),
    ).rejects.toThrowErrorMatchingInlineSnapshot(`[SignerError: Signer not authenticated]`);
    expect(() => toViemAccount(signer)).toThrowErrorMatchingInlineSnapshot(
      `[SignerError: Signer not authenticated]`,
    );
  });

  it("MfaRequiredError carries the factors", () => {
    const error = new MfaRequiredError([{ multiFactorId: "f", multiFactorType: "totp" }]);
    expect([error.message, error.code, error.multiFactors]).toEqual([
      "MFA is required for this user",
      "MFA_REQUIRED",
      [{ multiFactorId: "f", multiFactorType: "totp" }],
    ]);
  });
});
