import { existsSync, readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { join, relative, sep } from "node:path";

/*
 * WalletConnect's Node packages, loaded as CommonJS, so that they work under vitest too.
 *
 * This repository's vitest config resolves with Vite's server conditions, and vitest runs its workers with
 * `--conditions module` (plus source, node, development). With that condition Node picks the ESM builds of
 * the @walletconnect 2.25 packages and of @reown/walletkit ("exports": { module, default }), and those do not
 * run in Node:
 *  - `new Core()` throws "TypeError: Le is not a constructor": core's ESM does `import X from
 *    "@walletconnect/keyvaluestorage"`, a CommonJS package whose default import in Node is its whole
 *    `module.exports`, not the class;
 *  - importing @reown/walletkit fails with ERR_MODULE_NOT_FOUND: @walletconnect/pay's ESM imports
 *    "brotli/decompress" without its ".js".
 * Their CommonJS builds are what plain `node` and tsx load, and they work. So these are required with the
 * "module" entries of such packages swapped for their CommonJS twins, for the duration of the (synchronous)
 * load. Outside vitest the swap finds nothing to do.
 */

const require = createRequire(import.meta.url);

type ResolveFilename = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
const loader = Module as unknown as { _resolveFilename: ResolveFilename };

/** Requires `id` (and everything it requires while it loads) with CommonJS builds in place of "module" ones. */
function requireCommonJs<T>(id: string): T {
  const original = loader._resolveFilename;
  loader._resolveFilename = function (this: unknown, request, parent, isMain, options) {
    const file = original.call(this, request, parent, isMain, options);
    return commonJsTwin(file) ?? file;
  };
  try {
    return require(id) as T;
  } finally {
    loader._resolveFilename = original;
  }
}

const twins = new Map<string, string | undefined>();

/**
 * The CommonJS file that a package's "exports" give next to `file` when `file` is its "module" entry
 * (`{ "module": "./dist/index.js", "default": "./dist/index.cjs" }` → dist/index.cjs), if any.
 */
function commonJsTwin(file: string): string | undefined {
  if (!file.includes(`${sep}node_modules${sep}`) || !file.endsWith(".js")) return undefined;
  if (twins.has(file)) return twins.get(file);
  let twin: string | undefined;
  const root = packageRoot(file);
  if (root) {
    const { exports } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports?: unknown };
    const target = `./${relative(root, file).split(sep).join("/")}`;
    const entry = findConditions(exports, (c) => c.module === target);
    const cjs = entry && (typeof entry.require === "string" ? entry.require : entry.default);
    if (typeof cjs === "string" && cjs !== target) twin = join(root, cjs);
  }
  twins.set(file, twin);
  return twin;
}

/** The folder of the package `file` belongs to: node_modules/<name> or node_modules/@scope/<name>. */
function packageRoot(file: string): string | undefined {
  const parts = file.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0 || at + 2 >= parts.length) return undefined;
  const root = parts.slice(0, parts[at + 1]?.startsWith("@") ? at + 3 : at + 2).join(sep);
  return existsSync(join(root, "package.json")) ? root : undefined;
}

type Conditions = Record<string, unknown>;

/** The first conditions object in an "exports" value that matches. */
function findConditions(value: unknown, match: (c: Conditions) => boolean): Conditions | undefined {
  if (!value || typeof value !== "object") return undefined;
  const object = value as Conditions;
  if (match(object)) return object;
  for (const inner of Object.values(object)) {
    const found = findConditions(inner, match);
    if (found) return found;
  }
  return undefined;
}

/** @reown/walletkit's WalletKit, @walletconnect/core's Core and @walletconnect/utils, as one CommonJS set. */
export function walletKitModules() {
  const { WalletKit } = requireCommonJs<typeof import("@reown/walletkit")>("@reown/walletkit");
  const { Core } = requireCommonJs<typeof import("@walletconnect/core")>("@walletconnect/core");
  const utils = requireCommonJs<typeof import("@walletconnect/utils")>("@walletconnect/utils");
  return { WalletKit, Core, utils };
}

/**
 * @walletconnect/universal-provider (a dapp in Node, e.g. a test's): use this instead of `import` in vitest.
 * @example
 * const { UniversalProvider } = universalProviderModule();
 */
export function universalProviderModule(): typeof import("@walletconnect/universal-provider") {
  return requireCommonJs("@walletconnect/universal-provider");
}
