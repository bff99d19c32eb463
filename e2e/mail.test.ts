/**
 * Mail as a person gets it: the service delivers through its SMTP client to a real SMTP server, and the
 * code and the link are read out of the delivered MIME message (quoted-printable, encoded subject), not
 * the dev mailbox, then used in Chromium.
 */
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { codeFrom, linkFrom, mailSubject, type Smtp, startSmtp } from "../packages/server/test/helpers";
import { type Stack, startStack, typeOtp } from "./helpers/stack";

let s: Stack;
let smtp: Smtp;
let context: BrowserContext;
beforeAll(async () => {
  smtp = await startSmtp();
  s = await startStack("host", { smtpUrl: smtp.url });
  context = await s.browser.newContext();
}, 120_000);
afterAll(async () => {
  await context?.close();
  await s?.close();
  await smtp?.close();
});

async function open(extra = ""): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${s.hostOrigin}/?ui=%7B%7D${extra}`);
  await page.getByTestId("status").filter({ hasNotText: "INITIALIZING" }).waitFor();
  await page.getByRole("button", { name: "Open sign-in" }).click();
  await page.getByRole("dialog").waitFor();
  return page;
}

async function submitEmail(page: Page, email: string) {
  await page.getByRole("textbox").fill(email);
  const submit = page.getByRole("dialog").getByRole("button", { name: "Continue", exact: true });
  await expect.poll(() => submit.isEnabled()).toBe(true);
  await submit.click();
}

describe("mail over SMTP", () => {
  it("the code in the delivered mail signs a new user in", async () => {
    const email = "smtp-code@example.com";
    const before = smtp.mails.length;
    const page = await open();
    await submitEmail(page, email);
    await page.getByRole("heading", { name: "Enter verification code" }).waitFor();
    const raw = (await smtp.waitFor(email, before)).raw;
    const code = codeFrom(raw);
    expect(mailSubject(raw)).toContain(code);
    expect(raw).toMatch(/^To: smtp-code@example\.com\r$/m);
    await typeOtp(page, code);
    await page
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await page.close();
  });

  it("the link in the delivered mail signs the user in (magic-link app)", async () => {
    const email = "smtp-link@example.com";
    const before = smtp.mails.length;
    const page = await open("&app=ml");
    await submitEmail(page, email);
    await page.getByRole("dialog").getByRole("heading", { name: "Check your email" }).waitFor();
    const link = linkFrom((await smtp.waitFor(email, before)).raw);
    expect(link.origin).toBe(s.hostOrigin);
    const landing = await context.newPage();
    await landing.goto(link.toString());
    await landing
      .getByTestId("status")
      .filter({ hasText: /^CONNECTED$/ })
      .waitFor();
    await landing.close();
    await page.close();
  });
});
