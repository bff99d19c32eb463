import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createMemoryKeyHolder,
  createMemoryStorage,
  createSigner,
  type Signer,
  sendUserOperation,
  toViemAccount,
  waitForUserOperationTransaction,
} from "@latchkey/core";
import type { AppConfig } from "@latchkey/server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { encodeFunctionData, type Hex, parseEther, recoverTransactionAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addVirtualAuthenticator } from "../packages/core/test/browser/virtualAuthenticator";
import {
  createEnrolmentLink,
  enrolmentUrl,
} from "../packages/server/src/features/admin/console/consoleAdmins";
import { type ChainStack, counterAbi, smartAccountChainOf } from "../test-support/chain";
import { sharedChainStack } from "../test-support/chain/shared";
import { sharedChromium } from "../test-support/chromium";
import { devMailbox, startTestService, type TestService } from "../test-support/service";
import { submitHeldTransfer } from "./helpers/heldTransfer";
import { shot } from "./helpers/stack";

// The admin console (/admin) in Chromium against the real service and a real local chain: an admin enrols
// a passkey from a one-time link (CDP virtual authenticator), signs in, watches the spend chart move after
// a user's sponsored operation, approves a held signature (it is signed), finds the user by email and
// revokes their sessions (the user's next signature fails). The page runs under its strict CSP: the test
// fails on any violation.
const API_KEY = "lk_console_e2e_key_0123456789abc";
const POLICY = "pol_shop";
const FRIEND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const USER_EMAIL = "customer@example.com";

let chain: ChainStack;
let svc: TestService;
let dir: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let user: Signer;
let consoleUrl: string;

const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "latchkey-console-"));
  [chain, browser] = await Promise.all([sharedChainStack(), sharedChromium()]);
  const shop = {
    id: "shop",
    name: "Shop",
    apiKeys: [API_KEY],
    allowedOrigins: ["http://shop.test"],
    sponsorship: { policies: [{ id: POLICY, chainId: chain.chainId }] },
    signingPolicy: {
      rules: [{ id: "large", effect: "needs_approval", valueAboveWei: parseEther("1").toString() }],
      // No admin keys: the console's admins approve what the policy holds.
      rawPayloads: "allow",
    },
  } satisfies AppConfig;
  svc = await startTestService({
    db: join(dir, "latchkey.db"),
    dataDir: dir,
    dev: true,
    apps: [shop],
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, paymaster: chain.paymaster }],
  });
  await chain.addPaymasterSigner(await svc.service.paymasterSignerAddress());
  // The console on http://localhost:PORT: a secure context whose host is a WebAuthn relying party.
  consoleUrl = svc.url.replace("127.0.0.1", "localhost");

  // A customer of the shop, signed in by email code from Node (core, in-memory keys).
  user = createSigner({
    baseUrl: svc.url,
    apiKey: API_KEY,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
    chains: [smartAccountChainOf(chain, { policyId: POLICY })],
    smartAccount: { kind: "4337" },
  });
  const mailbox = devMailbox(svc.service);
  await user.authenticate({ type: "email", email: USER_EMAIL, emailMode: "otp" });
  await user.authenticate({ type: "otp", otpCode: await mailbox.otpCode(USER_EMAIL) });

  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await addVirtualAuthenticator(context, page);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await svc?.close();
  await chain?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page of the console's side navigation. */
