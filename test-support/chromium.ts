import { type Browser, chromium } from "playwright-core";

/**
 * The features playwright-core (1.65) turns off at every launch, less `ThirdPartyStoragePartitioning`,
 * which Chrome ships on (since Chrome 115). Chromium reads the last `--disable-features` it is given, so
 * this list replaces playwright's: a frame from another site then gets storage partitioned by the
 * top-level site, as in a user's Chrome, instead of none at all (playwright's contexts are incognito-like
 * and block third-party cookies, and with partitioning off that refuses the frame every storage).
 * `test-support/chromium.test.ts` fails when playwright's list changes, naming what to add here.
 */
export const PLAYWRIGHT_DISABLED_FEATURES_KEPT = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/** Debian's Chromium, headless, with what makes it quiet and quick here (TOOLCHAIN.md). */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
  // Third-party storage partitioning as Chrome ships it (above).
  `--disable-features=${PLAYWRIGHT_DISABLED_FEATURES_KEPT.join(",")}`,
];

/** Launches the machine's Chromium (never a downloaded one), with `args` after ours. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: [...CHROMIUM_ARGS, ...args] });
}

export { unusedPort } from "./ports";
