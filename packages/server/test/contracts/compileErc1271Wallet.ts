import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ContractArtifact, compileSolidity } from "../../../../test-support/chain/solc";

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

/** Compiles Erc1271Wallet.sol (test-support/chain/solc.ts, the Counter's settings). */
export function compileErc1271Wallet(): Erc1271WalletArtifacts {
  const [wallet, factory] = compileSolidity(ERC1271_WALLET_SOURCE_PATH, [
    "Erc1271Wallet",
    "Erc1271WalletFactory",
  ]);
  return { wallet: wallet as ContractArtifact, factory: factory as ContractArtifact };
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
