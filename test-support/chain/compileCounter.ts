import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ContractArtifact, compileSolidity } from "./solc.js";

export type { ContractArtifact } from "./solc.js";

/** The source of the Counter contract. */
export const COUNTER_SOURCE_PATH = fileURLToPath(new URL("./contracts/Counter.sol", import.meta.url));
/** The committed artifact, `compileCounter()`'s output (regenerate: `node --import tsx test-support/chain/compileCounter.ts`). */
export const COUNTER_ARTIFACT_PATH = fileURLToPath(new URL("./contracts/Counter.json", import.meta.url));

/** Compiles contracts/Counter.sol (test-support/chain/solc.ts). */
export function compileCounter(): ContractArtifact {
  return compileSolidity(COUNTER_SOURCE_PATH, ["Counter"])[0] as ContractArtifact;
}

/** The committed artifact (contracts/Counter.json). */
export function readCounterArtifact(): ContractArtifact {
  return JSON.parse(readFileSync(COUNTER_ARTIFACT_PATH, "utf8")) as ContractArtifact;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const artifact = compileCounter();
  writeFileSync(COUNTER_ARTIFACT_PATH, `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`wrote ${COUNTER_ARTIFACT_PATH} in ${Math.round(performance.now() - started)} ms`);
}
