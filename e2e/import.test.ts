import {
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  STEP_UP_MAX_AGE_MS,
  sealImportBundle,
  signP256Der,
} from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import type { BrowserContext, FrameLocator, Page } from "playwright-core";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deriveAccounts, entropyToMnemonic } from "../packages/server/src/crypto/wallet";
import { hostPageContents, instrumentHostPage } from "./helpers/hostPage";
import { type Stack, shot, signUpInDemo, startStack, typeOtp } from "./helpers/stack";

// Wallet import on the demo's account page ("Import a wallet"): the user picks what to import, reads what
// it replaces, types the secret into the service's import frame and clicks Import. The secret never
// reaches the host page's scripts (its DOM, its message listeners, its storage): only the bundle the frame
// sealed to the service's one-time key does. The imported phrase is then the account's (the addresses
// shown change, and export shows the same words). Later than five minutes after the sign-in, the import
// asks 'Confirm it's you' first. The service's clock and the page's are moved forward together.
let s: Stack;
let context: BrowserContext;
const clock = { offset: 0 };
beforeAll(async () => {
  s = await startStack("demo", { hostName: "localhost", now: () => Date.now() + clock.offset });
}, 180_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** Picks `kind`, reads the warning, confirms it: answers the import frame and the warning's text. */
async function openImport(page: Page, kind: string): Promise<{ frame: FrameLocator; warning: string }> {
  const panel = page.getByTestId("import");
  await panel.getByRole("heading", { name: "Import a wallet" }).waitFor();
  await panel.getByRole("radio", { name: kind }).check();
  await panel.getByRole("button", { name: "Continue" }).click();
  const warning = (await panel.getByTestId("import-warning").textContent()) as string;
  await panel.getByRole("button", { name: "I understand, continue" }).click();
  const frame = page.frameLocator("#latchkey-import-iframe");
  await frame.getByTestId("import-secret").waitFor();
  return { frame, warning };
}

describe("wallet import", () => {
  it("imports a phrase typed in the import frame only; the addresses change and export shows the same words", async () => {
    context = await s.browser.newContext({ viewport: { width: 1100, height: 1600 } });
    await context.clock.install();
    await context.addInitScript(instrumentHostPage);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    await page.goto(`${s.hostOrigin}/`);
    const email = "import-user@example.com";
    await signUpInDemo(s, page, email);
    const before = {
      evm: (await page.getByTestId("evm-address").getAttribute("title")) as string,
      solana: (await page.getByTestId("solana-address").getAttribute("title")) as string,
    };
    const panel = page.getByTestId("import");

    // The warning names what the import replaces: the current addresses.
    const { frame, warning } = await openImport(page, "Recovery phrase (12 or 24 words)");
    expect(warning).toContain(short(before.evm));
    expect(warning).toContain(short(before.solana));
    expect(warning).toContain("is not deleted");
    await frame.getByText("Recovery phrase", { exact: true }).waitFor();

    // What the frame refuses, it says there; the host shows nothing of it.
    await frame.getByTestId("import-secret").pressSequentially("correct horse battery staple");
    await panel.getByRole("button", { name: "Import", exact: true }).click();
    await frame.getByText("This is not a valid 12- or 24-word recovery phrase. Check each word.").waitFor();
    expect(await panel.getByRole("alert").count()).toBe(0);

    const phrase = entropyToMnemonic(crypto.getRandomValues(new Uint8Array(32)));
    const [evm, sol] = deriveAccounts(phrase);
    await frame.getByTestId("import-secret").fill("");
    await frame.getByTestId("import-secret").pressSequentially(phrase);
    await shot(page, "62-demo-import");
    const sent = s.mailCount(email);
    await panel.getByRole("button", { name: "Import", exact: true }).click();
    await panel.getByText("Wallet imported").waitFor();
    await expect.poll(() => page.getByTestId("evm-address").getAttribute("title")).toBe(evm?.address);
    await expect.poll(() => page.getByTestId("solana-address").getAttribute("title")).toBe(sol?.address);
    expect(await panel.getByTestId("import-result").textContent()).toContain(evm?.address);
    expect(await page.locator("#latchkey-import-iframe").count()).toBe(0);
    await shot(page, "63-demo-import-done");
    await expect.poll(() => s.mailCount(email)).toBeGreaterThan(sent);
    expect((await s.mail(email, sent)).subject).toMatch(/A wallet was imported/);

    // Nothing of it reached the host page: not its messages, its DOM, its storage.
    const seen = await hostPageContents(page, "latchkey-import-iframe");
    expect(seen).not.toContain("READABLE-FRAME");
    const words = phrase.split(" ");
    const secrets = [
      phrase,
      "correct horse battery staple",
      ...words.slice(1).map((w, i) => `${words[i]} ${w}`),
    ];
    for (const value of secrets) expect(seen.includes(value), `host page saw "${value}"`).toBe(false);
    // The instruments worked: the frame's sealed bundle came through the port, and the page's texts.
    const recorded = await page.evaluate(() => (window as unknown as { __seen: string[] }).__seen);
    expect(recorded.some((m) => m.startsWith("message\t") && m.includes("encryptedBundle"))).toBe(true);
    expect(recorded.some((m) => m.includes("I understand, continue"))).toBe(true);

    // The imported phrase is the account's wallet now: export shows the same words.
    await page.getByTestId("export").getByRole("button", { name: "Show recovery phrase" }).click();
    const exported = page.frameLocator("#latchkey-export-iframe").getByTestId("export-words");
    await exported.waitFor();
    expect((await exported.getByTestId("export-word").allTextContents()).join(" ")).toBe(phrase);
    await page.getByTestId("export").getByRole("button", { name: "Hide" }).click();
  }, 120_000);

  it("later than five minutes after the sign-in, 'Confirm it's you' first; an EVM key then imports", async () => {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${s.hostOrigin}/`);
    await page.getByTestId("evm-address").waitFor();
    const solanaBefore = (await page.getByTestId("solana-address").getAttribute("title")) as string;
    clock.offset += STEP_UP_MAX_AGE_MS + 60_000;
    await page.clock.setSystemTime(Date.now() + clock.offset);
    const { frame, warning } = await openImport(page, "EVM private key");
    expect(warning).toContain("your Solana account stays as it is");
    const key = `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}` as const;
    await frame.getByTestId("import-secret").pressSequentially(key);
    const panel = page.getByTestId("import");
    await panel.getByRole("button", { name: "Import", exact: true }).click();
    await panel.getByRole("heading", { name: "Confirm it's you" }).waitFor();
    await panel.getByText("Importing needs a recent sign-in.", { exact: false }).waitFor();
    const email = "import-user@example.com";
    const sent = s.mailCount(email);
    await panel.getByRole("button", { name: "Send a code to my email" }).click();
    await panel.getByText(`Code sent to ${email}`).waitFor();
    await typeOtp(page, await s.otpCode(email, sent));
    await panel.getByText("Wallet imported").waitFor();
    await expect
      .poll(() => page.getByTestId("evm-address").getAttribute("title"))
      .toBe(privateKeyToAddress(key));
    // A key replaces its chain's account only.
    expect(await page.getByTestId("solana-address").getAttribute("title")).toBe(solanaBefore);
    expect(await hostPageContents(page, "latchkey-import-iframe")).not.toContain(key.slice(2));
    await page.close();
  }, 60_000);

  it("the import frame seals nothing to a key the service did not sign, nor for another user", async () => {
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    await page.clock.setSystemTime(Date.now() + clock.offset);
    await page.goto(`${s.hostOrigin}/`);
    const frameUrl = `${s.serviceUrl}/frames/import?appId=dev`;
    await page.evaluate(async (url) => {
      const iframe = document.createElement("iframe");
      iframe.id = "probe-import";
      iframe.src = url;
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
    }, frameUrl);
    const keys = s.service.ctx.serviceKeys;
    const forger = generateP256PrivateKey();
    const seal = (over: Partial<Parameters<typeof sealImportBundle>[0]>) =>
      sealImportBundle({
        targetPublicKey: p256PublicKeyFromPrivate(generateP256PrivateKey(), true),
        organizationId: "org-1",
        userId: "user-1",
        expiresAtMs: Date.now() + clock.offset + 60_000,
        signerPublicKey: Buffer.from(p256PublicKeyFromPrivate(forger, true)),
        sign: async (data) => signP256Der(data, forger),
        ...over,
      });
    const inject = (importBundle: string, userId = "user-1") =>
      page.evaluate(
        ([bundle, user]) =>
          (window as unknown as { __call(m: string, p: object): Promise<unknown> }).__call(
            "injectImportBundle",
            {
              importBundle: bundle,
              organizationId: "org-1",
              userId: user,
              kind: "solana_private_key",
            },
          ),
        [importBundle, userId] as const,
      ) as Promise<{ result?: unknown; error?: { code: string; message: string } }>;
    const own = {
      signerPublicKey: await keys.publicKey("importSigner"),
      sign: (data: Uint8Array) => keys.signP256Der("importSigner", data),
    };
    expect((await inject(await seal({}))).error).toEqual({
      code: "INVALID_IMPORT_BUNDLE",
      message: "import bundle is signed by another key",
    });
    expect((await inject(await seal(own), "user-2")).error?.message).toBe(
      "import bundle is for another user",
    );
    // A minute past its end: the frame's clock may lag the test's by the seconds a loaded machine takes
    // between setting the page's clock and making the frame (CI saw a bundle 1 ms past its end accepted).
    expect(
      (await inject(await seal({ ...own, expiresAtMs: Date.now() + clock.offset - 60_000 }))).error?.message,
    ).toBe("import bundle has expired");
    const probe = page.frameLocator("#probe-import");
    await probe.getByText("The import could not be verified.").waitFor();
    expect(await probe.getByTestId("import-secret").count()).toBe(0);
    // The service's own key for this user: the field shows, and what is typed comes back sealed only.
    expect(await inject(await seal(own))).toMatchObject({ result: { kind: "solana_private_key" } });
    const seed = crypto.getRandomValues(new Uint8Array(32));
    const secretKey = base58.encode(new Uint8Array([...seed, ...ed25519.getPublicKey(seed)]));
    await probe.getByTestId("import-secret").fill(secretKey);
    const extracted = (await page.evaluate(() =>
      (window as unknown as { __call(m: string): Promise<unknown> }).__call("extractEncryptedBundle"),
    )) as { result: { encryptedBundle: string; kind: string } };
    expect(extracted.result.kind).toBe("solana_private_key");
    expect(Object.keys(JSON.parse(extracted.result.encryptedBundle)).sort()).toEqual([
      "ciphertext",
      "encappedPublic",
      "targetPublic",
    ]);
    expect(extracted.result.encryptedBundle).not.toContain(secretKey);
    expect(await probe.getByTestId("import-secret").inputValue()).toBe("");
    await page.close();
  }, 60_000);
});
