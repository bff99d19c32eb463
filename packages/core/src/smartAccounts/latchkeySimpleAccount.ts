// Loaded on first use, with ./client.
import { SimpleSmartAccount } from "permissionless/accounts/simple";
import {
  type Address,
  type Chain,
  type Hex,
  hashMessage,
  hashTypedData,
  type LocalAccount,
  type PublicClient,
  serializeErc6492Signature,
  type Transport,
  type TypedDataDefinition,
  toHex,
} from "viem";
import type { SmartAccount } from "viem/account-abstraction";

/**
 * LatchkeySimpleAccountFactory for EntryPoint v0.8: the CREATE2 deployer's (0x4e59…956c) deployment with salt
 * 0 of the committed artifact (test-support/chain/contracts/LatchkeySimpleAccount.json), the same address on
 * every chain where it is deployed. Its accounts are eth-infinitism's SimpleAccount v0.8 with ERC-1271.
 */
export const LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08: Address = "0x73666E96bfB48bCEAaf78F7186a760b50167E364";

/**
 * What the owner signs for a LatchkeySimpleAccount's `hash` (its `replaySafeHash`): EIP-712 typed data
 * `LatchkeySimpleAccountMessage(bytes32 hash)` under the account's own domain, so that the signature is
 * valid for that account on that chain only.
 */
export function replaySafeTypedData(account: Address, chainId: number, hash: Hex) {
  return {
    domain: { name: "LatchkeySimpleAccount", version: "1", chainId, verifyingContract: account },
    types: { LatchkeySimpleAccountMessage: [{ name: "hash", type: "bytes32" }] },
    primaryType: "LatchkeySimpleAccountMessage",
    message: { hash },
  } as const;
}

/** What a replay-safe hash stands for, sent beside it for the user's review (`latchkeyOriginal`). */
type AccountOriginal =
  | { kind: "message"; message: Hex }
  | { kind: "typedData"; typedData: TypedDataDefinition };

/**
 * A LatchkeySimpleAccount owned by `owner` (a SimpleAccount v0.8 of LatchkeySimpleAccountFactory, salt 0):
 * permissionless' SimpleAccount with signatures that verify for the account's address — `signMessage`
 * (EIP-191), `signTypedData` (EIP-712) and `sign({ hash })` are the owner's signature of the replay-safe
 * typed data, checked on chain by the account's ERC-1271 `isValidSignature`; while the account is not
 * deployed the signature is wrapped for ERC-6492 (the factory and its `createAccount` call around it).
 */
export async function toLatchkeySimpleAccount(params: {
  client: PublicClient<Transport, Chain>;
  owner: LocalAccount;
  entryPoint: { address: Address; version: "0.8" };
  factoryAddress?: Address;
}): Promise<SmartAccount> {
  const { client, owner, entryPoint } = params;
  const factoryAddress = params.factoryAddress ?? LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08;
  const account = await SimpleSmartAccount.toSimpleSmartAccount({
    client,
    owner,
    entryPoint,
    factoryAddress,
  });
  const chainId = client.chain.id;
  // What the hash stands for goes beside the typed data (outside what is hashed), so the service can show
  // the user the message itself: it reads it only when it hashes to `hash` (issue 46).
  const signHash = async (hash: Hex, original?: AccountOriginal): Promise<Hex> => {
    const typedData = replaySafeTypedData(account.address, chainId, hash);
    const [signature, { factory, factoryData }] = await Promise.all([
      owner.signTypedData(
        (original ? { ...typedData, latchkeyOriginal: original } : typedData) as typeof typedData,
      ),
      account.getFactoryArgs(),
    ]);
    return factory && factoryData
      ? serializeErc6492Signature({ address: factory, data: factoryData, signature })
      : signature;
  };
  return {
    ...account,
    sign: ({ hash }: { hash: Hex }) => signHash(hash),
    signMessage: ({ message }) =>
      signHash(hashMessage(message), {
        kind: "message",
        message:
          typeof message === "string"
            ? toHex(message)
            : typeof message.raw === "string"
              ? message.raw
              : toHex(message.raw),
      }),
    signTypedData: (typedData) =>
      signHash(hashTypedData(typedData as TypedDataDefinition), {
        kind: "typedData",
        typedData: typedData as TypedDataDefinition,
      }),
  } as SmartAccount;
}
