/**
 * Issue 47 item 4: in dev mode the dev app keeps its server keys once the service listens. `latchkey
 * serve --dev` (and `npm start`, which runs it with a chain config, `--host localhost` and the demo's
 * origins) sets up the dev app, listens, then points its Google and Auth0 at the local OpenID Connect
 * provider: that last step used to save the app again without its server keys, so
 * `.latchkey/dev-server-key` got SERVER_KEY_REQUIRED, and a key the config adds to app `dev` was dropped.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBackendClient } from "@latchkey/backend";
import { createGrant, createMemoryKeyHolder, createMemoryStorage, createSigner } from "@latchkey/core";
import { generateP256PrivateKey, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { recoverMessageAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileConfigSchema } from "../src/config";
import { stop } from "./helpers";
import { LATCHKEY_BIN } from "./helpers/latchkey";
import { waitForLine } from "./helpers/waitForLine";

const OPS_KEY = generateP256PrivateKey();
const DEMO_ORIGIN = "http://localhost:5173";

describe("dev mode keeps the dev app's server keys (serve --dev, as npm start runs it)", () => {
  let child: ChildProcess | undefined;
  let dir: string;
  let base: string;
  let apiKey: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "latchkey-dev-key-"));
    const config = join(dir, "config.json");
    writeFileSync(
      config,
      JSON.stringify({
        apps: [
          {
            id: "dev",
            name: "Latchkey Dev",
            serverKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(OPS_KEY, true)) }],
          },
        ],
      }),
    );
    // The arguments npm start (scripts/start.js) gives it, but the devnet's chains and the fixed ports.
    child = spawn(
      process.execPath,
      [
        LATCHKEY_BIN,
        "serve",
        "--config",
        config,
        "--dev",
        "--port",
        "0",
        "--host",
        "localhost",
        "--dev-origin",
        DEMO_ORIGIN,
        "--dev-redirect-url",
        `${DEMO_ORIGIN}/`,
        "--log-level",
        "warn",
      ],
      { cwd: dir, env: { ...process.env, LATCHKEY_MASTER_KEY: "" } },
    );
    // Printed once the dev identity provider is attached: the step that used to drop the keys.
    const out = await waitForLine(child, /Dev mailbox:\s+(\S+)/);
    base = /on (http:\/\/\S+)/.exec(out)?.[1] ?? "";
    expect(base).toMatch(/^http:\/\/localhost:\d+$/);
    apiKey = /Dev app API key: (\S+)/.exec(out)?.[1] as string;
  });
  afterAll(async () => {
    await stop(child);
  });

  it("signs under a user's grant with .latchkey/dev-server-key, and the config's key of app dev works too", async () => {
    const email = "dev-bot-owner@example.com";
    const signer = createSigner({
      baseUrl: base,
      apiKey,
      keyHolder: createMemoryKeyHolder(),
      storage: createMemoryStorage(),
      window: null,
    });
    await signer.authenticate({ type: "email", email, emailMode: "otp" });
    const code = await otpFromDevMailbox(base, email);
    await signer.authenticate({ type: "otp", otpCode: code });
    const address = signer.user?.address as `0x${string}`;
    const userId = signer.user?.userId as string;
    const grant = await createGrant(signer, {
      chainIds: [1],
      messages: true,
      expiresAt: Date.now() + 3600_000,
    });

    const devBot = createBackendClient({
      url: base,
      appId: "dev",
      serverKey: readFileSync(join(dir, ".latchkey/dev-server-key"), "utf8"),
    });
    const signed = await devBot.signMessage({ userId, grantId: grant.grantId, message: "from the dev bot" });
    expect(await recoverMessageAddress({ message: "from the dev bot", signature: signed.signature })).toBe(
      address,
    );

    const ops = createBackendClient({ url: base, appId: "dev", serverKey: toHex(OPS_KEY) });
    expect((await ops.listGrants()).map((g) => g.grantId)).toEqual([grant.grantId]);
    const byOps = await ops.signMessage({ userId, grantId: grant.grantId, message: "from ops" });
    expect(await recoverMessageAddress({ message: "from ops", signature: byOps.signature })).toBe(address);
  });
});

describe("the README's grants config", () => {
  it("is a config the service accepts, once its placeholders are filled in", () => {
    const readme = readFileSync(join(__dirname, "../../../README.md"), "utf8");
    const section = readme.slice(readme.indexOf("**1. Give your backend a server key**"));
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1] as string;
    const filled = json
      .replace('"02…"', JSON.stringify(toHex(p256PublicKeyFromPrivate(OPS_KEY, true))))
      .replace('"lk_…"', '"lk_0123456789abcdef0123"')
      .replace('"0x…"', '"0x00000000000000000000000000000000000000aa"')
      .replace('"https://…"', '"https://bundler.example.com"')
      .replace('"…"', '"https://rpc.example.com"');
    const parsed = fileConfigSchema.safeParse(JSON.parse(filled));
    expect(parsed.error?.issues ?? []).toEqual([]);
    expect(parsed.data?.apps[0]).toMatchObject({ id: "shop", name: "Shop", serverKeys: [{ name: "bot" }] });
  });
});

/** The code of the first sign-in mail to `to` in the dev mailbox (/dev/mailbox.json), once it is there. */
async function otpFromDevMailbox(base: string, to: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const mails = (await (await fetch(`${base}/dev/mailbox.json`)).json()) as {
      to: string;
      subject: string;
    }[];
    const code = /\b(\d{6})\b/.exec(mails.find((m) => m.to === to)?.subject ?? "")?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no sign-in code for ${to} in the dev mailbox`);
}
