// Preloaded (`node --require`) into the chain's child processes (hardhat, alto). Their stdin is a pipe from
// the process that started them: when that process dies, however it dies (even SIGKILL), the pipe closes
// and this exits the child, so a crashed or killed test run leaves no chain behind.
// Preloads also run in every worker thread (alto logs through one), where stdin ends at once: main thread only.
if (require("node:worker_threads").isMainThread) {
  process.stdin.on("end", () => process.exit(0));
  process.stdin.on("error", () => process.exit(0));
  process.stdin.resume();
}
