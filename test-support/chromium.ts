import { type Browser, type BrowserContext, chromium } from "playwright-core";

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

/** Where the process's one shared Chromium lives: on `globalThis`, so that it outlives a file's modules. */
const SHARED = Symbol.for("latchkey.test.sharedChromium");
type Shared = { [SHARED]?: Promise<Browser> };

/**
 * The test process's one Chromium (launched on first use, `launchChromium()`), for the files the pool runs
 * in that process one after another: a launch and a close cost ~1 s of CPU and more of wall per file. The
 * answer is a view of it whose `close()` closes what this view opened (its contexts, and the pages of
 * `newPage()` with theirs), never the browser: a file's contexts are its own, as with a browser of its
 * own, and nothing it opened outlives it. The browser goes with the process (playwright kills it at exit);
 * if it crashed or was closed, the next call launches another.
 */
export async function sharedChromium(): Promise<Browser> {
  const shared = globalThis as Shared;
  let browser = await shared[SHARED]?.catch(() => undefined);
  if (!browser?.isConnected()) {
    const launching = launchChromium();
    shared[SHARED] = launching;
    browser = await launching;
  }
  return browserView(browser);
}

/** `browser`, but `close()` closes only the contexts opened through this view. */
function browserView(browser: Browser): Browser {
  const contexts = new Set<BrowserContext>();
  const track = (context: BrowserContext) => {
    contexts.add(context);
    context.once("close", () => contexts.delete(context));
    return context;
  };
  const view: Partial<Browser> = {
    newContext: async (options) => track(await browser.newContext(options)),
    newPage: async (options) => {
      const page = await browser.newPage(options);
      track(page.context());
      return page;
    },
    contexts: () => [...contexts],
    close: async () => {
      await Promise.all([...contexts].map((c) => c.close().catch(() => undefined)));
    },
  };
  return new Proxy(browser, {
    get(target, key) {
      if (key in view) return view[key as keyof Browser];
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
