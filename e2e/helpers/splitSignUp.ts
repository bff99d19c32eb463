import type { Page } from "playwright-core";
import { expect } from "vitest";
import { type Stack, typeOtp } from "./stack";

/**
 * Signs a new user of the demo up by email code and leaves the steps a split wallet's sign-up offers
 * (protect: Not now, then "I understand, continue"; passkey: Skip), until the wallet's address shows.
 */
export async function signUpSplit(
  s: Pick<Stack, "mailCount" | "otpCode">,
  page: Page,
  email: string,
): Promise<void> {
  await page.locator(".nav").getByRole("button", { name: "Sign in" }).click();
  await page.getByPlaceholder("Email").fill(email);
  const sent = s.mailCount(email);
  await page.getByRole("dialog").getByRole("button", { name: "Continue", exact: true }).click();
  await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
  await typeOtp(page, await s.otpCode(email, sent));
  const modal = page.locator(".lk-card[role=dialog]");
  for (;;) {
    const protect = modal.getByRole("heading", { name: "Protect your wallet" });
    const passkey = modal.getByRole("heading", { name: "Add a passkey" });
    await expect
      .poll(
        async () => (await protect.count()) + (await passkey.count()) > 0 || (await modal.count()) === 0,
        {
          timeout: 60_000,
        },
      )
      .toBe(true);
    if ((await modal.count()) === 0) break;
    if ((await protect.count()) > 0) {
      await modal.getByRole("button", { name: "Not now" }).click();
      await modal.getByRole("button", { name: "I understand, continue" }).click();
    } else await modal.getByRole("button", { name: "Skip" }).click();
  }
  await page.getByTestId("evm-address").waitFor();
}
