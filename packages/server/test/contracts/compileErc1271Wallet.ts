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

/** The committed artifact: the wallet and its CREATE2 factory. */
export interface Erc1271WalletArtifacts {
  wallet: ContractArtifact;
  factory: ContractArtifact;
}

/** The source of the wallet and its factory. */
export const ERC1271_WALLET_SOURCE_PATH = fileURLToPath(new URL("./Erc1271Wallet.sol", import.meta.url));
/**
 * The committed artifact, `compileErc1271Wallet()`'s output (regenerate:
 * `node --import tsx packages/server/test/contracts/compileErc1271Wallet.ts`).
 */
export const ERC1271_WALLET_ARTIFACT_PATH = fileURLToPath(new URL("./Erc1271Wallet.json", import.meta.url));

/** The solc settings of the committed artifact: those of test-support/chain's Counter (200 runs, Cancun). */
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
};

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Compiles Erc1271Wallet.sol with the `solc` npm package (0.8.28, JS build: runs offline). */
export function compileErc1271Wallet(): Erc1271WalletArtifacts {
  const solc = createRequire(import.meta.url)("solc") as { compile(input: string): string };
  const input = {
    language: "Solidity",
    sources: { "Erc1271Wallet.sol": { content: readFileSync(ERC1271_WALLET_SOURCE_PATH, "utf8") } },
    settings: SETTINGS,
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(`solc: ${errors.map((e) => e.formattedMessage).join("\n")}`);
  const artifact = (name: string): ContractArtifact => {
    const compiled = output.contracts["Erc1271Wallet.sol"]?.[name];
    if (!compiled) throw new Error(`solc: no ${name} in the output`);
    return { contractName: name, abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}` };
  };
  return { wallet: artifact("Erc1271Wallet"), factory: artifact("Erc1271WalletFactory") };
}

/** The committed artifact (Erc1271Wallet.json). */
export function readErc1271WalletArtifacts(): Erc1271WalletArtifacts {
  return JSON.parse(readFileSync(ERC1271_WALLET_ARTIFACT_PATH, "utf8")) as Erc1271WalletArtifacts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const artifacts = compileErc1271Wallet();
  writeFileSync(ERC1271_WALLET_ARTIFACT_PATH, `${JSON.stringify(artifacts, null, 2)}\n`);
  console.log(`wrote ${ERC1271_WALLET_ARTIFACT_PATH} in ${Math.round(performance.now() - started)} ms`);
}
