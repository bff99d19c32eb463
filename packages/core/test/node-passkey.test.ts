import {
  type Authenticator,
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  isPasskeyCancelled,
  PasskeyCancelledError,
  PasskeyError,
  type Signer,
  SignerApiError,
  type SignerOptions,
  SignerStatus,
  toViemAccount,
} from "@latchkey/core";
import { signerRoutes } from "@latchkey/protocol";
import { verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";
import { SoftPasskeys } from "./helpers/softPasskeys";

// The dev app's relying party is the host of its first allowed origin.
const ORIGIN = "http://localhost:5173";
let svc: TestService;

beforeAll(async () => {
  svc = await startService({ devOrigins: [ORIGIN] });
});
afterAll(async () => {
  await svc?.close();
});

function newSigner(credentials: SoftPasskeys | undefined, overrides: Partial<SignerOptions> = {}): Signer {
  return createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    rpId: "localhost",
    ...(credentials ? { credentials } : {}),
    ...overrides,
  });
}

function record(signer: Signer) {
  const events: string[] = [];
  for (const name of [
    "authenticating",
    "newUserSignup",
    "connected",
    "connectedPasskey",
    "disconnected",
  ] as const) {
    signer.on(name, (payload) => {
      const type = (payload as { type?: string } | undefined)?.type;
      events.push(type ? `${name}:${type}` : name);
    });
  }
  return events;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: Error) => e,
  );
}

