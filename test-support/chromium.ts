import { createServer } from "node:net";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, headless, with what makes it quiet and quick here (TOOLCHAIN.md). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** Launches the machine's Chromium (never a downloaded one). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** A loopback port nothing listens on now (taken, then released): for a free port, or a closed one. */
export async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
