import { createPrivateKey } from "node:crypto";
import type { BrowserContext, Page } from "playwright-core";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "./browser/harness";
import { addVirtualAuthenticator, type VirtualCredential } from "./browser/virtualAuthenticator";

// RS256 passkeys in Chromium (spec §5; Windows Hello's default). CDP's virtual authenticator has no
// algorithm option: it makes the first algorithm of `pubKeyCredParams` it supports, ES256 before RS256.
// The page here plays an authenticator that makes RS256 keys only (as Windows Hello does on many
// machines): its create() keeps only the RS256 entry of what the signer offers, and Chromium's virtual
// authenticator then makes a real RSA credential, which signs up, signs in and stamps.
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ hostName: "localhost" });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const contexts: BrowserContext[] = [];
afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
});

async function openTab(holding: VirtualCredential[] = []) {
  const context = await h.browser.newContext();
  contexts.push(context);
  const page = await context.newPage();
  await page.addInitScript(() => {
    const container = navigator.credentials;
    const create = container.create.bind(container);
    container.create = (options) => {
      const pk = options?.publicKey;
      if (!pk) return create(options);
      const rs256 = pk.pubKeyCredParams.filter((p) => p.alg === -257);
      // An RS256-only authenticator: nothing to make if the relying party does not offer RS256.
      if (rs256.length === 0) return Promise.reject(new DOMException("No RS256", "NotSupportedError"));
      return create({ ...options, publicKey: { ...pk, pubKeyCredParams: rs256 } });
    };
  });
  const authenticator = await addVirtualAuthenticator(context, page, holding);
  await page.goto(`${h.hostOrigin}/`);
  await page.evaluate(() => window.lk.ready);
  return { context, page, ...authenticator };
}

const keyType = (credential: VirtualCredential) =>
  createPrivateKey({ key: Buffer.from(credential.privateKey, "base64"), format: "der", type: "pkcs8" })
    .asymmetricKeyType;

async function signMessage(page: Page, message: string): Promise<Hex> {
  return page.evaluate(
    (message) => window.lk.core.toViemAccount(window.lk.signer).signMessage({ message }),
    message,
  );
}

describe("an RS256 passkey in Chromium (virtual authenticator)", () => {
  let passkey: VirtualCredential;
  let address: Hex;

  it("signs up: the authenticator holds an RSA key, the service an RS256 (alg -257) credential", async () => {
    const tab = await openTab();
    const outcome = await tab.page.evaluate(() =>
      window.lk.signer.authenticate({ type: "passkey", createNew: true }).then(
        (r) => ({ status: r.status, address: r.user?.address as string }),
        (e: Error) => ({ status: `error ${e.name}: ${e.message}`, address: "" }),
      ),
    );
    expect(outcome.status).toBe("CONNECTED");
    address = outcome.address as Hex;
    const [credential] = await tab.credentials();
    passkey = credential as VirtualCredential;
    expect(keyType(passkey)).toBe("rsa");
    // The service stored an RS256 COSE key (kty 3, alg -257).
    const row = await h.svc.service.ctx.db
      .selectFrom("authenticators")
      .select(["public_key"])
      .where("credential_id", "=", Buffer.from(passkey.credentialId, "base64").toString("base64url"))
      .executeTakeFirstOrThrow();
    expect(Buffer.from(row.public_key, "base64url").subarray(0, 7).toString("hex")).toBe("a4010303390100");
    const signature = await signMessage(tab.page, "rsa in chromium");
    expect(await verifyMessage({ address, message: "rsa in chromium", signature })).toBe(true);
  });

  it("signs in on a fresh browser holding it (an RS256 assertion stamps the lookup), then signs", async () => {
    const tab = await openTab([passkey]);
    const outcome = await tab.page.evaluate(() =>
      window.lk.signer.authenticate({ type: "passkey" }).then(
        (r) => ({ status: r.status, address: r.user?.address as string }),
        (e: Error) => ({ status: `error ${e.name}: ${e.message}`, address: "" }),
      ),
    );
    expect(outcome).toEqual({ status: "CONNECTED", address });
    expect(await tab.prompts()).toEqual({ create: 0, get: 1 });
    const [after] = await tab.credentials();
    expect(after?.signCount).toBeGreaterThan(passkey.signCount);
    const signature = await signMessage(tab.page, "signed after an RS256 sign-in");
    expect(await verifyMessage({ address, message: "signed after an RS256 sign-in", signature })).toBe(true);
  });
});
