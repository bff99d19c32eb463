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

/** Settings added to SETTINGS for one compilation (e.g. `metadata: { bytecodeHash: "none" }`). */
export type SolcSettings = Record<string, unknown>;

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/**
 * Compiles one Solidity file with the `solc` npm package (0.8.28, JS build: runs offline) and answers the
 * named contracts' artifacts; a compile error or a missing contract throws. Imports of packages
 * (`@openzeppelin/contracts/...`) are read from node_modules.
 * @example
 * const [counter] = compileSolidity(COUNTER_SOURCE_PATH, ["Counter"]);
 */
export function compileSolidity(
  sourcePath: string,
  contractNames: readonly string[],
  settings: SolcSettings = {},
): ContractArtifact[] {
  const require = createRequire(import.meta.url);
  const solc = require("solc") as {
    compile(
      input: string,
      callbacks: { import(path: string): { contents: string } | { error: string } },
    ): string;
  };
  const file = basename(sourcePath);
  const input = {
    language: "Solidity",
    sources: { [file]: { content: readFileSync(sourcePath, "utf8") } },
    settings: { ...SETTINGS, ...settings },
  };
  const readImport = (path: string) => {
    try {
      return { contents: readFileSync(require.resolve(path), "utf8") };
    } catch (error) {
      return { error: `cannot read ${path}: ${(error as Error).message}` };
    }
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: readImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  return contractNames.map((name) => {
    const compiled = output.contracts[file]?.[name];
    if (!compiled) throw new Error(`solc: no ${name} in the output`);
    return { contractName: name, abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  });
}
