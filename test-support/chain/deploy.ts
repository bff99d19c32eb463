import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  type Address,
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getCreate2Address,
  type Hash,
  type Hex,
  isAddressEqual,
  keccak256,
  type PublicClient,
  parseAbi,
  parseEther,
  toHex,
  type WalletClient,
  zeroHash,
} from "viem";
import { entryPoint08Address } from "viem/account-abstraction";
import { readLatchkeyAccountArtifacts } from "./compileLatchkeyAccount.js";
import { counterBytecode } from "./counter.js";
import { mockPaymasterModules } from "./mockPaymaster.js";

/** Hardhat's well-known dev account #0 (hardhat.config.cjs): deploys, owns the paymaster, funds. Unlocked in the node. */
export const DEPLOYER: Address = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

/** Arachnid's deterministic CREATE2 deployer (https://github.com/Arachnid/deterministic-deployment-proxy). */
export const CREATE2_DEPLOYER: Address = "0x4e59b44847b379578588920ca78fbf26c0b4956c";
const CREATE2_DEPLOYER_SIGNER: Address = "0x3fab184622dc19b6109349b94811493bf2a45362";
/** Its pre-signed deployment (no chain id; 100 000 gas at 100 gwei, so its signer needs 0.01 ETH). */
const CREATE2_DEPLOYER_TX: Hex =
  "0xf8a58085174876e800830186a08080b853604580600e600039806000f350fe7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf31ba02222222222222222222222222222222222222222222222222222222222222222a02222222222222222222222222222222222222222222222222222222222222222";
/** The salt of EntryPoint v0.8's canonical deployment. */
const ENTRY_POINT_08_SALT: Hex = "0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9";
/** SimpleAccountFactory v0.8 through the CREATE2 deployer with salt 0: permissionless' default for 0.8. */
export const SIMPLE_ACCOUNT_FACTORY_08: Address = "0x13E9ed32155810FDbd067D4522C492D6f68E5944";
/**
 * LatchkeySimpleAccountFactory (contracts/LatchkeySimpleAccount.sol, the committed artifact) for EntryPoint
 * v0.8 through the CREATE2 deployer with salt 0: the factory of new 4337 accounts, which have ERC-1271.
 */
export const LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08: Address = "0x73666E96bfB48bCEAaf78F7186a760b50167E364";
/** Simple7702Account v0.8 through the CREATE2 deployer with salt 0: the EIP-7702 delegate permissionless uses. */
export const SIMPLE_7702_ACCOUNT_08: Address = "0xe6Cae83BdE06E4c305530e199D7217f42808555B";
/** What the paymaster holds in the EntryPoint after start. */
export const PAYMASTER_DEPOSIT = parseEther("100");

const paymasterAbi = parseAbi(["function deposit() payable", "function addSigner(address _signer)"]);

/** Where the stack's contracts are. */
export interface Deployment {
  entryPoint: Address;
  accountFactory: Address;
  /** LatchkeySimpleAccountFactory (SimpleAccount with ERC-1271) at LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08. */
  latchkeyAccountFactory: Address;
  /** Simple7702Account v0.8 (the delegate of 7702 accounts) at SIMPLE_7702_ACCOUNT_08. */
  simple7702Account: Address;
  paymaster: Address;
  counter: Address;
}

/** Sends transactions from the unlocked DEPLOYER account and waits until they are mined. */
export interface DevSender {
  send(tx: { to: Address; data?: Hex; value?: bigint; gas?: bigint }): Promise<Hash>;
  sendRaw(serialized: Hex): Promise<Hash>;
}

