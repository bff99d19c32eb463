import { cpSync, mkdirSync, readFileSync } from "node:fs";
import { defineConfig } from "tsup";
import { packageBuild } from "../../scripts/tsupBase";

// The CLI is one bundle: the dev stack's code lives in the repository's test-support/ (the tests use it
// too) and is bundled in from there; its npm dependencies stay imports. What it reads at runtime beside
// its own module (import.meta.url) is copied into dist/: the hardhat config, the orphan guard and alto's
// launcher (run as child processes), and the committed contract artifacts.
const CHAIN = "../../test-support/chain";
/** The "run as a script" guard of the artifact compilers: inside the bundle it would match the CLI itself. */
const MAIN_GUARD = "process.argv[1] === fileURLToPath(import.meta.url)";

export default defineConfig(
  packageBuild(
    { cli: "src/cli.ts" },
    {
      platform: "node",
      target: "node20",
      dts: false,
      splitting: false,
      esbuildPlugins: [
        {
          name: "no-compile-scripts",
          setup(build) {
            build.onLoad({ filter: /test-support\/chain\/compile\w+\.ts$/ }, (args) => {
              const source = readFileSync(args.path, "utf8");
              if (!source.includes(MAIN_GUARD)) throw new Error(`${args.path}: no script guard to drop`);
              return { contents: source.replace(MAIN_GUARD, "false"), loader: "ts" };
            });
          },
        },
      ],
      async onSuccess() {
        for (const file of ["hardhat.config.cjs", "orphanGuard.cjs", "altoLauncher.mjs"])
          cpSync(`${CHAIN}/${file}`, `dist/${file}`);
        mkdirSync("dist/contracts", { recursive: true });
        for (const file of ["Counter.json", "LatchkeySimpleAccount.json"])
          cpSync(`${CHAIN}/contracts/${file}`, `dist/contracts/${file}`);
      },
    },
  ),
);