describe("passkey sign-up and login through the signer", () => {
  const passkeys = new SoftPasskeys(ORIGIN);
  let address: string;

  it("signs up with a new passkey in one prompt: the sign-up answers the session", async () => {
    const signer = newSigner(passkeys);
    const events = record(signer);
    const result = await signer.authenticate({ type: "passkey", createNew: true });
    expect(result.status).toBe(SignerStatus.CONNECTED);
    expect(passkeys.calls).toEqual({ create: 1, get: 0 });
    const [credentialId] = passkeys.credentialIds();
    expect(result.user).toMatchObject({
      credentialId,
      address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
    expect(result.user?.email).toBeUndefined();
    address = result.user?.address as string;
    expect(events).toEqual(["authenticating:passkey", "newUserSignup", "connected", "connectedPasskey"]);
    expect(signer.getState()).toMatchObject({ isNewUser: true, error: null });
    expect(signer.sessionManager.getSession()).toMatchObject({
      type: "passkey",
      user: { credentialId, address },
    });
    // Signing uses the session key: no further prompt.
    const signature = await toViemAccount(signer).signMessage({ message: "passkey user" });
    expect(
      await verifyMessage({ address: address as `0x${string}`, message: "passkey user", signature }),
    ).toBe(true);
    expect(passkeys.calls).toEqual({ create: 1, get: 0 });
  });

  it("a fresh signer logs in with the passkey in one prompt, as the same user", async () => {
    const signer = newSigner(passkeys);
    const events = record(signer);
    const before = passkeys.credentials[0]?.signCount ?? 0;
    const result = await signer.authenticate({ type: "passkey" });
    expect(result.user?.address).toBe(address);
    expect(passkeys.calls).toEqual({ create: 1, get: 1 });
    expect(passkeys.credentials[0]?.signCount).toBe(before + 1);
    expect(events).toEqual(["authenticating:passkey", "connected", "connectedPasskey"]);
    expect(signer.getState().isNewUser).toBe(false);
    const signature = await toViemAccount(signer).signMessage({ message: "again" });
    expect(await verifyMessage({ address: address as `0x${string}`, message: "again", signature })).toBe(
      true,
    );
    expect(passkeys.calls.get).toBe(1);
  });

  it("the root org id as a session setting (spec §3): the login asks no signer config; another org is refused", async () => {
    const { rootOrgId } = await newSigner(undefined).client.call(signerRoutes.signerConfig, {});
    const paths: string[] = [];
    const recording: typeof fetch = (input, init) => {
      paths.push(new URL(String(input)).pathname);
      return fetch(input, init);
    };
    const given = newSigner(passkeys, { rootOrgId, fetch: recording });
    const result = await given.authenticate({ type: "passkey" });
    expect(result.user?.address).toBe(address);
    expect(paths).not.toContain("/signer/v1/signer-config");

    const wrong = newSigner(passkeys, { rootOrgId: "00000000-0000-4000-8000-000000000000" });
    await expect(wrong.authenticate({ type: "passkey" })).rejects.toMatchObject({ name: "SignerApiError" });
    expect(wrong.status).toBe(SignerStatus.DISCONNECTED);
  });

  it("an email without an account makes a passkey; an email with one signs in with a passkey", async () => {
    const mine = new SoftPasskeys(ORIGIN);
    const signer = newSigner(mine);
    const created = await signer.authenticate({ type: "passkey", email: "new-passkey@example.com" });
    expect(mine.calls).toEqual({ create: 1, get: 0 });
    expect(signer.getState().isNewUser).toBe(true);

    const emailUser = await signInWithOtp(svc, "has-account@example.com", {
      credentials: mine,
      rpId: "localhost",
    });
    await emailUser.addPasskey();
    const other = newSigner(mine);
    const result = await other.authenticate({ type: "passkey", email: "has-account@example.com" });
    // A known email: no new passkey, a login with the (newest) passkey on the authenticator.
    expect(mine.calls).toEqual({ create: 2, get: 1 });
    expect(result.user?.address).toBe(emailUser.user?.address);
    expect(result.user?.address).not.toBe(created.user?.address);
  });

  it("a dismissed prompt rejects with PasskeyCancelledError and leaves the signer DISCONNECTED", async () => {
    const signer = newSigner(passkeys);
    await signer.init();
    passkeys.next = "dismiss";
    const error = await rejection(signer.authenticate({ type: "passkey" }));
    expect(error).toBeInstanceOf(PasskeyCancelledError);
    expect(error).toMatchObject({ name: "PasskeyCancelledError", code: "PASSKEY_CANCELLED" });
    expect((error.cause as Error).name).toBe("NotAllowedError");
    expect(signer.status).toBe(SignerStatus.DISCONNECTED);
    expect(signer.getState().error).toEqual({
      name: "PasskeyCancelledError",
      code: "PASSKEY_CANCELLED",
      message:
        "Passkey request timed out or canceled by the agent. You may have to use another method to register a passkey for your account.",
    });
    expect(isPasskeyCancelled(signer.getState().error)).toBe(true);

    // Dismissing the creation prompt of a sign-up is a cancel too, and creates no account.
    passkeys.next = "dismiss";
    const users = passkeys.credentials.length;
    expect(await rejection(signer.authenticate({ type: "passkey", createNew: true }))).toBeInstanceOf(
      PasskeyCancelledError,
    );
    expect(passkeys.credentials.length).toBe(users);
  });

  it("the app can abort a pending prompt (the modal's Cancel)", async () => {
    const signer = newSigner(passkeys);
    passkeys.next = "hang";
    const controller = new AbortController();
    const pending = rejection(signer.authenticate({ type: "passkey", signal: controller.signal }));
    await new Promise((r) => setTimeout(r, 50));
    expect(signer.status).toBe(SignerStatus.AUTHENTICATING_PASSKEY);
    controller.abort("user pressed cancel");
    const error = await pending;
    expect(error).toBeInstanceOf(PasskeyCancelledError);
    expect(signer.status).toBe(SignerStatus.DISCONNECTED);
  });

  it("a new prompt replaces a pending one, whose rejection leaves the state alone", async () => {
    const signer = newSigner(passkeys);
    passkeys.next = "hang";
    const first = rejection(signer.authenticate({ type: "passkey" }));
    await new Promise((r) => setTimeout(r, 50));
    const second = await signer.authenticate({ type: "passkey" });
    expect(await first).toBeInstanceOf(PasskeyCancelledError);
    expect(second.user?.address).toBe(address);
    expect(signer.status).toBe(SignerStatus.CONNECTED);
    expect(signer.getState().error).toBeNull();
  });

  it("without WebAuthn (or a relying party) the error says so", async () => {
    const signer = newSigner(undefined);
    const error = await rejection(signer.authenticate({ type: "passkey", createNew: true }));
    expect(error).toBeInstanceOf(PasskeyError);
    expect(error).toMatchObject({
      code: "WEBAUTHN_UNSUPPORTED",
      message: "Passkey registration needs browser WebAuthn support, which is not available here",
    });
    expect(signer.status).toBe(SignerStatus.DISCONNECTED);
    const noRp = newSigner(passkeys, { rpId: undefined });
    expect(await rejection(noRp.authenticate({ type: "passkey" }))).toMatchObject({ code: "RP_ID_REQUIRED" });
  });

  it("a passkey the service does not know is refused by the service", async () => {
    const stranger = new SoftPasskeys(ORIGIN);
    await stranger.create({
      publicKey: {
        challenge: new Uint8Array(32),
        rp: { id: "localhost", name: "x" },
        user: { id: new Uint8Array(32), name: "x", displayName: "x" },
        pubKeyCredParams: [{ type: "public-key", alg: -7 }],
      },
    });
    const signer = newSigner(stranger);
    const error = await rejection(signer.authenticate({ type: "passkey" }));
    expect(error).toBeInstanceOf(SignerApiError);
    expect(error).toMatchObject({ status: 401, code: "INVALID_STAMP" });
    expect(signer.status).toBe(SignerStatus.DISCONNECTED);
  });
});

describe("managing passkeys while signed in", () => {
  it("adds, lists, logs in with and removes a passkey of an email user", async () => {
    const passkeys = new SoftPasskeys(ORIGIN);
    const signer = await signInWithOtp(svc, "adds-passkey@example.com", {
      credentials: passkeys,
      rpId: "localhost",
    });
    expect(await signer.getPasskeyStatus()).toEqual({ isPasskeyAdded: false, passkeys: [] });
    const before = Date.now();
    const authenticatorId = await signer.addPasskey();
    const status = await signer.getPasskeyStatus();
    expect(status.isPasskeyAdded).toBe(true);
    expect(status.passkeys).toEqual([
      { authenticatorId, name: expect.stringMatching(/^passkey-\d+$/), createdAt: expect.any(Number) },
    ]);
    expect(Number(status.passkeys[0]?.name.slice("passkey-".length))).toBeGreaterThanOrEqual(before);

    // The same authenticator cannot hold a second passkey of this account: it is excluded.
    const again = await rejection(signer.addPasskey());
    expect(again).toMatchObject({ name: "PasskeyError", code: "PASSKEY_ALREADY_REGISTERED" });
    expect(signer.status).toBe(SignerStatus.CONNECTED);

    const other = newSigner(passkeys);
    const login = await other.authenticate({ type: "passkey" });
    expect(login.user).toMatchObject({
      address: signer.user?.address,
      email: "adds-passkey@example.com",
      credentialId: passkeys.credentialIds()[0],
    });

    await signer.removePasskey(authenticatorId);
    expect(await signer.getPasskeyStatus()).toEqual({ isPasskeyAdded: false, passkeys: [] });
    const gone = newSigner(passkeys);
    expect(await rejection(gone.authenticate({ type: "passkey" }))).toMatchObject({
      status: 401,
      code: "INVALID_STAMP",
      message: "This passkey is not registered",
    });
  });

  it("the only passkey of a passkey-only account cannot be removed", async () => {
    const passkeys = new SoftPasskeys(ORIGIN);
    const signer = newSigner(passkeys);
    await signer.authenticate({ type: "passkey", createNew: true });
    const { passkeys: list } = await signer.getPasskeyStatus();
    expect(list).toHaveLength(1);
    const error = await rejection(signer.removePasskey(list[0]?.authenticatorId as string));
    expect(error).toMatchObject({ status: 409, code: "LAST_AUTH_METHOD" });
  });

  it("needs a signed-in user", async () => {
    const signer = newSigner(new SoftPasskeys(ORIGIN));
    for (const call of [
      () => signer.addPasskey(),
      () => signer.removePasskey("x"),
      () => signer.getPasskeyStatus(),
    ]) {
      expect(await rejection(call())).toMatchObject({
        code: "NOT_AUTHENTICATED",
        message: "Signer not authenticated",
      });
    }
  });
});

describe("SignerClient passkey calls", () => {
  it("looks a user up with a passkey-stamped whoami to the root org; the stamp is single use", async () => {
    const passkeys = new SoftPasskeys(ORIGIN);
    const signer = newSigner(passkeys);
    const { user } = await signer.authenticate({ type: "passkey", createNew: true });
    const { rootOrgId } = await signer.client.call(signerRoutes.signerConfig, {});
    expect(rootOrgId).toEqual(expect.any(String));
    expect(rootOrgId).not.toBe(user?.orgId);
    const { stampWithPasskey } = await import("../src/authMethods/passkey/webauthn");
    const stamper = (body: string) => stampWithPasskey(body, { credentials: passkeys, rpId: "localhost" });
    const who = await signer.client.callStamped(signerRoutes.whoami, { organizationId: rootOrgId, stamper });
    expect(who).toMatchObject({
      orgId: user?.orgId,
      userId: user?.userId,
      address: user?.address,
      credentialId: passkeys.credentialIds()[0],
    });
    // The same stamped request a second time is refused.
    const stampedRequest = await signer.client.stampRequest(
      "/public/v1/query/whoami",
      { organizationId: rootOrgId, timestampMs: String(Date.now()) },
      stamper,
    );
    expect(stampedRequest.stamp.stampHeaderName).toBe("X-Stamp-WebAuthn");
    await signer.client.call(signerRoutes.whoami, { stampedRequest });
    expect(await rejection(signer.client.call(signerRoutes.whoami, { stampedRequest }))).toMatchObject({
      status: 401,
      code: "STAMP_REPLAYED",
    });
    const authenticators = await signer.client.query<{ authenticators: Authenticator[] }>(
      "get_authenticators",
      {
        organizationId: user?.orgId as string,
        userId: user?.userId as string,
      },
    );
    expect(authenticators.authenticators).toEqual([
      expect.objectContaining({
        credentialId: passkeys.credentialIds()[0],
        transports: ["internal"],
        authenticatorName: expect.stringMatching(/^passkey-\d+$/),
      }),
    ]);
  });
});
