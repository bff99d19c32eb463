/**
 * removeEmail's success path (spec §5: removing the email leaves the account without one), end to end: a
 * user with a passkey turns email sign-in off; the session's user has no email at once, the service
 * stores none (NULL) and says so, the address no longer reaches the account, and the passkey still does.
 */
import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  SignerStatus,
} from "@latchkey/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";
import { SoftPasskeys } from "./helpers/softPasskeys";

const ORIGIN = "http://localhost:5173";
let svc: TestService;
beforeAll(async () => {
  svc = await startService({ devOrigins: [ORIGIN] });
});
afterAll(async () => {
  await svc?.close();
});

const passkeySigner = (credentials: SoftPasskeys): Signer =>
  createSigner({
    baseUrl: svc.baseUrl,
    apiKey: svc.apiKey,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    rpId: "localhost",
    credentials,
  });

describe("removeEmail", () => {
  it("turns email sign-in off: no email in the session or the service; the passkey still signs in", async () => {
    const email = "leaving@example.com";
    const passkeys = new SoftPasskeys(ORIGIN);
    const signer = await signInWithOtp(svc, email, { rpId: "localhost", credentials: passkeys });
    const { userId, orgId } = signer.user as { userId: string; orgId: string };
    await signer.addPasskey();
    expect(passkeys.credentials).toHaveLength(1);

    const seen: (string | undefined)[] = [];
    signer.store.subscribe(
      (s) => s.user?.email,
      (e) => seen.push(e),
    );
    const user = await signer.removeEmail();
    expect(user.email).toBeUndefined();
    expect("email" in user).toBe(false);
    expect(signer.user?.email).toBeUndefined();
    expect(signer.sessionManager.getSession()?.user.email).toBeUndefined();
    expect(seen).toEqual([undefined]);
    expect(signer.status).toBe(SignerStatus.CONNECTED);
    expect(signer.user?.userId).toBe(userId);

    // The service holds no address for the user (the empty address and a *.invalid placeholder both
    // mean NULL there) and lists no email method.
    const row = await svc.service.ctx.db
      .selectFrom("users")
      .select(["email"])
      .where("id", "=", userId)
      .executeTakeFirstOrThrow();
    expect(row.email).toBeNull();
    expect((await signer.listAuthMethods()).email).toBeUndefined();

    // The address no longer reaches this account: signing in with it makes a new one.
    const stranger = await signInWithOtp(svc, email);
    expect(stranger.user?.userId).not.toBe(userId);
    expect(stranger.user?.orgId).not.toBe(orgId);

    // The passkey still signs in to the account, which has no email.
    const back = passkeySigner(passkeys);
    const result = await back.authenticate({ type: "passkey" });
    expect(result.user?.userId).toBe(userId);
    expect(result.user?.email).toBeUndefined();
  });
});
