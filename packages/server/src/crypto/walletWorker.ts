import { parentPort } from "node:worker_threads";
import { deriveAccounts, deriveAccountsBatch } from "./wallet";

interface Job {
  id: number;
  mnemonic: string;
}

/** The most wallets one pass derives: bounded so a long queue still answers in steps of ~10 ms. */
const MAX_BATCH = 32;
const queue: Job[] = [];

// Derives wallets off the event loop: PBKDF2 and the curve work are most of a sign-up's CPU. Wallets that
// arrive while a pass runs wait for the next one and are derived together: the native PBKDF2 computes up
// to 8 seeds in one run for about the price of 1.6 (crypto/pbkdf2.ts).
parentPort?.on("message", (msg: Job) => {
  queue.push(msg);
  if (queue.length === 1) setImmediate(drain);
});

function drain(): void {
  const jobs = queue.splice(0, MAX_BATCH);
  let results: ({ accounts: ReturnType<typeof deriveAccounts> } | { error: string })[];
  try {
    results = deriveAccountsBatch(jobs.map((j) => j.mnemonic)).map((accounts) => ({ accounts }));
  } catch {
    // One bad wallet does not fail the others: derive them one by one to find it.
    results = jobs.map((j) => {
      try {
        return { accounts: deriveAccounts(j.mnemonic) };
      } catch (e) {
        return { error: e instanceof Error ? e.message : String(e) };
      }
    });
  }
  jobs.forEach((job, i) => {
    parentPort?.postMessage({ id: job.id, ...results[i] });
  });
  if (queue.length > 0) setImmediate(drain);
}
