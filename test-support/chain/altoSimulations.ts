import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Address, type Hex, keccak256 } from "viem";
import type { Create2Deploy } from "./deploy.js";

// alto deploys its simulation contracts at start, one after the other, waiting for each receipt (~0.5 s).
// Deployed beforehand, with the same CREATE2 salt (keccak256 of its utility wallet's address) and bytecode,
// alto finds them and skips that. Only the speed depends on this: a file that moved is skipped, and alto
// then deploys what it misses itself.
const ARTIFACTS = [
  "contracts/PimlicoSimulations.sol/PimlicoSimulations.json",
  "contracts/EntryPointSimulations.sol/EntryPointSimulations07.json",
  "contracts/EntryPointSimulations.sol/EntryPointSimulations08.json",
  "contracts/EntryPointSimulations.sol/EntryPointSimulations09.json",
];

/** alto's simulation contracts, as CREATE2 deployments where alto (esm folder `altoEsmDir`) looks for them. */
export function altoSimulationDeploys(altoEsmDir: string, utilityWallet: Address): Create2Deploy[] {
  const salt = keccak256(utilityWallet);
  return ARTIFACTS.map((file) => join(altoEsmDir, file))
    .filter((path) => existsSync(path))
    .map((path) => {
      const artifact = JSON.parse(readFileSync(path, "utf8")) as { bytecode: { object: Hex } };
      return { name: `alto ${path.split("/").pop()}`, salt, initCode: artifact.bytecode.object };
    });
}
