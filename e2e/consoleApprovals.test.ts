import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryKeyHolder, createMemoryStorage, createSigner, type Signer } from "@latchkey/core";
import type { AppConfig } from "@latchkey/server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { type Hex, parseEther, recoverTransactionAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addVirtualAuthenticator } from "../packages/core/test/browser/virtualAuthenticator";
import {
  createEnrolmentLink,
  enrolmentUrl,
} from "../packages/server/src/features/admin/console/consoleAdmins";
import { sharedChromium } from "../test-support/chromium";
import { devMailbox, startTestService, type TestService } from "../test-support/service";
import { submitHeldTransfer } from "./helpers/heldTransfer";
import { shot } from "./helpers/stack";

// The approver sees what they approve, and never alone (issue 46): the shop's policy holds a transfer
// above 1 ETH for two admins (`approvals: { required: 2 }`). On the console's Approvals page the held
// transfer shows its decoded summary, why there is no simulation, the rule that held it and "0 of 2
// approvals"; the first admin's approval signs nothing ("1 of 2"), the second one's signs it, with the
// user's key.
const API_KEY = "lk_console_approvals_e2e_0123";
const FRIEND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const USER_EMAIL = "buyer@example.com";

let svc: TestService;
let dir: string;
let browser: Browser;
let user: Signer;
let consoleUrl: string;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "latchkey-approvals-"));
  browser = await sharedChromium();
  const shop = {
    id: "shop",
    name: "Shop",
    apiKeys: [API_KEY],
    allowedOrigins: ["http://shop.test"],
    signingPolicy: {
      rules: [
        {
          id: "large",
          effect: "needs_approval",
          valueAboveWei: parseEther("1").toString(),
          description: "More than 1 ETH needs two admins",
        },
      ],
      approvals: { required: 2 },
      rawPayloads: "allow",
    },
  } satisfies AppConfig;
  svc = await startTestService({ db: join(dir, "latchkey.db"), dataDir: dir, dev: true, apps: [shop] });
  consoleUrl = svc.url.replace("127.0.0.1", "localhost");
  user = createSigner({
    baseUrl: svc.url,
    apiKey: API_KEY,
    keyHolder: createMemoryKeyHolder(),
    storage: createMemoryStorage(),
    window: null,
  });
  const mailbox = devMailbox(svc.service);
  await user.authenticate({ type: "email", email: USER_EMAIL, emailMode: "otp" });
  await user.authenticate({ type: "otp", otpCode: await mailbox.otpCode(USER_EMAIL) });
}, 120_000);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  await svc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An admin of the shop, enrolled from their link with a passkey and signed in, on the Approvals page. */
async function signedInAdmin(name: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await addVirtualAuthenticator(context, page);
  const link = await createEnrolmentLink(
    { db: svc.service.ctx.db, now: Date.now() },
    { appId: "shop", name },
  );
  await page.goto(enrolmentUrl(consoleUrl, link.token));
  await page.getByRole("button", { name: "Create a passkey" }).click();
  await page.getByText("Your passkey is enrolled. Sign in with it.").waitFor();
  await page.getByRole("button", { name: "Sign in with a passkey" }).click();
  await page.getByText(`Signed in as ${name}`).waitFor();
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Approvals" }).click();
  await page.getByRole("heading", { name: "Approvals" }).waitFor();
  return page;
}

const statusOf = async (id: string) =>
  (
    await svc.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow()
  ).status;

/** What the held activity's row says, block by block. */
const preview = (page: Page, id: string) =>
  page.locator(`tr[data-activity-id="${id}"]`).getByTestId("held-preview").locator("p, li").allTextContents();

describe("the console's Approvals page", () => {
  it("shows a held transfer's decoded summary and rule, and signs it only after two admins approve", async () => {
    const [ada, bob] = [await signedInAdmin("ada"), await signedInAdmin("bob")];
    const id = await submitHeldTransfer(user, svc.url, FRIEND);

    await ada.reload();
    await ada.locator(`tr[data-activity-id="${id}"]`).waitFor();
    expect(await preview(ada, id)).toEqual([
      "Transaction on Ethereum",
      "Send 2 ETH to 0x7099…79C8",
      "Simulation unavailable: no RPC is configured for this chain",
      "Held by rule large: More than 1 ETH needs two admins",
      "0 of 2 approvals",
    ]);
    await shot(ada, "console-approvals-01-held");

    const row = ada.locator(`tr[data-activity-id="${id}"]`);
    await row.getByRole("button", { name: "Approve" }).click();
    await row.getByRole("button", { name: "Approve and sign" }).click();
    await ada
      .getByText(`Activity ${id}: approved (1 of 2 approvals). It needs 1 more from another admin.`)
      .waitFor();
    expect(await statusOf(id)).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
    await expect.poll(() => preview(ada, id)).toContain("1 of 2 approvals (approved by ada)");

    await bob.reload();
    const bobRow = bob.locator(`tr[data-activity-id="${id}"]`);
    await expect.poll(() => preview(bob, id)).toContain("1 of 2 approvals (approved by ada)");
    await bobRow.getByRole("button", { name: "Approve" }).click();
    await bobRow.getByRole("button", { name: "Approve and sign" }).click();
    await bob.getByText(`Activity ${id}: COMPLETED`).waitFor();
    await bob.getByText("Nothing waits for approval.").waitFor();
    const decided = await svc.service.ctx.db
      .selectFrom("activities")
      .select(["status", "result"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(decided.status).toBe("ACTIVITY_STATUS_COMPLETED");
    const signed = (JSON.parse(decided.result) as { signTransactionResult: { signedTransaction: Hex } })
      .signTransactionResult.signedTransaction;
    const address = (user.getState().user as { address: Hex }).address;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(address);
  });
});
