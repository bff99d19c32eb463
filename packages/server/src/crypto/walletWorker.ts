import { parentPort } from "node:worker_threads";
import { deriveAccounts } from "./wallet";

// Derives wallets off the event loop: PBKDF2 and the curve work are most of a sign-up's CPU.
parentPort?.on("message", (msg: { id: number; mnemonic: string }) => {
  try {
    parentPort?.postMessage({ id: msg.id, accounts: deriveAccounts(msg.mnemonic) });
  } catch (e) {
    parentPort?.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) });
  }
});
