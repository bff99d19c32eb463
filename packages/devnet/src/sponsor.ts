import { isAddress as isSolanaAddress } from "@solana/kit";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  encodeFunctionData,
  http,
  isAddress,
  parseAbi,
} from "viem";
import { DEPLOYER, devSender } from "../../../test-support/chain/deploy.js";
import { localChain, mockPaymasterModules } from "../../../test-support/chain/index.js";
import { airdrop, FEE_PAYER_LAMPORTS } from "./devnet.js";

const paymasterAbi = parseAbi([
  "function addSigner(address _signer)",
  "function signers(address) view returns (bool)",
]);

/** The devnet's paymaster: Pimlico's SingletonPaymasterV8 deployed by CREATE2, owned by hardhat's account #0. */
export async function devnetPaymaster(): Promise<Address> {
  const { constants } = await mockPaymasterModules();
  return constants.getSingletonPaymaster08Address(DEPLOYER);
}

/** Whether the paymaster on the chain at `rpcUrl` accepts `signer`'s signatures. */
export async function isPaymasterSigner(rpcUrl: string, signer: Address): Promise<boolean> {
  const client = createPublicClient({
    chain: localChain(rpcUrl),
    transport: http(rpcUrl, { retryCount: 0 }),
  });
  return client.readContract({
    address: await devnetPaymaster(),
    abi: paymasterAbi,
    functionName: "signers",
    args: [signer],
  });
}

/** Makes the devnet's paymaster (chain at `rpcUrl`) accept `signer`; resolves once mined. */
export async function addPaymasterSigner(rpcUrl: string, signer: Address): Promise<void> {
  if (!isAddress(signer)) throw new Error(`not an EVM address: ${signer}`);
  const chain = localChain(rpcUrl);
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 100 });
  const sender = devSender(createWalletClient({ chain, transport }), publicClient);
  const data = encodeFunctionData({ abi: paymasterAbi, functionName: "addSigner", args: [signer] });
  await sender.send({ to: await devnetPaymaster(), data });
}

/** Airdrops a Solana fee payer (1,000 SOL by default) on the devnet's Solana node. */
export async function fundFeePayer(
  solanaUrl: string,
  feePayer: string,
  lamports = FEE_PAYER_LAMPORTS,
): Promise<string> {
  if (!isSolanaAddress(feePayer)) throw new Error(`not a Solana address: ${feePayer}`);
  return airdrop(solanaUrl, feePayer, lamports);
}
