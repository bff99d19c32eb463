import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import type { BrowserContext, Page } from "playwright-core";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, signInOnHost, signOnHostAs, startStack } from "./helpers/stack";

// Moving a whole wallet to split custody in the modal (docs/split-custody.md §3.1), in Chromium against
// the real service: a user of the dev app signs up while the app keeps wallets whole; the operator moves
// the app to split; at the next sign-in the auth frame splits the wallet before the app sees connected
// (same address), the modal offers "Protect your wallet", signatures carry the frame's share, and the
// export frame shows the same phrase from both shares.
let s: Stack;
const contexts: BrowserContext[] = [];
beforeAll(async () => {
  s = await startStack("host", { hostName: "localhost", devCustody: "service" });
}, 120_000);
afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => {});
  await s?.close();
});

const dialog = (page: Page) => page.getByRole("dialog");
const status = (page: Page) => page.getByTestId("status");

async function openTab(): Promise<Page> {
  const context = await s.browser.newContext({ viewport: { width: 900, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/`);
  await status(page).filter({ hasNotText: "INITIALIZING" }).waitFor();
  return page;
}

describe("a whole wallet moved to split custody, in the modal", () => {
  const email = "moving-e2e@example.com";

  it("the next sign-in after the app moves to split splits the wallet, offers protection, signs and exports the same phrase", async () => {
    // Signed up while the app keeps wallets whole (the service makes the wallet).
    const signup = await fetch(`${s.serviceUrl}/signer/v1/signup`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${s.devApiKey}` },
      body: JSON.stringify({
        email,
        targetPublicKey: toHex(p256PublicKeyFromPrivate(generateP256PrivateKey(), false)),
      }),
    });
    const made = (await signup.json()) as { address: string; orgId: string };
    expect(signup.status, JSON.stringify(made)).toBe(200);
    expect(made.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    // The operator moves the app to split (config `custody: "split"`, applied at the service's start).
    await s.service.ctx.db.updateTable("apps").set({ custody: "split" }).execute();
    s.service.ctx.apps.invalidate();

    const page = await openTab();
    await signInOnHost(s, page, email);
    await dialog(page).getByRole("heading", { name: "Protect your wallet" }).waitFor();
    await shot(page, "75-custody-converted-protect");
    const wallet = await s.service.ctx.db
      .selectFrom("wallets")
      .select(["custody", "sealed_mnemonic"])
      .where("org_id", "=", made.orgId)
      .executeTakeFirstOrThrow();
    expect(wallet).toEqual({ custody: "split", sealed_mnemonic: "" });

    await dialog(page).getByRole("button", { name: "Get a recovery code" }).click();
    await dialog(page).getByRole("heading", { name: "Save your recovery code" }).waitFor();
    await dialog(page).getByLabel("I saved my recovery code").check();
    await dialog(page).getByRole("button", { name: "Continue" }).click();
    await dialog(page).waitFor({ state: "detached" });
    expect(await status(page).textContent()).toBe("CONNECTED");
    expect(await page.getByTestId("address").textContent()).toBe(made.address);
    await signOnHostAs(page, made.address);

    await page.evaluate(async () => {
      const signer = (window as unknown as { lkSigner: { exportWallet(p: object): Promise<unknown> } })
        .lkSigner;
      await signer.exportWallet({ iframeContainer: document.body });
    });
    const frame = page.frameLocator("#latchkey-export-iframe");
    await frame.getByRole("heading", { name: "Your recovery phrase" }).waitFor();
    const words = await frame.getByTestId("export-word").allTextContents();
    expect(words).toHaveLength(12);
    expect(mnemonicToAccount(words.join(" ")).address).toBe(made.address);
  });
});
