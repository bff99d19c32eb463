// Starts alto (@pimlico/alto, the ERC-4337 bundler) in two steps, so that loading its ~2 s of modules overlaps
// the hardhat node's start and the deployments: `node altoLauncher.mjs <alto's esm folder>` loads the heavy
// modules at once, then waits for one stdin line `start <JSON array of alto's CLI arguments>` and runs alto's
// CLI with them. Only the speed depends on which modules are preloaded; alto itself starts only on `start`.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const esmDir = process.argv[2];
const load = (file) => import(pathToFileURL(join(esmDir, file)).href);

const started = new Promise((resolve) => {
  let buffer = "";
  process.stdin.on("data", (chunk) => {
    buffer += chunk;
    const line = /^start (.*)\n/.exec(buffer);
    if (line) resolve(JSON.parse(line[1]));
  });
});

// Not cli/config or cli/parseArgs: importing those runs alto's CLI.
const PRELOAD = ["cli/setupServer.js", "cli/deploySimulationsContract.js", "cli/customTransport.js"];
await Promise.all(PRELOAD.map((file) => load(file).catch(() => {})));

const args = await started;
process.argv = [process.argv[0], join(esmDir, "cli", "alto.js"), ...args];
await load("cli/alto.js");
