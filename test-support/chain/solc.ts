import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename } from "node:path";
import type { Abi, Hex } from "viem";

/** A compiled contract: what deploying and calling it needs. */
export interface ContractArtifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
}

/** The solc settings of the committed test artifacts: optimised (200 runs), evmVersion Cancun. */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles one Solidity file with the `solc` npm package (0.8.28, JS build: runs offline) and answers the
 * named contracts' artifacts; a compile error or a missing contract throws.
 * @example
 * const [counter] = compileSolidity(COUNTER_SOURCE_PATH, ["Counter"]);
 */
export function compileSolidity(sourcePath: string, contractNames: readonly string[]): ContractArtifact[] {
  const solc = createRequire(import.meta.url)("solc") as { compile(input: string): string };
  const file = basename(sourcePath);
  const input = {
    language: "Solidity",
    sources: { [file]: { content: readFileSync(sourcePath, "utf8") } },
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  return contractNames.map((name) => {
    const compiled = output.contracts[file]?.[name];
    if (!compiled) throw new Error(`solc: no ${name} in the output`);
    return { contractName: name, abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  });
}
