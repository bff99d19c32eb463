import { RpcErrorCode, SponsorshipErrorCode } from "@latchkey/protocol";
import {
  type Address,
  BaseError,
  decodeFunctionData,
  getAddress,
  type Hex,
  HttpRequestError,
  parseAbi,
  TimeoutError,
} from "viem";
import type { ConfiguredChain, ServiceContext } from "../../context";
import { rpcError } from "./jsonRpc";

const factoryAbi = parseAbi([
  "function createAccount(address owner, uint256 salt) returns (address)",
  "function getAddress(address owner, uint256 salt) view returns (address)",
]);
const accountAbi = parseAbi(["function owner() view returns (address)"]);

/**
 * Whose account the operation's sender is: the owner of a SimpleAccount made by the chain's account factory,
 * which must be the embedded EVM wallet of one of this app's users. The factory proves the account: a new
 * one (factory and factoryData present) must be `createAccount(owner, salt)` of the configured factory with
 * `getAddress(owner, salt) == sender`; a deployed one must answer `owner()` and be
 * `getAddress(owner, accountSalt)` (salt 0, as permissionless makes it, unless the client says otherwise).
 * A contract that merely answers `owner()` with a user's address is not that user's account.
 */
export async function resolveSender(
  ctx: Pick<ServiceContext, "db">,
  params: {
    chain: ConfiguredChain;
    appId: string;
    sender: Address;
    factory: Address | undefined;
    factoryData: Hex | undefined;
    accountSalt: bigint;
  },
): Promise<{ userId: string; owner: Address }> {
  const { chain, sender } = params;
  let owner: Address;
  let salt: bigint;
  if (params.factory) {
    if (params.factory !== chain.accountFactory)
      throw unsupported(`Only accounts of the SimpleAccountFactory ${chain.accountFactory} are sponsored`);
    let decoded: ReturnType<typeof decodeFunctionData<typeof factoryAbi>>;
    try {
      decoded = decodeFunctionData({ abi: factoryAbi, data: params.factoryData ?? "0x" });
    } catch {
      throw unsupported("factoryData must be createAccount(owner, salt)");
    }
    if (decoded.functionName !== "createAccount")
      throw unsupported("factoryData must be createAccount(owner, salt)");
    [owner, salt] = decoded.args;
  } else {
    owner = await onChain(() =>
      chain.client.readContract({ address: sender, abi: accountAbi, functionName: "owner" }),
    ).catch((e: unknown) => {
      throw e === REVERTED ? unsupported(`${sender} is not a deployed SimpleAccount`) : e;
    });
    salt = params.accountSalt;
  }
  const expected = await onChain(() =>
    chain.client.readContract({
      address: chain.accountFactory,
      abi: factoryAbi,
      functionName: "getAddress",
      args: [owner, salt],
    }),
  ).catch((e: unknown) => {
    throw e === REVERTED ? unsupported(`The account factory ${chain.accountFactory} does not answer`) : e;
  });
  if (getAddress(expected) !== sender)
    throw unsupported(
      params.factory
        ? `${sender} is not the account createAccount(${owner}, ${salt}) makes`
        : `${sender} is not a SimpleAccount of the factory ${chain.accountFactory} (salt ${salt}; pass context.accountSalt for another)`,
    );
  const user = await ctx.db
    .selectFrom("wallet_accounts")
    .innerJoin("users", "users.org_id", "wallet_accounts.org_id")
    .select("users.id")
    .where("wallet_accounts.address_key", "=", owner.toLowerCase())
    .where("wallet_accounts.address_format", "=", "ADDRESS_FORMAT_ETHEREUM")
    .where("users.app_id", "=", params.appId)
    .executeTakeFirst();
  if (!user)
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.UNKNOWN_SENDER,
      `The owner of ${sender} is not a user of this app`,
      { sender },
    );
  return { userId: user.id, owner: getAddress(owner) };
}

const REVERTED = Symbol("reverted");

/**
 * Runs a read on the chain: a node that does not answer is "unavailable"; a call that reverts or returns
 * nothing rejects with REVERTED for the caller to name.
 */
export async function onChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (!(e instanceof BaseError)) throw e;
    if (e.walk((x) => x instanceof HttpRequestError || x instanceof TimeoutError))
      throw rpcError(
        RpcErrorCode.RESOURCE_UNAVAILABLE,
        SponsorshipErrorCode.CHAIN_UNAVAILABLE,
        "The chain's node did not answer; try again",
      );
    throw REVERTED;
  }
}

function unsupported(message: string) {
  return rpcError(RpcErrorCode.TRANSACTION_REJECTED, SponsorshipErrorCode.UNSUPPORTED_ACCOUNT, message);
}