/** A DevSender over hardhat's `eth_sendTransaction` (the node signs and picks the nonce: safe to call concurrently). */
export function devSender(wallet: WalletClient, publicClient: PublicClient): DevSender {
  const mined = async (hash: Hash, what: string) => {
    for (let i = 0; i < 400; i++) {
      const receipt = await publicClient.request({ method: "eth_getTransactionReceipt", params: [hash] });
      if (receipt) {
        if (receipt.status !== "0x1") throw new Error(`${what} reverted (transaction ${hash})`);
        return hash;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`${what} was not mined (transaction ${hash})`);
  };
  return {
    async send({ to, data, value, gas }) {
      const hash = await wallet.request({
        method: "eth_sendTransaction",
        params: [
          {
            from: DEPLOYER,
            to,
            data,
            value: value === undefined ? undefined : toHex(value),
            gas: gas === undefined ? undefined : toHex(gas),
          },
        ],
      });
      return mined(hash, `transaction to ${to}`);
    },
    async sendRaw(serialized) {
      const hash = await publicClient.request({ method: "eth_sendRawTransaction", params: [serialized] });
      return mined(hash, "raw transaction");
    },
  };
}

function aaArtifactBytecode(name: string): Hex {
  const path = createRequire(import.meta.url).resolve(
    `@account-abstraction/contracts/artifacts/${name}.json`,
  );
  return (JSON.parse(readFileSync(path, "utf8")) as { bytecode: Hex }).bytecode;
}

/** A contract to deploy through the CREATE2 deployer. */
export interface Create2Deploy {
  name: string;
  salt: Hex;
  initCode: Hex;
}

/** Deploys through the CREATE2 deployer and returns where it landed (checked to hold code). */
async function create2(
  sender: DevSender,
  publicClient: PublicClient,
  deploy: Create2Deploy,
): Promise<Address> {
  const { name, salt, initCode } = deploy;
  const address = getCreate2Address({ from: CREATE2_DEPLOYER, salt, bytecodeHash: keccak256(initCode) });
  await sender.send({ to: CREATE2_DEPLOYER, data: concat([salt, initCode]), gas: 10_000_000n });
  await expectCode(publicClient, address, name);
  return address;
}

async function expectCode(publicClient: PublicClient, address: Address, name: string): Promise<void> {
  const code = await publicClient.getCode({ address });
  if (!code || code === "0x") throw new Error(`${name}: no code at ${address} after its deployment`);
}

function expectAddress(actual: Address, expected: Address, name: string): void {
  if (!isAddressEqual(actual, expected)) throw new Error(`${name} landed at ${actual}, not at ${expected}`);
}

/**
 * Deploys, on a fresh hardhat node: the CREATE2 deployer (its pre-signed transaction), EntryPoint v0.8 at its
 * canonical address, Simple7702Account v0.8 at its canonical address, SimpleAccountFactory v0.8,
 * LatchkeySimpleAccountFactory, Pimlico's SingletonPaymasterV8 (owner = manager = first
 * signer = DEPLOYER) with PAYMASTER_DEPOSIT in the EntryPoint, the Counter (CREATE2, salt 0) and `extra`.
 * Independent deployments go out together (hardhat mines each in its own block, in arrival order).
 */
export async function deployContracts(
  sender: DevSender,
  publicClient: PublicClient,
  extra: Create2Deploy[] = [],
): Promise<Deployment> {
  await sender.send({ to: CREATE2_DEPLOYER_SIGNER, value: parseEther("0.01") });
  await sender.sendRaw(CREATE2_DEPLOYER_TX);
  await expectCode(publicClient, CREATE2_DEPLOYER, "CREATE2 deployer");
  const deploy = (d: Create2Deploy) => create2(sender, publicClient, d);

  const entryPointInit = aaArtifactBytecode("EntryPoint");
  const [entryPoint, counter, simple7702Account] = await Promise.all([
    deploy({ name: "EntryPoint", salt: ENTRY_POINT_08_SALT, initCode: entryPointInit }),
    deploy({ name: "Counter", salt: zeroHash, initCode: counterBytecode() }),
    // No constructor: the EntryPoint it serves is a constant of its code.
    deploy({ name: "Simple7702Account", salt: zeroHash, initCode: aaArtifactBytecode("Simple7702Account") }),
    ...extra.map(deploy),
  ]);
  expectAddress(entryPoint, entryPoint08Address, "EntryPoint v0.8");
  expectAddress(simple7702Account, SIMPLE_7702_ACCOUNT_08, "Simple7702Account v0.8");

  // both constructors call the EntryPoint
  const factoryInit = concat([
    aaArtifactBytecode("SimpleAccountFactory"),
    encodeAbiParameters([{ type: "address" }], [entryPoint]),
  ]);
  const latchkeyFactoryInit = concat([
    readLatchkeyAccountArtifacts().LatchkeySimpleAccountFactory.bytecode,
    encodeAbiParameters([{ type: "address" }], [entryPoint]),
  ]);
  const { constants } = await mockPaymasterModules();
  const paymasterInit = constants.getSingletonPaymaster08InitCode(DEPLOYER);
  const [accountFactory, latchkeyAccountFactory, paymaster] = await Promise.all([
    deploy({ name: "SimpleAccountFactory", salt: zeroHash, initCode: factoryInit }),
    deploy({ name: "LatchkeySimpleAccountFactory", salt: zeroHash, initCode: latchkeyFactoryInit }),
    deploy({ name: "SingletonPaymasterV8", salt: zeroHash, initCode: paymasterInit }).then(
      async (address) => {
        const data = encodeFunctionData({ abi: paymasterAbi, functionName: "deposit" });
        await sender.send({ to: address, data, value: PAYMASTER_DEPOSIT });
        return address;
      },
    ),
  ]);
  expectAddress(accountFactory, SIMPLE_ACCOUNT_FACTORY_08, "SimpleAccountFactory v0.8");
  expectAddress(latchkeyAccountFactory, LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08, "LatchkeySimpleAccountFactory");
  return { entryPoint, accountFactory, latchkeyAccountFactory, simple7702Account, paymaster, counter };
}

/**
 * A Counter of its own (CREATE2 with `salt`) on a chain the stack deployed: a test file on the run's shared
 * chain (shared.ts) reads and moves its own number, whatever the other files do meanwhile.
 */
export function deployCounter(sender: DevSender, publicClient: PublicClient, salt: Hex): Promise<Address> {
  return create2(sender, publicClient, { name: "Counter", salt, initCode: counterBytecode() });
}

/** Calldata of the paymaster's `addSigner(signer)` (owner or manager only). */
export function addSignerCallData(signer: Address): Hex {
  return encodeFunctionData({ abi: paymasterAbi, functionName: "addSigner", args: [signer] });
}
