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

export { unusedPort } from "./ports";
