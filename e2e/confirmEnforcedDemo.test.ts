import { getAddress, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counterAbi } from "../test-support/chain";
import { type Stack, shot, signUpInDemo, startStack } from "./helpers/stack";

// Enforced confirmations (issue 46) with the demo's smart account on the dev chain: the dev app requires
// every signature to be confirmed in the auth frame, so a sponsored user operation is drawn by the frame
// (the modal's own step, on in the demo, steps aside: the user reviews once). Cancel sends nothing;
// Confirm sends it and the counter moves.
let s: Stack;
beforeAll(async () => {
  s = await startStack("demo", { chain: true });
  const row = await s.service.ctx.db
    .selectFrom("apps")
    .select("signing_policy")
    .where("id", "=", "dev")
    .executeTakeFirstOrThrow();
  const policy = { ...JSON.parse(row.signing_policy ?? "{}"), confirmation: { required: true } };
  await s.service.ctx.db
    .updateTable("apps")
    .set({ signing_policy: JSON.stringify(policy) })
    .where("id", "=", "dev")
    .execute();
  s.service.ctx.apps.invalidate();
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const counter = () => {
  const chain = s.chain as NonNullable<Stack["chain"]>;
  return chain.publicClient.readContract({ address: chain.counter, abi: counterAbi, functionName: "number" });
};

describe("a user operation under enforced confirmations", () => {
  it("is drawn by the frame, not the modal; Cancel sends nothing, Confirm sends it", async () => {
    const chain = s.chain as NonNullable<Stack["chain"]>;
    const context = await s.browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    try {
      await page.goto(`${s.hostOrigin}/`);
      await page.waitForFunction(
        () => !document.querySelector(".nav button.primary")?.hasAttribute("disabled"),
      );
      await signUpInDemo(s, page, "enforced-demo@example.com");
      const addressCell = page.getByTestId("smart-account-address");
      await expect.poll(() => addressCell.textContent()).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const before = await counter();
      const frame = page.frameLocator("#latchkey-signer-iframe");
      const callLine = `A call to ${getAddress(chain.counter).slice(0, 6)}…${getAddress(chain.counter).slice(-4)} (function 0xd09de08a)`;

      await page.getByRole("button", { name: "Increment (sponsored)" }).click();
      await frame.getByRole("heading", { name: "Review the request" }).waitFor();
      await frame.getByText(`Smart account operation on chain ${chain.chainId}`).waitFor();
      expect(await frame.locator(".lk-lines li").allTextContents()).toEqual([callLine]);
      // The modal did not ask first.
      expect(await page.getByRole("dialog").count()).toBe(0);
      await shot(page, "confirm-enforced-10-user-operation");
      // Chromium drops clicks on a frame that has just moved on screen (clickjacking protection); the
      // frame's Confirm waits longer still, so once it is enabled the dialog takes clicks.
      await expect.poll(() => frame.getByRole("button", { name: "Confirm" }).isEnabled()).toBe(true);
      await frame.getByRole("button", { name: "Cancel" }).click();
      await expect
        .poll(() => page.getByTestId("user-operation-error").textContent())
        .toBe("The user operation could not be sent: User rejected the request.");
      expect(await counter()).toBe(before);

      await page.getByRole("button", { name: "Increment (sponsored)" }).click();
      await frame.getByRole("heading", { name: "Review the request" }).waitFor();
      const confirm = frame.getByRole("button", { name: "Confirm" });
      await expect.poll(() => confirm.isEnabled()).toBe(true);
      await confirm.click();
      await page.getByTestId("user-operation-result").waitFor();
      const txHash = (await page.getByTestId("transaction-hash").textContent()) as Hex;
      expect((await chain.publicClient.getTransactionReceipt({ hash: txHash })).status).toBe("success");
      expect(await counter()).toBe(before + 1n);
    } finally {
      await context.close();
    }
  });
});
