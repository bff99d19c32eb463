import {
  concat,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  getCreate2Address,
  type Hex,
  keccak256,
  parseAbi,
  zeroHash,
} from "viem";
import {
  LATCHKEY_SIMPLE_ACCOUNT_FACTORY_V08,
  SIMPLE_ACCOUNT_FACTORY_V08,
} from "../../features/sponsorship/evm/config";

/**
 * The accounts that run calls for a signer: its own EOA (which runs `execute`/`executeBatch` when it
 * calls itself once delegated to Simple7702Account) and the 4337 accounts of salt 0 it owns (which run
 * them for their owner). Lower-case.
 */
export type OwnAccounts = ReadonlySet<Hex>;

const initializeAbi = parseAbi(["function initialize(address anOwner)"]);

/**
 * `type(ERC1967Proxy).creationCode` as each factory embeds it: SimpleAccountFactory v0.8 (its canonical
 * deployment) and LatchkeySimpleAccountFactory (test-support/chain/contracts). Checked against the
 * factories' `getAddress(owner, 0)` on the local chain (grants.test.ts).
 */
const SIMPLE_ACCOUNT_PROXY: Hex =
  "0x60806040526102a88038038061001481610168565b92833981016040828203126101645781516001600160a01b03811692909190838303610164576020810151906001600160401b03821161016457019281601f8501121561016457835161006e610069826101a1565b610168565b9481865260208601936020838301011161016457815f926020809301865e86010152823b15610152577f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc80546001600160a01b031916821790557fbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b5f80a282511561013a575f8091610122945190845af43d15610132573d91610113610069846101a1565b9283523d5f602085013e6101bc565b505b604051608d908161021b8239f35b6060916101bc565b50505034156101245763b398979f60e01b5f5260045ffd5b634c9c8ce360e01b5f5260045260245ffd5b5f80fd5b6040519190601f01601f191682016001600160401b0381118382101761018d57604052565b634e487b7160e01b5f52604160045260245ffd5b6001600160401b03811161018d57601f01601f191660200190565b906101e057508051156101d157805190602001fd5b63d6bda27560e01b5f5260045ffd5b81511580610211575b6101f1575090565b639996b31560e01b5f9081526001600160a01b0391909116600452602490fd5b50803b156101e956fe60806040525f8073ffffffffffffffffffffffffffffffffffffffff7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc5416368280378136915af43d5f803e156053573d5ff35b3d5ffdfea264697066735822122012ef914fc5c0fe0eff95047a7f10780a737a1ca4f30269b985bcf38a18e4d23464736f6c634300081c0033";
const LATCHKEY_SIMPLE_ACCOUNT_PROXY: Hex =
  "0x608060405260405161038038038061038083398101604081905261002291610238565b8051610041576040516330a289cf60e21b815260040160405180910390fd5b61004b8282610052565b5050610307565b61005b826100b0565b6040516001600160a01b038316907fbc7cd75a20ee27fd9adebab32041f755214dbc6bffa90cc0225b39da2e5c2d3b905f90a28051156100a45761009f828261012b565b505050565b6100ac6101cc565b5050565b806001600160a01b03163b5f036100ea57604051634c9c8ce360e01b81526001600160a01b03821660048201526024015b60405180910390fd5b7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc80546001600160a01b0319166001600160a01b0392909216919091179055565b60605f61013884846101ed565b905080801561015957505f3d118061015957505f846001600160a01b03163b115b1561016e57610166610200565b9150506101c6565b801561019857604051639996b31560e01b81526001600160a01b03851660048201526024016100e1565b3d156101ab576101a6610219565b6101c4565b60405163d6bda27560e01b815260040160405180910390fd5b505b92915050565b34156101eb5760405163b398979f60e01b815260040160405180910390fd5b565b5f5f5f835160208501865af49392505050565b6040513d81523d5f602083013e3d602001810160405290565b6040513d5f823e3d81fd5b634e487b7160e01b5f52604160045260245ffd5b5f5f60408385031215610249575f5ffd5b82516001600160a01b038116811461025f575f5ffd5b60208401519092506001600160401b0381111561027a575f5ffd5b8301601f8101851361028a575f5ffd5b80516001600160401b038111156102a3576102a3610224565b604051601f8201601f19908116603f011681016001600160401b03811182821017156102d1576102d1610224565b6040528181528282016020018710156102e8575f5ffd5b8160208401602083015e5f602083830101528093505050509250929050565b606d806103135f395ff3fe6080604052600a600c565b005b60186014601a565b6050565b565b5f604b7f360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc546001600160a01b031690565b905090565b365f5f375f5f365f845af43d5f5f3e8080156069573d5ff35b3d5ffd";

/** Each factory with the proxy it deploys; its account implementation is its first CREATE (nonce 1). */
const FACTORIES = [
  { factory: SIMPLE_ACCOUNT_FACTORY_V08 as Hex, proxy: SIMPLE_ACCOUNT_PROXY },
  { factory: LATCHKEY_SIMPLE_ACCOUNT_FACTORY_V08 as Hex, proxy: LATCHKEY_SIMPLE_ACCOUNT_PROXY },
].map((f) => ({ ...f, implementation: getContractAddress({ from: f.factory, nonce: 1n }) }));

/**
 * The address `factory.getAddress(owner, salt)` answers, computed offline (CREATE2 of the ERC1967 proxy
 * to the factory's implementation, initialized for `owner`): no call to a chain per signature.
 */
export function simpleAccountAddress(params: {
  factory: "SimpleAccountFactory" | "LatchkeySimpleAccountFactory";
  owner: Hex;
  salt?: bigint;
}): Hex {
  const f = FACTORIES[params.factory === "SimpleAccountFactory" ? 0 : 1] as (typeof FACTORIES)[number];
  const args = encodeAbiParameters(
    [{ type: "address" }, { type: "bytes" }],
    [
      f.implementation,
      encodeFunctionData({ abi: initializeAbi, functionName: "initialize", args: [params.owner] }),
    ],
  );
  const salt = params.salt ? (`0x${params.salt.toString(16).padStart(64, "0")}` as Hex) : zeroHash;
  return getCreate2Address({
    from: f.factory,
    salt,
    bytecodeHash: keccak256(concat([f.proxy, args])),
  }).toLowerCase() as Hex;
}

const MAX_CACHED = 1024;
const cache = new Map<string, OwnAccounts>();

/**
 * The accounts that run calls for `signer` (an EVM address; none for anything else): the EOA itself and
 * its SimpleAccount and LatchkeySimpleAccount of salt 0 from the canonical factories (the accounts
 * Latchkey makes). Another wallet of the same user is not among them: its account runs `execute` only
 * for itself, its owner or the EntryPoint, never for this signer. Cached (two keccak256 of 1–2 KB).
 */
export function ownAccounts(signer: string | undefined): OwnAccounts {
  if (!signer || !/^0x[0-9a-fA-F]{40}$/.test(signer)) return EMPTY;
  const owner = signer.toLowerCase() as Hex;
  let accounts = cache.get(owner);
  if (!accounts) {
    accounts = new Set([
      owner,
      simpleAccountAddress({ factory: "SimpleAccountFactory", owner }),
      simpleAccountAddress({ factory: "LatchkeySimpleAccountFactory", owner }),
    ]);
    if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
    cache.set(owner, accounts);
  }
  return accounts;
}

const EMPTY: OwnAccounts = new Set();
