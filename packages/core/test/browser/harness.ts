import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { attachDevIdentityProvider, type DevOidcProvider } from "@latchkey/server/dev";
import { build } from "esbuild";
import type { Browser } from "playwright-core";
import { sharedChromium } from "../../../../test-support/chromium";
import { startService, type TestService } from "../helpers/service";

export interface Harness {
  svc: TestService;
  /** The service's URL as the host page uses it (on the host's site). */
  serviceUrl: string;
  browser: Browser;
  /** The app's origin (allowed by the dev app). */
  hostOrigin: string;
  /** Another origin the app does not allow. */
  strangerOrigin: string;
  /** With `oauth: true`: the dev OpenID Connect provider, the dev app's "google" and "auth0". */
  idp?: DevOidcProvider;
  close(): Promise<void>;
}

async function bundleHost(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./host-entry.ts", import.meta.url))],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    conditions: ["source"],
    target: "es2022",
    logLevel: "silent",
  });
  return result.outputFiles[0]?.text ?? "";
}

function listen(server: Server, hostName = "127.0.0.1"): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://${hostName}:${(server.address() as AddressInfo).port}`),
    );
  });
}

/**
 * Starts the service, a static host app on an allowed origin, a stranger on another, and Chromium.
 * `hostName: "localhost"` serves the host app as http://localhost:PORT, a secure context whose host is
 * the dev app's WebAuthn relying party (passkey tests).
 */
export async function startHarness(opts: { hostName?: string; oauth?: boolean } = {}): Promise<Harness> {
  const script = await bundleHost();
  let config = "";
  const page = () =>
    `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body><h1>host app</h1><script>window.LATCHKEY_TEST=${config}</script><script src="/core.js"></script></body></html>`;
  const handler: Parameters<typeof createServer>[1] = (req, res) => {
    if (req.url === "/core.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      res.end(script);
      return;
    }
    if (req.url === "/favicon.ico") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(page());
  };
  const host = createServer(handler);
  const stranger = createServer(handler);
  const hostOrigin = await listen(host, opts.hostName);
  const strangerOrigin = await listen(stranger);
  const svc = await startService({ devOrigins: [hostOrigin], devMagicLinkUrls: [`${hostOrigin}/app`] });
  // The service on the app's own site (DESIGN §2): the auth frame is then first-party.
  const serviceUrl = opts.hostName ? svc.baseUrl.replace("127.0.0.1", opts.hostName) : svc.baseUrl;
  config = JSON.stringify({ baseUrl: serviceUrl, apiKey: svc.apiKey, redirectUrl: `${hostOrigin}/app` });
  const idp = opts.oauth ? await attachDevIdentityProvider(svc.service, serviceUrl) : undefined;
  const browser = await sharedChromium();
  return {
    svc,
    serviceUrl,
    browser,
    hostOrigin,
    strangerOrigin,
    ...(idp ? { idp } : {}),
    async close() {
      // Teardown never hangs a run: Chromium gets 15 s to close, and open keep-alive sockets are dropped.
      await Promise.race([browser.close(), new Promise((r) => setTimeout(r, 15_000))]);
      await idp?.close();
      await svc.close();
      for (const server of [host, stranger]) {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    },
  };
}
