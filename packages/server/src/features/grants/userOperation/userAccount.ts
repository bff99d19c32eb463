import {
  type Address,
  type Chain,
  encodeFunctionData,
  type Hex,
  type PublicClient,
  parseAbi,
  type Transport,
} from "viem";
import {
  entryPoint08Abi,
  getUserOperationTypedData,
  type SmartAccount,
  toSmartAccount,
} from "viem/account-abstraction";
import type { ConfiguredChain } from "../../../context";
import { simpleAccountCallsAbi } from "../../../userOperations/decodeCalls";

const factoryAbi = parseAbi([
  "function createAccount(address owner, uint256 salt) returns (address)",
  "function getAddress(address owner, uint256 salt) view returns (address)",
]);

/** The smart account a user got (users/smartAccountKind.ts): their EOA by EIP-7702, or a 4337 account. */
export type UserAccountContract = "Simple7702Account" | "SimpleAccount" | "LatchkeySimpleAccount";

/** The EIP-712 typed data of a user operation, as the account's owner signs it. */
export type UserOperationTypedData = ReturnType<typeof getUserOperationTypedData>;

const STUB_SIGNATURE: Hex =
  "0xfffffffffffffffffffffffffffffff0000000000000000000000000000000007aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1c";

/**
 * The user's smart account on one chain, as the service sends for them (EntryPoint v0.8): their EOA
 * delegated to Simple7702Account, or the SimpleAccount (or LatchkeySimpleAccount) of salt 0 it owns — the
 * same accounts @latchkey/core makes in the browser. Every one signs a user operation as its owner's
 * signature of the operation's EIP-712 typed data, which `signTypedData` makes (under the grant).
 */
export async function userSmartAccount(params: {
  client: PublicClient<Transport, Chain>;
  chain: ConfiguredChain;
  owner: Address;
  contract: UserAccountContract;
  signTypedData: (typedData: UserOperationTypedData) => Promise<Hex>;
}): Promise<SmartAccount> {
  const { client, chain, owner, contract } = params;
  const entryPoint = { abi: entryPoint08Abi, address: chain.entryPoint as Address, version: "0.8" } as const;
  const factory = (
    contract === "LatchkeySimpleAccount" ? chain.latchkeyAccountFactory : chain.accountFactory
  ) as Address;
  const address =
    contract === "Simple7702Account"
      ? owner
      : await client.readContract({
          address: factory,
          abi: factoryAbi,
          functionName: "getAddress",
          args: [owner, 0n],
        });
  const unsupported = () => {
    throw new Error("Only user operations are signed for this account");
  };
  // No owner account: the operation's typed data goes to `signTypedData`, and a 7702 account's first
  // operation carries the authorization signed before (authorization.ts), passed to prepareUserOperation.
  return toSmartAccount({
    client,
    entryPoint,
    async encodeCalls(calls) {
      const [first] = calls;
      if (calls.length === 1 && first)
        return encodeFunctionData({
          abi: simpleAccountCallsAbi,
          functionName: "execute",
          args: [first.to, first.value ?? 0n, first.data ?? "0x"],
        });
      return encodeFunctionData({
        abi: simpleAccountCallsAbi,
        functionName: "executeBatch",
        args: [calls.map((c) => ({ target: c.to, value: c.value ?? 0n, data: c.data ?? "0x" }))],
      });
    },
    async getAddress() {
      return address;
    },
    async getFactoryArgs() {
      if (contract === "Simple7702Account") return { factory: undefined, factoryData: undefined };
      return {
        factory,
        factoryData: encodeFunctionData({
          abi: factoryAbi,
          functionName: "createAccount",
          args: [owner, 0n],
        }),
      };
    },
    async getStubSignature() {
      return STUB_SIGNATURE;
    },
    signMessage: unsupported,
    signTypedData: unsupported,
    async signUserOperation(parameters) {
      const { chainId = client.chain.id, ...userOperation } = parameters;
      return params.signTypedData(
        getUserOperationTypedData({
          chainId,
          entryPointAddress: entryPoint.address,
          userOperation: { ...userOperation, sender: address },
        }),
      );
    },
  });
}
