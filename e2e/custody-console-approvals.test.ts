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

// A held signature of a split-custody wallet in the console (docs/split-custody.md §7): the admin's
// approval signs nothing (the service holds no share of the user's), the row then reads "Approved by …,
// waiting for the user's device until …" instead of the Approve button, and the user's device completes
// the signature with its share; the row is then gone and the transaction is signed by the user's address.
const API_KEY = "lk_console_split_approvals_e2e_01";
const FRIEND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const USER_EMAIL = "split-buyer@example.com";

let svc: TestService;
let dir: string;
let browser: Browser;
let user: Signer;
let consoleUrl: string;
let context: BrowserContext | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "latchkey-split-approvals-"));
  browser = await sharedChromium();
  const shop = {
    id: "split-shop",
    name: "Split Shop",
    apiKeys: [API_KEY],
    allowedOrigins: ["http://shop.test"],
    custody: "split",
    signingPolicy: {
      rules: [
        {
          id: "large",
          effect: "needs_approval",
          valueAboveWei: parseEther("1").toString(),
          description: "More than 1 ETH needs an admin",
        },
      ],
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
  await context?.close();
  await browser?.close();
  await svc?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** An admin of the shop, enrolled from their link with a passkey and signed in, on the Approvals page. */
async function signedInAdmin(name: string): Promise<Page> {
  context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (e) => console.error("pageerror", e.message));
  await addVirtualAuthenticator(context, page);
  const link = await createEnrolmentLink(
    { db: svc.service.ctx.db, now: Date.now() },
    { appId: "split-shop", name },
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

const rowOf = async (id: string) =>
  svc.service.ctx.db
    .selectFrom("activities")
    .select(["status", "result"])
    .where("id", "=", id)
    .executeTakeFirstOrThrow();

describe("the console's Approvals page, split custody", () => {
  it("an approval signs nothing and says the user's device completes it; the device then does", async () => {
    expect(user.getState().user).toMatchObject({ custody: "split" });
    const ada = await signedInAdmin("ada");
    const id = await submitHeldTransfer(user, svc.url, FRIEND);

    await ada.reload();
    const row = ada.locator(`tr[data-activity-id="${id}"]`);
    await row.waitFor();
    await row.getByRole("button", { name: "Approve" }).click();
    await row.getByRole("button", { name: "Approve and sign" }).click();
    await ada
      .getByText(`Activity ${id}: approved. The user's device completes the signature (split custody).`)
      .waitFor();
    // Nothing signed: the service has no share of the user's to sign with.
    expect(await rowOf(id)).toMatchObject({ status: "ACTIVITY_STATUS_CONSENSUS_NEEDED", result: "{}" });

    const waiting = row.getByText(/^Approved by ada, waiting for the user's device until .+/);
    await waiting.waitFor();
    expect(await row.getByRole("button", { name: "Approve" }).count()).toBe(0);
    const until = Number(await row.locator("[data-approved-until]").getAttribute("data-approved-until"));
    // The approval lasts 24 hours from now.
    expect(Math.abs(until - (Date.now() + 24 * 3600_000))).toBeLessThan(5 * 60_000);
    await shot(ada, "console-approvals-split-waiting");

    // The user's device completes it with its share: the user's own signature.
    const [completed, ...others] = await user.completeApprovedActivities();
    expect(others).toEqual([]);
    expect(completed?.activity.id).toBe(id);
    const signed = completed?.signedTransaction as Hex;
    const address = (user.getState().user as { address: Hex }).address;
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(address);
    expect((await rowOf(id)).status).toBe("ACTIVITY_STATUS_COMPLETED");

    await ada.reload();
    await ada.getByText("Nothing waits for approval.").waitFor();
  });
});
