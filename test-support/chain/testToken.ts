import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Address, encodeDeployData, encodeFunctionData, type Hex, type PublicClient } from "viem";
import { DEPLOYER } from "./deploy.js";
import { type ContractArtifact, compileSolidity } from "./solc.js";

/** The source of the TestToken contract (a minimal ERC-20: anyone mints; a transfer above the balance reverts). */
export const TEST_TOKEN_SOURCE_PATH = fileURLToPath(new URL("./contracts/TestToken.sol", import.meta.url));
/** The committed artifact (regenerate: `node --import tsx test-support/chain/testToken.ts`). */
export const TEST_TOKEN_ARTIFACT_PATH = fileURLToPath(new URL("./contracts/TestToken.json", import.meta.url));

/** The committed artifact (contracts/TestToken.json). */
export function readTestTokenArtifact(): ContractArtifact {
  return JSON.parse(readFileSync(TEST_TOKEN_ARTIFACT_PATH, "utf8")) as ContractArtifact;
}

/**
 * Deploys a TestToken (`name`, `symbol`, `decimals`) from the node's unlocked DEPLOYER and answers its address.
 * @example
 * const usdc = await deployTestToken(stack.publicClient, { name: "USD Coin", symbol: "USDC", decimals: 6 });
 */
export async function deployTestToken(
  publicClient: PublicClient,
  token: { name: string; symbol: string; decimals: number },
): Promise<Address> {
  const { abi, bytecode } = readTestTokenArtifact();
  const data = encodeDeployData({ abi, bytecode, args: [token.name, token.symbol, token.decimals] });
  const receipt = await sendFromDeployer(publicClient, { data });
  if (!receipt.contractAddress) throw new Error("deployTestToken: no contract address");
  return receipt.contractAddress;
}

/** Mints `amount` of a TestToken to `to` (anyone may mint). */
export async function mintTestToken(
  publicClient: PublicClient,
  token: Address,
  to: Address,
  amount: bigint,
): Promise<void> {
  const { abi } = readTestTokenArtifact();
  await sendFromDeployer(publicClient, {
    to: token,
    data: encodeFunctionData({ abi, functionName: "mint", args: [to, amount] }),
  });
}

async function sendFromDeployer(publicClient: PublicClient, tx: { to?: Address; data: Hex }) {
  const hash = await publicClient.request({
    method: "eth_sendTransaction",
    params: [{ from: DEPLOYER, ...tx }],
  } as never);
  const receipt = await publicClient.waitForTransactionReceipt({ hash: hash as Hex });
  if (receipt.status !== "success") throw new Error(`TestToken transaction ${hash} reverted`);
  return receipt;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [artifact] = compileSolidity(TEST_TOKEN_SOURCE_PATH, ["TestToken"]);
  writeFileSync(TEST_TOKEN_ARTIFACT_PATH, `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`wrote ${TEST_TOKEN_ARTIFACT_PATH}`);
}
