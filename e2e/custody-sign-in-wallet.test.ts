import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, signInOnHost, signOnHostAs, startStack } from "./helpers/stack";

// Split custody (docs/split-custody.md §3), in Chromium against the real service: a new user's wallet is
// made in the auth frame and carried by the code's sign-in (`/v1/otp`'s `splitWallet`, both shares sealed
// in the frame to the share key for that sign-in), so a sign-up is the same two requests as in a service
// app, and no create_split_wallet follows. The host page carries the sealed shares without reading them;
// the frame keeps the user share once the service answered that wallet, and it signs, also after a reload.
let s: Stack;
let context: BrowserContext | undefined;
beforeAll(async () => {
  s = await startStack("host", { hostName: "localhost", devCustody: "split" });
}, 120_000);
afterAll(async () => {
  await context?.close().catch(() => {});
  await s?.close();
});

describe("a split wallet carried by the code's sign-in, in the modal", () => {
  it("signs up with the wallet in the code's request (no create_split_wallet), then signs, and again after a reload", async () => {
    context = await s.browser.newContext({ viewport: { width: 900, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const sent: { path: string; body: string }[] = [];
    page.on("request", (r) => {
      const url = new URL(r.url());
      if (url.origin === new URL(s.serviceUrl).origin && r.method() === "POST") {
        sent.push({ path: url.pathname, body: r.postData() ?? "" });
      }
    });
    await page.goto(`${s.hostOrigin}/`);
    const status = page.getByTestId("status");
    await status.filter({ hasNotText: "INITIALIZING" }).waitFor();

    const email = "split-sign-in-wallet@example.com";
    await signInOnHost(s, page, email);
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Protect your wallet" }).waitFor();
    await dialog.getByRole("button", { name: "Not now" }).click();
    await dialog.getByRole("heading", { name: "Your wallet is on this device only" }).waitFor();
    await dialog.getByRole("button", { name: "I understand, continue" }).click();
    await dialog.waitFor({ state: "detached" });
    await status.filter({ hasText: "CONNECTED" }).waitFor();
    const address = (await page.getByTestId("address").textContent()) as string;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    // The code's request carried the wallet: sealed shares (opaque to the page) and the public accounts.
    const otps = sent.filter((r) => r.path === "/signer/v1/otp");
    expect(otps).toHaveLength(1);
    const otp = JSON.parse(otps[0]?.body ?? "{}") as {
      splitWallet?: { sealed: string; accounts: { address: string; addressFormat: string }[] };
    };
    expect(otp.splitWallet?.sealed).toMatch(/^[A-Za-z0-9_-]{160,}$/);
    expect(otp.splitWallet?.accounts.map((a) => a.addressFormat)).toEqual([
      "ADDRESS_FORMAT_ETHEREUM",
      "ADDRESS_FORMAT_SOLANA",
    ]);
    expect(otp.splitWallet?.accounts[0]?.address).toBe(address);
    expect(sent.map((r) => r.path)).not.toContain("/signer/v1/create-split-wallet");

    // The service holds the wallet split: no phrase, no key, only its share sealed.
    const db = s.service.ctx.db;
    const user = await db
      .selectFrom("users")
      .select("org_id")
      .where("email", "=", email)
      .executeTakeFirstOrThrow();
    const wallets = await db
      .selectFrom("wallets")
      .select(["custody", "sealed_mnemonic", "sealed_service_share"])
      .where("org_id", "=", user.org_id)
      .execute();
    expect(wallets).toEqual([
      { custody: "split", sealed_mnemonic: "", sealed_service_share: expect.any(String) },
    ]);
    const kinds = await db
      .selectFrom("activities")
      .select("type")
      .where("org_id", "=", user.org_id)
      .execute();
    expect(kinds.map((k) => k.type)).not.toContain("ACTIVITY_TYPE_CREATE_SPLIT_WALLET");

    // The frame kept the share: it signs now, and after a reload.
    await signOnHostAs(page, address);
    await page.reload();
    await status.filter({ hasText: "CONNECTED" }).waitFor();
    expect(await page.getByTestId("address").textContent()).toBe(address);
    await signOnHostAs(page, address);
  });
});
