import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

// @pimlico/mock-paymaster@0.0.7 (MIT) ships Pimlico's SingletonPaymasterV8 init code and its signing
// helpers, but its package "exports" only expose "." (whose server part does not run on this stack, see
// WALLETS-AND-CHAINS.md §3): the two modules below are loaded by file path, typed by its own .d.ts files.
type Constants = typeof import("../../node_modules/@pimlico/mock-paymaster/_types/constants.js");
type SingletonPaymasters =
  typeof import("../../node_modules/@pimlico/mock-paymaster/_types/singletonPaymasters.js");

/** The parts of @pimlico/mock-paymaster this stack uses. */
export interface MockPaymasterModules {
  /** `getSingletonPaymaster08InitCode(owner)` (owner = manager = first signer), `getSingletonPaymaster08Address(owner)`. */
  constants: Constants;
  /** `getDummyPaymasterData` and `getSignedPaymasterData` (verifying mode: `{ mode: "verifying" }`). */
  singletonPaymasters: SingletonPaymasters;
}

let loaded: Promise<MockPaymasterModules> | undefined;

/** Loads @pimlico/mock-paymaster's constants and signing helpers (once) from its `_esm` folder. */
export function mockPaymasterModules(): Promise<MockPaymasterModules> {
  loaded ??= (async () => {
    // resolve "." (the only export) to find the package folder; nothing is executed by resolving
    const entry = createRequire(import.meta.url).resolve("@pimlico/mock-paymaster");
    const esm = join(dirname(dirname(entry)), "_esm");
    const load = (file: string) => import(pathToFileURL(join(esm, file)).href);
    const [constants, singletonPaymasters] = await Promise.all([
      load("constants.js") as Promise<Constants>,
      load("singletonPaymasters.js") as Promise<SingletonPaymasters>,
    ]);
    return { constants, singletonPaymasters };
  })();
  return loaded;
}
