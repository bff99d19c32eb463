import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  STEP_UP_MAX_AGE_MS,
  sealExportBundle,
  signP256Der,
} from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import type { BrowserContext, FrameLocator } from "playwright-core";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addVirtualAuthenticator } from "../packages/core/test/browser/virtualAuthenticator";
import {
  bip32DerivePrivateKey,
  EVM_PATH,
  evmAddressFromPrivateKey,
  mnemonicToSeed,
  SOLANA_PATH,
  slip10Ed25519,
} from "../packages/server/src/crypto/wallet";
import { hostPageContents, instrumentHostPage } from "./helpers/hostPage";
import { type Stack, shot, signUpInDemo, startStack, typeOtp } from "./helpers/stack";

// Wallet export on the demo's account page: the words show in the service's export frame, derive the
// user's EVM and Solana addresses, and never reach the host page's scripts (its DOM, its message
// listeners, its storage). Later than five minutes after the sign-in, export asks 'Confirm it's you'
// and works after a code. The service's clock and the page's are moved forward together, never waited.
let s: Stack;
let context: BrowserContext;
const clock = { offset: 0 };
beforeAll(async () => {
  // On localhost: the host name is the dev app's WebAuthn relying party (the passkey step-up).
  s = await startStack("demo", { hostName: "localhost", now: () => Date.now() + clock.offset });
}, 180_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

async function wordsIn(frame: FrameLocator): Promise<string[]> {
  const list = frame.getByTestId("export-words");
  await list.waitFor();
  return list.getByTestId("export-word").allTextContents();
}

describe("wallet export", () => {
  it("shows the words in the export frame only; later it asks 'Confirm it's you' and works after a code", async () => {
    context = await s.browser.newContext({ viewport: { width: 1100, height: 1300 } });
    // The page's clock runs as usual but can be moved forward with the service's.
    await context.clock.install();
    await context.addInitScript(instrumentHostPage);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    await page.goto(`${s.hostOrigin}/`);
    const email = "export-user@example.com";
    await signUpInDemo(s, page, email);
    const evmAddress = (await page.getByTestId("evm-address").getAttribute("title")) as string;
    const solanaAddress = (await page.getByTestId("solana-address").getAttribute("title")) as string;

    // Right after the sign-in: no prompt, the words show in the frame.
    const panel = page.getByTestId("export");
    await panel.getByRole("heading", { name: "Export wallet" }).waitFor();
    await panel.getByRole("button", { name: "Show recovery phrase" }).click();
    const frame = page.frameLocator("#latchkey-export-iframe");
    const words = await wordsIn(frame);
    expect([12, 24]).toContain(words.length);
    await frame.getByRole("heading", { name: "Your recovery phrase" }).waitFor();
    const phrase = words.join(" ");
    const seed = mnemonicToSeed(phrase);
    expect(evmAddressFromPrivateKey(bip32DerivePrivateKey(seed, EVM_PATH)).address).toBe(evmAddress);
    expect(base58.encode(ed25519.getPublicKey(slip10Ed25519(seed, SOLANA_PATH)))).toBe(solanaAddress);

    // On request, the keys in the formats wallets import.
    await frame.getByRole("button", { name: "Show EVM private key" }).click();
    const evmKey = (await frame.getByTestId("export-evm-key").textContent()) as string;
    expect(evmKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(privateKeyToAddress(evmKey as `0x${string}`)).toBe(evmAddress);
    await frame.getByRole("button", { name: "Show Solana secret key" }).click();
    const solanaKey = (await frame.getByTestId("export-solana-key").textContent()) as string;
    const secret = base58.decode(solanaKey);
    expect(secret).toHaveLength(64);
    expect(base58.encode(secret.subarray(32))).toBe(solanaAddress);
    expect(base58.encode(ed25519.getPublicKey(secret.subarray(0, 32)))).toBe(solanaAddress);
    await shot(page, "60-demo-export");

    // Nothing of it reached the host page: not its messages, its DOM, its storage.
    const seen = await hostPageContents(page);
    expect(seen).not.toContain("READABLE-FRAME");
    const secrets = [
      phrase,
      evmKey,
      evmKey.slice(2),
      solanaKey,
      ...words.slice(1).map((w, i) => `${words[i]} ${w}`),
      ...words.slice(1).map((w, i) => `"${words[i]}","${w}"`),
    ];
    for (const value of secrets) expect(seen.includes(value), `host page saw "${value}"`).toBe(false);
    // The instruments worked: the frame's answers on the port and the page's own texts were recorded.
    const recorded = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
    expect(recorded.some((m) => m.includes(`"wordCount":${words.length}`))).toBe(true);
    expect(recorded.some((m) => m.includes("Show recovery phrase"))).toBe(true);
    // Words stand alone too: none of them as a word of its own in what the messages carried (keys,
    // stamps and bundles aside: hex, base58 or base64 runs could spell one by chance; so do the protocol's own
    // names and enumerated values: `{"id":1,"result":…}` and the auth frame's `"storage":"memory"` would fail
    // the test whenever the phrase holds "result" or "memory", both BIP-39 words).
    const messages = recorded
      .filter((m) => m.startsWith("message\t"))
      .join(" ")
      .replace(/"(storage|kind|type|status)":"[a-z:-]+"/g, " ")
      .replace(/"storageError":"[^"]*"/g, " ")
      .replace(/"[A-Za-z]+":/g, " ")
      .replace(/[0-9a-fA-F]{16,}/g, " ")
      .replace(/[A-Za-z0-9+/_-]{32,}={0,2}/g, " ");
    const loneWords = words.filter((w) => new RegExp(`(^|[^a-z])${w}([^a-z]|$)`).test(messages));
    expect(loneWords).toEqual([]);

    await panel.getByRole("button", { name: "Hide" }).click();
    expect(await page.locator("#latchkey-export-iframe").count()).toBe(0);

    // Six minutes later the sign-in is no longer fresh: the service refuses and the UI asks.
    clock.offset += STEP_UP_MAX_AGE_MS + 60_000;
    await page.clock.setSystemTime(Date.now() + clock.offset);
    await panel.getByRole("button", { name: "Show recovery phrase" }).click();
    await panel.getByRole("heading", { name: "Confirm it's you" }).waitFor();
    expect(await page.locator("#latchkey-export-iframe").count()).toBe(0);
    await shot(page, "61-demo-export-step-up");
    const sent = s.mailCount(email);
    await panel.getByRole("button", { name: "Send a code to my email" }).click();
    await panel.getByText(`Code sent to ${email}`).waitFor();
    await typeOtp(page, await s.otpCode(email, sent));
    expect(await wordsIn(frame)).toEqual(words);
    await expect.poll(() => s.mailCount(email)).toBeGreaterThan(sent + 1);
    expect((await s.mail(email, sent + 1)).subject).toMatch(/wallet was exported/);
  }, 120_000);

  it("the export frame refuses a bundle signed by another key, a forged signature, or another organisation", async () => {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${s.hostOrigin}/`);
    // The host page's side of the channel, by hand: the frame, its target key, then one bundle.
    const frameUrl = `${s.serviceUrl}/frames/export?appId=dev`;
    const targetPublicKey = await page.evaluate(async (url) => {
      const iframe = document.createElement("iframe");
      iframe.id = "probe-export";
      iframe.src = url;
      iframe.style.height = "300px";
      document.body.prepend(iframe);
      await new Promise((r) => iframe.addEventListener("load", r, { once: true }));
      const channel = new MessageChannel();
      const w = window as unknown as { __call(method: string, params?: object): Promise<unknown> };
      let id = 0;
      const waiting = new Map<number, (answer: unknown) => void>();
      const ready = new Promise((r) => {
        channel.port1.onmessage = (event) => {
          const data = event.data as { id?: number; type?: string };
          if (data.type === "latchkey:ready") r(null);
          else if (typeof data.id === "number") waiting.get(data.id)?.(data);
        };
      });
      iframe.contentWindow?.postMessage({ type: "latchkey:init" }, new URL(url).origin, [channel.port2]);
      await ready;
      w.__call = (method, params = {}) =>
        new Promise((r) => {
          id += 1;
          waiting.set(id, r);
          channel.port1.postMessage({ id, method, params });
        });
      return ((await w.__call("getTargetPublicKey")) as { result: string }).result;
    }, frameUrl);
    const keys = s.service.ctx.serviceKeys;
    const servicePublicKey = await keys.publicKey("exportSigner");
    const orgId = "org-the-host-asked-for";
    const plaintext = new TextEncoder().encode(
      "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
    );
    const seal = (over: Partial<Parameters<typeof sealExportBundle>[0]>) =>
      sealExportBundle({
        plaintext,
        targetPublicKey,
        organizationId: orgId,
        signerPublicKey: servicePublicKey,
        sign: (data) => keys.signP256Der("exportSigner", data),
        ...over,
      });
    const inject = (exportBundle: string) =>
      page.evaluate(
        ([bundle, org]) =>
          (window as unknown as { __call(m: string, p: object): Promise<unknown> }).__call(
            "injectExportBundle",
            {
              exportBundle: bundle,
              organizationId: org,
            },
          ),
        [exportBundle, orgId] as const,
      ) as Promise<{ result?: { wordCount: number }; error?: { code: string; message: string } }>;
    const forger = generateP256PrivateKey();
    const refusals = {
      otherKey: await inject(
        await seal({
          signerPublicKey: p256PublicKeyFromPrivate(forger, false),
          sign: async (data) => signP256Der(data, forger),
        }),
      ),
      forgedSignature: await inject(await seal({ sign: async (data) => signP256Der(data, forger) })),
      otherOrganisation: await inject(await seal({ organizationId: "another-org" })),
    };
    expect(refusals).toEqual({
      otherKey: {
        id: 2,
        error: { code: "INVALID_EXPORT_BUNDLE", message: "export bundle is signed by another key" },
      },
      forgedSignature: {
        id: 3,
        error: { code: "INVALID_EXPORT_BUNDLE", message: "export bundle signature is not valid" },
      },
      otherOrganisation: {
        id: 4,
        error: { code: "INVALID_EXPORT_BUNDLE", message: "export bundle is for another organization" },
      },
    });
    const frame = page.frameLocator("#probe-export");
    await frame.getByRole("alert").getByText("The export could not be verified.").waitFor();
    expect(await frame.getByTestId("export-word").count()).toBe(0);
    // The service's own bundle for this organisation opens.
    expect(await inject(await seal({}))).toEqual({ id: 5, result: { wordCount: 12 } });
    expect(await frame.getByTestId("export-word").allTextContents()).toHaveLength(12);
    await page.close();
  }, 60_000);

  it("with a passkey, 'Confirm it's you' offers it, and one passkey prompt shows the words", async () => {
    const passkeyContext = await s.browser.newContext({ viewport: { width: 1100, height: 1300 } });
    try {
      await passkeyContext.clock.install({ time: Date.now() + clock.offset });
      const page = await passkeyContext.newPage();
      page.setDefaultTimeout(15_000);
      const authenticator = await addVirtualAuthenticator(passkeyContext, page);
      await page.goto(`${s.hostOrigin}/`);
      await signUpInDemo(s, page, "export-passkey@example.com");
      const passkeys = page.getByTestId("passkeys");
      await passkeys.getByRole("button", { name: "Add a passkey" }).click();
      await passkeys.getByText(/^passkey-\d+/).waitFor();

      clock.offset += STEP_UP_MAX_AGE_MS + 60_000;
      await page.clock.setSystemTime(Date.now() + clock.offset);
      const panel = page.getByTestId("export");
      await panel.getByRole("button", { name: "Show recovery phrase" }).click();
      await panel.getByRole("heading", { name: "Confirm it's you" }).waitFor();
      await panel.getByRole("button", { name: "Send a code to my email" }).waitFor();
      const before = (await authenticator.prompts()).get;
      await panel.getByRole("button", { name: "Use my passkey" }).click();
      const words = await wordsIn(page.frameLocator("#latchkey-export-iframe"));
      expect([12, 24]).toContain(words.length);
      expect((await authenticator.prompts()).get).toBe(before + 1);
    } finally {
      await passkeyContext.close();
    }
  }, 60_000);
});
