import type { BrowserContext, Page } from "playwright-core";
import { type Hex, recoverTransactionAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, signUpInDemo, startStack } from "./helpers/stack";

// The demo's "Signing policy" card against the real service, whose dev app refuses transactions to the
// burn address (packages/server/src/dev/devSigningPolicy.ts): what a person sees when a policy stops one.
// The demo asks before every signature (`ui.confirmTransactions`): each is confirmed in the modal first.
let s: Stack;
let context: BrowserContext;
let page: Page;
beforeAll(async () => {
  s = await startStack("demo");
  context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(8000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.goto(`${s.hostOrigin}/`);
  await page.getByRole("button", { name: "Sign in" }).first().waitFor();
  await page.waitForFunction(() => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"));
}, 120_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
});

/** Confirms the signature the modal's confirmation step shows. */
async function confirmInModal(): Promise<void> {
  const dialog = page.getByRole("dialog");
  await dialog.getByRole("heading", { name: "Review the request" }).waitFor();
  await dialog.getByRole("button", { name: "Confirm" }).click();
  await dialog.waitFor({ state: "detached" });
}

describe("signing policy in the demo", () => {
  it("signs a transfer the policy allows, and shows the refusal of one it stops", async () => {
    await signUpInDemo(s, page, "policy@example.com");
    const address = (await page.getByTestId("evm-address").textContent()) as Hex;
    const card = page.getByTestId("policy-card");
    await card.scrollIntoViewIfNeeded();

    await card.getByRole("button", { name: "Sign 0.01 ETH to a friend" }).click();
    await confirmInModal();
    const result = card.getByTestId("policy-result");
    await expect.poll(() => result.textContent()).toContain("✓ Signed: the transfer to a friend is allowed.");
    const signed = (await result.locator("pre").textContent()) as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(address);

    await card.getByRole("button", { name: "Sign 0.01 ETH to the burn address" }).click();
    await confirmInModal();
    const alert = card.getByRole("alert");
    await alert.waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered, line break included
    expect(await alert.innerText()).toBe(
      [
        "✗ Stopped by the signing policy: the transfer to the burn address was not signed.",
        'Refused by signing policy rule "dev-no-burn": the dev app\'s policy sends nothing to the burn address',
      ].join("\n"),
    );
    expect(await alert.isVisible()).toBe(true);
    expect(await card.locator("pre").count()).toBe(0);
    await alert.scrollIntoViewIfNeeded();
    await shot(page, "policy-01-refused");

    // The service recorded it REJECTED, and signed nothing.
    const rows = await s.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result", "failure"])
      .where("type", "=", "ACTIVITY_TYPE_SIGN_TRANSACTION_V2")
      .execute();
    expect(rows.map((r) => r.status).sort()).toEqual([
      "ACTIVITY_STATUS_COMPLETED",
      "ACTIVITY_STATUS_REJECTED",
    ]);
    const refused = rows.find((r) => r.status === "ACTIVITY_STATUS_REJECTED");
    expect([refused?.result, JSON.parse(refused?.failure ?? "{}").code]).toEqual(["{}", "POLICY_DENIED"]);
  });
});
