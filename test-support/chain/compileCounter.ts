import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

/** A compiled contract: what deploying and calling it needs. */
export interface ContractArtifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
}

/** The source of the Counter contract. */
export const COUNTER_SOURCE_PATH = fileURLToPath(new URL("./contracts/Counter.sol", import.meta.url));
/** The committed artifact, `compileCounter()`'s output (regenerate: `node --import tsx test-support/chain/compileCounter.ts`). */
export const COUNTER_ARTIFACT_PATH = fileURLToPath(new URL("./contracts/Counter.json", import.meta.url));

/** The solc settings of the committed artifact: optimised (200 runs), evmVersion Cancun. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles contracts/Counter.sol with the `solc` npm package (0.8.28, JS build: runs offline). */
export function compileCounter(): ContractArtifact {
  const solc = createRequire(import.meta.url)("solc") as {
    compile(input: string): string;
    version(): string;
  };
  const input = {
    language: "Solidity",
    sources: { "Counter.sol": { content: readFileSync(COUNTER_SOURCE_PATH, "utf8") } },
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  const counter = output.contracts["Counter.sol"]?.Counter;
  if (!counter) throw new Error("solc: no Counter in the output");
  return { contractName: "Counter", abi: counter.abi, bytecode: `0x${counter.evm.bytecode.object}` };
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