const nav = (name: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

/** The shop's EVM spend today as the chart's data table shows it (null: no such policy in the chart). */
async function chartSpendToday(): Promise<string | null> {
  const cell = page
    .getByTestId("chart-spend-evm")
    .locator(`tr[data-day="${today()}"] td[data-series="${POLICY}"]`);
  return (await cell.count()) ? await cell.textContent() : null;
}

describe("the admin console", () => {
  it("enrols a passkey from a link, signs in, sees spend move, approves a held signature, revokes a user's sessions", async () => {
    // 1. The link `latchkey admin create` prints; opened, it enrols a passkey; the passkey signs in.
    const link = await createEnrolmentLink(
      { db: svc.service.ctx.db, now: Date.now() },
      { appId: "shop", name: "ada" },
    );
    await page.goto(enrolmentUrl(consoleUrl, link.token));
    await page.getByText("As ada, admin of Shop (shop).").waitFor();
    expect(new URL(page.url()).hash).toBe(""); // the token left the address bar
    await page.getByRole("button", { name: "Create a passkey" }).click();
    await page.getByText("Your passkey is enrolled. Sign in with it.").waitFor();
    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByText("Signed in as ada").waitFor();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    // uPlot draws the chart once the day's numbers have come (after the heading).
    await page.getByTestId("chart-signups").locator("canvas").first().waitFor();
    expect(await page.getByTestId("chart-signups").locator("canvas").count()).toBeGreaterThan(0);

    // 2. The spend chart moves after a sponsored operation, by what the service recorded for it.
    await page.getByTestId("chart-spend-evm").waitFor();
    const before = await chartSpendToday();
    const { hash } = await sendUserOperation(user, {
      uo: { target: chain.counter, data: encodeFunctionData({ abi: counterAbi, functionName: "increment" }) },
    });
    await waitForUserOperationTransaction(user, { hash });
    const rows = await svc.service.ctx.db
      .selectFrom("sponsorship_spend")
      .select("wei")
      .where("app_id", "=", "shop")
      .where("policy_id", "=", POLICY)
      .where("day", "=", today())
      .execute();
    expect(rows).toHaveLength(1);
    const spent = rows.reduce((s, r) => s + BigInt(r.wei), 0n);
    expect(spent).toBeGreaterThan(0n);
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect.poll(chartSpendToday).toBe(`${spent} wei`);
    expect(before).not.toBe(`${spent} wei`);
    await shot(page, "console-01-overview");

    // 3. A held signature, approved in the queue: it is signed, by the user's key.
    const activityId = await submitHeldTransfer(user, svc.url, FRIEND);
    await nav("Approvals").click();
    const row = page.locator(`tr[data-activity-id="${activityId}"]`);
    await row.getByRole("button", { name: "Approve" }).click();
    await row.getByRole("button", { name: "Approve and sign" }).click();
    await page.getByText(`Activity ${activityId}: COMPLETED`).waitFor();
    const decided = await svc.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result"])
      .where("id", "=", activityId)
      .executeTakeFirstOrThrow();
    expect(decided.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const signed = (JSON.parse(decided.result) as { signTransactionResult: { signedTransaction: Hex } })
      .signTransactionResult.signedTransaction;
    const address = (user.getState().user as { address: Hex }).address;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(address);
    await page.getByText("Nothing waits for approval.").waitFor();

    // 4. The user, found by email; their sessions revoked: their next signature fails.
    const account = toViemAccount(user);
    await account.signMessage({ message: "before" });
    await nav("Users").click();
    await page.getByLabel("Search users").fill(USER_EMAIL.toUpperCase());
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("link", { name: USER_EMAIL }).click();
    await page.getByRole("heading", { name: USER_EMAIL }).waitFor();
    await expect.poll(() => page.getByTestId("wallet-address").first().textContent()).toBe(address);
    await page.getByRole("button", { name: "Revoke all sessions" }).click();
    await page.getByRole("button", { name: /^Revoke \d+ sessions?$/ }).click();
    await page.getByText(/^Revoked \d+ sessions?: the next signature with any of them fails\.$/).waitFor();
    await page.getByText("No live session.").waitFor();
    await shot(page, "console-02-user");
    await expect(account.signMessage({ message: "after" })).rejects.toThrow();

    // The other pages: activities (filtered), the security log (the revocation is in it), the webhook log,
    // the app's configuration; then signing out ends the session on the service.
    await nav("Activities").click();
    await page.getByLabel("Status").selectOption("ACTIVITY_STATUS_COMPLETED");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect
      .poll(() => page.getByRole("table", { name: "Activities" }).locator("tbody tr").count())
      .toBeGreaterThan(1);
    expect(page.url()).toMatch(/\/admin\/activities\?status=ACTIVITY_STATUS_COMPLETED$/);
    await nav("Security log").click();
    await page.getByRole("cell", { name: "admin.sessions_revoked" }).first().waitFor();
    // Each signature made is there with what it does (signing.completed: the decoded summary's lines).
    await page.getByRole("cell", { name: "signing.completed" }).first().waitFor();
    expect(
      (await page.getByRole("list", { name: "What was signed" }).first().locator("li").allTextContents())
        .length,
    ).toBeGreaterThan(0);
    await nav("Webhooks").click();
    await page.getByText("No delivery matches.").waitFor();
    await nav("App and policies").click();
    await expect.poll(() => page.getByTestId("signing-policy").textContent()).toContain('"needs_approval"');
    expect(await page.getByTestId("sponsorship-policies").textContent()).toContain(POLICY);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByText("Signed out.").waitFor();
    const sessions = await svc.service.ctx.db.selectFrom("console_sessions").select("revoked_at").execute();
    expect(sessions.map((s) => s.revoked_at !== null)).toEqual([true]);

    // The whole visit ran under the page's CSP without a single violation.
    expect(
      await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
    ).toEqual([]);
  });
});
