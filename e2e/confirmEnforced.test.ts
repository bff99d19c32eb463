import { base58 } from "@scure/base";
import {
  address,
  appendTransactionMessageInstructions,
  type Blockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
} from "@solana/kit";
import { getTransferSolInstruction } from "@solana-program/system";
import type { BrowserContext, FrameLocator, Page } from "playwright-core";
import { type Hex, keccak256, recoverAddress, recoverTransactionAddress, toHex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, shot, signInOnHost, startStack } from "./helpers/stack";

// Enforced confirmations (issue 46): the dev app's signing policy requires confirmation, so the service
// signs nothing unless the auth frame (a page of the service's origin) says the user confirmed that exact
// request there. A script in the host page holds the signer and its frame channel, yet cannot get a
// signature past the frame: every way it tries is refused and nothing is signed. The person sees the
// request drawn in the frame (a message, a bare digest with its warning, a Solana transfer); Cancel gives
// the app USER_REJECTED (4001 from the EIP-1193 provider), Confirm signs, and the signature verifies.
let s: Stack;
let context: BrowserContext;
let page: Page;
let frame: FrameLocator;
let userAddress: Hex;
let solanaAddress: string;

beforeAll(async () => {
  s = await startStack("host");
  // The operator turns enforcement on for the dev app (as its config would).
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
  context = await s.browser.newContext({ viewport: { width: 1100, height: 800 } });
  page = await context.newPage();
  page.setDefaultTimeout(8000);
  await page.goto(`${s.hostOrigin}/`);
  frame = page.frameLocator("#latchkey-signer-iframe");
}, 120_000);

/** The person signs in on the host page by email code (once, in the first test). */
async function signIn() {
  await signInOnHost(s, page, "enforced@example.com");
  await page.getByTestId("address").waitFor();
  userAddress = (await page.getByTestId("address").textContent()) as Hex;
  solanaAddress = await page.evaluate(() => window.lkSigner.store.getState().user?.solanaAddress ?? "");
}
afterAll(async () => {
  await context?.close();
  await s?.close();
});

/** Every signing activity the service recorded, by status. */
const signings = async () =>
  (
    await s.service.ctx.db
      .selectFrom("activities")
      .select(["status", "type"])
      .where("type", "in", [
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
        "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      ])
      .execute()
  ).map((r) => r.status);

describe("a script in the host page", () => {
  it("cannot get a signature past the frame", async () => {
    await signIn();
    const outcome = await page.evaluate(async () => {
      const signer = window.lkSigner;
      const user = signer.store.getState().user;
      if (!user) throw new Error("not signed in");
      const serviceUrl = window.LK_E2E.serviceUrl;
      const body = JSON.stringify({
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        timestampMs: String(Date.now()),
        organizationId: user.orgId,
        parameters: {
          signWith: user.address,
          payload: `0x${"ab".repeat(32)}`,
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        },
      });
      const send = async (headers: Record<string, string>) => {
        const r = await fetch(`${serviceUrl}/public/v1/submit/sign_raw_payload`, {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body,
        });
        return ((await r.json()) as { code?: string }).code ?? String(r.status);
      };
      // 1. The frame stamps the body (it stamps what the page asks), and the page sends it itself.
      const stamp = await signer.keyHolder.stamp(body);
      const bare = await send({ [stamp.stampHeaderName]: stamp.stampHeaderValue });
      // 2. A confirmation of its own making, with a key of its own.
      const own = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
      ])) as CryptoKeyPair;
      const sig = new Uint8Array(
        await crypto.subtle.sign(
          { name: "ECDSA", hash: "SHA-256" },
          own.privateKey,
          new TextEncoder().encode("anything"),
        ),
      );
      const forged = await send({
        [stamp.stampHeaderName]: stamp.stampHeaderValue,
        "X-Confirmation": `v1.${Date.now()}.${Array.from(sig, (b) => b.toString(16).padStart(2, "0")).join("")}`,
      });
      // 3. Registering its own key for the session: the frame will not stamp that body…
      const ownPublic = Array.from(new Uint8Array(await crypto.subtle.exportKey("raw", own.publicKey)), (b) =>
        b.toString(16).padStart(2, "0"),
      ).join("");
      const registration = JSON.stringify({
        type: "ACTIVITY_TYPE_REGISTER_CONFIRMATION_KEY",
        timestampMs: String(Date.now()),
        organizationId: user.orgId,
        publicKey: ownPublic,
      });
      const stampRegistration = await signer.keyHolder.stamp(registration).then(
        () => "stamped",
        (e: { code?: string; message?: string }) => e.message ?? "refused",
      );
      // …and the service takes a registration only from its own origin: the browser does not even send
      // one from the page (no CORS for it), and the service refuses any without `Sec-Fetch-Site:
      // same-origin` (packages/server/test/confirmation-enforced.test.ts).
      const register = await fetch(`${serviceUrl}/frames/v1/confirmation-key`, {
        method: "POST",
        headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body: registration,
      }).then(
        async (r) => ((await r.json().catch(() => ({}))) as { code?: string }).code ?? String(r.status),
        () => "blocked",
      );
      // 4. The app's own signing call: the service refuses, and the frame asks the user.
      return { bare, forged, stampRegistration, register };
    });
    expect(outcome).toEqual({
      bare: "CONFIRMATION_REQUIRED",
      forged: "CONFIRMATION_INVALID",
      stampRegistration: "a confirmation key is registered only by the frame itself",
      register: "blocked",
    });
    expect(await signings()).toEqual([]);
    // No session has a confirmation key yet: the page registered none.
    const keys = await s.service.ctx.db.selectFrom("api_keys").select("confirmation_key").execute();
    expect(keys.filter((k) => k.confirmation_key)).toEqual([]);
  });

  it("cannot click Confirm for a hidden frame: the frame keeps it off while it is not seen", async () => {
    const pending = page.evaluate(async () => {
      const signer = window.lkSigner;
      return window.lkCore.signRawMessage(signer, { message: `0x${"cd".repeat(32)}` }).then(
        () => "signed",
        (e: { code?: string }) => e.code ?? "error",
      );
    });
    await frame.getByRole("heading", { name: "Review the request" }).waitFor();
    // The script covers the frame with a page element of its own.
    await page.evaluate(() => {
      const cover = document.createElement("div");
      cover.id = "cover";
      cover.setAttribute(
        "style",
        "position:fixed;inset:0;z-index:2147483647;background:rgba(255,255,255,0.02);pointer-events:none",
      );
      document.body.append(cover);
    });
    await page.waitForTimeout(1200);
    expect(await frame.getByRole("button", { name: "Confirm" }).isDisabled()).toBe(true);
    await page.evaluate(() => document.getElementById("cover")?.remove());
    await expect.poll(() => frame.getByRole("button", { name: "Confirm" }).isEnabled()).toBe(true);
    await frame.getByRole("button", { name: "Cancel" }).click();
    expect(await pending).toBe("USER_REJECTED");
    expect(await signings()).toEqual([]);
  });
});

