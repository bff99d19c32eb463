import { readFileSync } from "node:fs";
import { BackendApiError, createBackendClient } from "@latchkey/backend";
import { STEP_UP_MAX_AGE_MS } from "@latchkey/protocol";
import { encodeFunctionData } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterAbi } from "../test-support/chain";
import { signUpSplit } from "./helpers/splitSignUp";
import { type Stack, shot, startStack, typeOtp } from "./helpers/stack";

// A permission grant made in the modal, then used by a backend: on the demo's account page the user grants
// "the demo's bot" (the modal's consent step lists exactly what is granted, and they allow it); a backend
// holding the dev app's server key then sends a sponsored user operation within the grant, which shows in
// the user's security activity; once the user revokes it, the backend is refused. Later than five minutes
// after the sign-in, Allow asks 'Confirm it's you' first (the service's clock and the page's are moved
// forward together, never waited). The dev app keeps wallets split, as `npm start` does: the auth frame
// hands the grant a copy of the user's share with the consent (the step says so), and revoking destroys it.
let s: Stack;
const clock = { offset: 0 };
beforeAll(async () => {
  s = await startStack("demo", { chain: true, now: () => Date.now() + clock.offset, devCustody: "split" });
}, 180_000);

/**
 * Signs up in the demo by email code, then leaves the steps a split wallet's sign-up offers (protecting
 * the wallet: "Not now", then "I understand, continue"; the passkey: "Skip"), whichever come.
 */
afterAll(async () => {
  await s?.close();
});

