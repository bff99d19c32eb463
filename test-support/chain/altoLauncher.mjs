// Starts alto (@pimlico/alto, the ERC-4337 bundler) in two steps, so that loading its ~2 s of modules overlaps
// the hardhat node's start and the deployments: `node altoLauncher.mjs <alto's esm folder>` loads the heavy
// modules at once, then waits for one stdin line `start <JSON array of alto's CLI arguments>` and runs alto's
// CLI with them. Only the speed depends on which modules are preloaded; alto itself starts only on `start`.
import { Server } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

// alto listens on host 0.0.0.0 whatever its options say (rpc/server.js): a dev tool here reaches only
// loopback, so every listen of this process that asks for all interfaces gets 127.0.0.1 instead.
const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  const [options] = args;
  if (options && typeof options === "object" && (options.host === "0.0.0.0" || options.host === "::")) {
    args[0] = { ...options, host: "127.0.0.1" };
  }
  return listen.apply(this, args);
};

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