describe("the user confirms in the frame", () => {
  it("shows a message; Cancel refuses (USER_REJECTED, 4001) and Confirm signs what verifies", async () => {
    // The EIP-1193 provider's personal_sign: Cancel is 4001.
    const refused = page.evaluate(async (from) => {
      const provider = window.lkCore.createEip1193Provider(window.lkSigner);
      return provider.request({ method: "personal_sign", params: [toHexText("hello frame"), from] }).then(
        () => "signed",
        (e: { code?: number }) => e.code,
      );
      function toHexText(text: string): `0x${string}` {
        return `0x${Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("")}`;
      }
    }, userAddress);
    await frame.getByRole("heading", { name: "Review the request" }).waitFor();
    await frame.getByText("hello frame").first().waitFor();
    await frame.getByText(`Asked by ${s.hostOrigin}`).waitFor();
    await shot(page, "confirm-enforced-01-message");
    // Chromium drops clicks on a frame that has just moved on screen (clickjacking protection); the
    // frame's Confirm waits longer still, so once it is enabled the dialog takes clicks.
    await expect.poll(() => frame.getByRole("button", { name: "Confirm" }).isEnabled()).toBe(true);
    await frame.getByRole("button", { name: "Cancel" }).click();
    expect(await refused).toBe(4001);
    expect(await signings()).toEqual([]);

    // The host page's own Sign button: Confirm in the frame, and the signature verifies.
    await page.getByRole("button", { name: "Sign", exact: true }).click();
    await frame.getByRole("heading", { name: "Review the request" }).waitFor();
    await frame.getByText("e2e").first().waitFor();
    const confirm = frame.getByRole("button", { name: "Confirm" });
    await expect.poll(() => confirm.isEnabled()).toBe(true);
    await confirm.click();
    const out = page.getByTestId("signature");
    await out.filter({ hasText: "0x" }).waitFor();
    const signature = (await out.textContent()) as Hex;
    expect(await verifyMessage({ address: userAddress, message: "e2e", signature })).toBe(true);
    expect(await signings()).toEqual(["ACTIVITY_STATUS_COMPLETED"]);
    // The frame is out of the way again.
    expect(await page.locator("#latchkey-signer-iframe").isVisible()).toBe(false);
  });

  it("warns that a bare digest is an opaque hash, and signs it once confirmed", async () => {
    const hash = keccak256(toHex("an opaque digest"));
    const signed = page.evaluate(
      (message) =>
        window.lkCore.signRawMessage(window.lkSigner, { message: message as `0x${string}` }).then(
          (sig) => sig,
          (e: { code?: string }) => `error ${e.code}`,
        ),
      hash,
    );
    await frame.getByRole("heading", { name: "Review the request" }).waitFor();
    expect(await frame.getByRole("alert").first().textContent()).toBe(
      "You are signing an opaque hash: nobody can tell what it authorizes. Confirm only if you expected it from this app.",
    );
    await frame.getByText("Signs a hash whose content cannot be read").waitFor();
    await shot(page, "confirm-enforced-02-digest");
    const confirm = frame.getByRole("button", { name: "Confirm" });
    await expect.poll(() => confirm.isEnabled()).toBe(true);
    await confirm.click();
    const signature = (await signed) as Hex;
    expect(await recoverAddress({ hash, signature })).toBe(userAddress);
  });

  it("draws a Solana transfer, and signs it once confirmed", async () => {
    const me = createNoopSigner(address(solanaAddress));
    const bob = address(base58.encode(new Uint8Array(32).fill(3)));
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(me, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: base58.encode(new Uint8Array(32).fill(9)) as Blockhash, lastValidBlockHeight: 100n },
          m,
        ),
      (m) =>
        appendTransactionMessageInstructions(
          [getTransferSolInstruction({ source: me, destination: bob, amount: 2_000_000_000n })],
          m,
        ),
    );
    const bytes = toHex(new Uint8Array(compileTransaction(message).messageBytes));
    const signed = page.evaluate(
      (hex) =>
        window.lkCore.signRawMessage(window.lkSigner, { message: hex, mode: "SOLANA" }).then(
          (sig) => sig,
          (e: { code?: string }) => `error ${e.code}`,
        ),
      bytes,
    );
    await frame.getByRole("heading", { name: "Review the request" }).waitFor();
    expect(await frame.locator(".lk-lines li").allTextContents()).toEqual([
      `Send 2 SOL to ${bob.slice(0, 4)}…${bob.slice(-4)}`,
    ]);
    await shot(page, "confirm-enforced-03-solana");
    const confirm = frame.getByRole("button", { name: "Confirm" });
    await expect.poll(() => confirm.isEnabled()).toBe(true);
    await confirm.click();
    const signature = (await signed) as string;
    expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
    const { ed25519 } = await import("@noble/curves/ed25519");
    expect(
      ed25519.verify(
        signature.slice(2, 130),
        Buffer.from(bytes.slice(2), "hex"),
        base58.decode(solanaAddress),
      ),
    ).toBe(true);
  });

  it("draws a transaction the account signs (signTransaction), and signs it once confirmed", async () => {
    const signed = page.evaluate(() =>
      window.lkCore
        .toViemAccount(window.lkSigner)
        .signTransaction({
          type: "eip1559",
          chainId: 31337,
          nonce: 0,
          to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
          value: 10_000_000_000_000_000n,
          gas: 21_000n,
          maxFeePerGas: 2_000_000_000n,
          maxPriorityFeePerGas: 1_000_000_000n,
        })
        .then(
          (tx) => tx,
          (e: { code?: string }) => `error ${e.code}`,
        ),
    );
    await frame.getByRole("heading", { name: "Review the request" }).waitFor();
    expect(await frame.locator(".lk-lines li").allTextContents()).toEqual(["Send 0.01 ETH to 0x7099…79C8"]);
    // No chain in this stack: the frame says why there is no simulation.
    await frame.getByText(/^Simulation unavailable/).waitFor();
    const confirm = frame.getByRole("button", { name: "Confirm" });
    await expect.poll(() => confirm.isEnabled()).toBe(true);
    await confirm.click();
    const serialized = (await signed) as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: serialized as never })).toBe(userAddress);
    const logged = await s.service.ctx.db
      .selectFrom("audit_log")
      .select("details")
      .where("event", "=", "signing.completed")
      .execute();
    expect(JSON.parse(logged.at(-1)?.details ?? "{}")).toMatchObject({
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
      summary: ["Transaction on chain 31337", "Send 0.01 ETH to 0x7099…79C8"],
      confirmedInFrame: true,
    });
  });

  it("speaks the language the modal sets", async () => {
    const refused = page.evaluate(() => {
      window.lkSigner.client.confirmationLocale = "de";
      return window.lkCore.signRawMessage(window.lkSigner, { message: `0x${"ef".repeat(32)}` }).then(
        () => "signed",
        (e: { code?: string }) => e.code,
      );
    });
    await frame.getByRole("heading", { name: "Anfrage prüfen" }).waitFor();
    await expect.poll(() => frame.getByRole("button", { name: "Bestätigen" }).isEnabled()).toBe(true);
    await frame.getByRole("button", { name: "Abbrechen" }).click();
    expect(await refused).toBe("USER_REJECTED");
    await page.evaluate(() => {
      window.lkSigner.client.confirmationLocale = undefined;
    });
  });
});