describe("demo: grant the demo's bot", () => {
  it("the consent step lists the grant; a backend then sends within it, until the user revokes it", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const context = await s.browser.newContext({ viewport: { width: 1200, height: 1000 } });
    // The page's clock runs as usual but can be moved forward with the service's.
    await context.clock.install();
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => console.error("pageerror", e.message));
    await page.goto(`${s.hostOrigin}/`);
    await page.waitForFunction(
      () => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"),
    );
    await signUpSplit(s, page, "bot-owner@example.com");

    const card = page.getByTestId("bot-grant");
    await card.getByRole("button", { name: "Grant the demo's bot" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("heading", { name: "Allow this app to act for you" }).waitFor();
    // Exactly what is granted, line by line.
    const lines = await dialog
      .locator(".lk-grant > div")
      .evaluateAll((rows) =>
        rows.map((r) => [r.querySelector("dt")?.textContent, r.querySelector("dd")?.textContent]),
      );
    const counter = chain.counter;
    expect(lines.slice(0, 5)).toEqual([
      ["Networks", `Chain ${chain.chainId}`],
      ["Contracts", `${counter.slice(0, 6)}…${counter.slice(-4)}`],
      ["Functions", "0xd09de08a"],
      ["Most per transaction", "None: it cannot move your coins"],
      ["Signatures", "10 at most"],
    ]);
    expect(lines[5]?.[0]).toBe("Until");
    await dialog.getByText("“The demo's bot: increments the counter for you”").waitFor();
    // A split wallet: the grant keeps a copy of the user's part, and the step says so.
    await dialog
      .getByText(
        "While this permission lasts, the service keeps a copy of your part of the wallet, so that the app's server can sign within these limits without you. When it ends or you revoke it, the copy is destroyed.",
      )
      .waitFor();
    await shot(page, "70-grant-consent");
    const mailsBefore = s.mailCount("bot-owner@example.com");
    await dialog.getByRole("button", { name: "Allow" }).click();
    await dialog.waitFor({ state: "detached" });
    const item = card.getByTestId("bot-grant-item");
    await item.waitFor();
    const grantId = (await item.getAttribute("data-grant-id")) as string;
    expect(grantId).toMatch(/^grant_/);
    const held = () =>
      s.service.ctx.db
        .selectFrom("grants")
        .select("sealed_user_share")
        .where("id", "=", grantId)
        .executeTakeFirstOrThrow();
    expect((await held()).sealed_user_share).toMatch(/^v1\./);
    // The account's email is told, as for an export or an import.
    const appName = s.service.devApp?.app.name as string;
    const notice = await s.mail("bot-owner@example.com", mailsBefore);
    expect(notice.subject).toBe(`You let ${appName} sign for you`);
    expect(notice.text).toContain(`You can see and revoke it on ${appName}'s account page.`);

    // The backend: the dev app's server key, from the service's data folder.
    const keyFile = s.service.devApp?.serverKeyFile as string;
    const backend = createBackendClient({
      url: s.serviceUrl,
      appId: "dev",
      serverKey: readFileSync(keyFile, "utf8"),
      now: () => Date.now() + clock.offset,
    });
    const [grant] = (await backend.listGrants()).filter((g) => g.grantId === grantId);
    expect(grant?.status).toBe("active");
    const userId = grant?.userId as string;
    const before = await chain.publicClient.readContract({
      address: counter,
      abi: counterAbi,
      functionName: "number",
    });
    const sent = await backend.sendUserOperation({
      userId,
      grantId,
      chainId: chain.chainId,
      calls: [{ to: counter, data: encodeFunctionData({ abi: counterAbi, functionName: "increment" }) }],
      policyId: `dev-${chain.chainId}`,
      waitForReceipt: true,
    });
    expect(sent.success).toBe(true);
    expect(
      await chain.publicClient.readContract({ address: counter, abi: counterAbi, functionName: "number" }),
    ).toBe(before + 1n);
    // Another function of the counter: not in the grant.
    await expect(
      backend.sendUserOperation({
        userId,
        grantId,
        chainId: chain.chainId,
        calls: [
          { to: counter, data: encodeFunctionData({ abi: counterAbi, functionName: "add", args: [5n] }) },
        ],
        policyId: `dev-${chain.chainId}`,
      }),
    ).rejects.toMatchObject({ code: "GRANT_DENIED" });

    // The user sees it: the grant's use, and the signature in their security activity.
    await item.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(() => item.getByTestId("bot-grant-used").textContent()).toBe("1 of 10 used");
    await page.reload();
    const audit = page.getByTestId("audit-trail");
    await audit.locator('[data-event="grant.used"]').first().waitFor();
    await audit.locator('[data-event="grant.created"]').waitFor();
    await shot(page, "71-grant-used");

    // Revoked: the backend is refused at once.
    await page.getByTestId("bot-grant-item").getByRole("button", { name: "Revoke" }).click();
    await card.getByRole("button", { name: "Grant the demo's bot" }).waitFor();
    const refused = await backend
      .sendUserOperation({
        userId,
        grantId,
        chainId: chain.chainId,
        calls: [{ to: counter, data: encodeFunctionData({ abi: counterAbi, functionName: "increment" }) }],
      })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BackendApiError);
    expect((refused as BackendApiError).code).toBe("GRANT_REVOKED");
    // And the copy of the user's share is gone.
    expect((await held()).sealed_user_share).toBeNull();

    // Six minutes later the sign-in is no longer fresh: Allow asks 'Confirm it's you', and a code makes it.
    clock.offset += STEP_UP_MAX_AGE_MS + 60_000;
    await page.clock.setSystemTime(Date.now() + clock.offset);
    await card.getByRole("button", { name: "Grant the demo's bot" }).click();
    await dialog.getByRole("button", { name: "Allow" }).click();
    await dialog.getByRole("heading", { name: "Confirm it's you" }).waitFor();
    await shot(page, "72-grant-step-up");
    const codesBefore = s.mailCount("bot-owner@example.com");
    await dialog.getByRole("button", { name: "Send a code to my email" }).click();
    await dialog.getByText("Code sent to bot-owner@example.com").waitFor();
    await typeOtp(page, await s.otpCode("bot-owner@example.com", codesBefore));
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => item.getAttribute("data-grant-id")).not.toBe(grantId);
    await item.getByRole("button", { name: "Revoke" }).click();
    await card.getByRole("button", { name: "Grant the demo's bot" }).waitFor();

    // Declined in the modal: nothing is granted.
    await card.getByRole("button", { name: "Grant the demo's bot" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Decline" }).click();
    await card.getByText("Not granted.").waitFor();
    expect((await backend.listGrants(userId, { status: "active" })).length).toBe(0);
    await context.close();
  }, 120_000);
});
