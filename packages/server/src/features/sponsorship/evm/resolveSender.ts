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
import type { ConfiguredChain, ServiceContext } from "../../../context";
import { RpcError, rpcError } from "../jsonRpc";

const factoryAbi = parseAbi([
  "function createAccount(address owner, uint256 salt) returns (address)",
  "function getAddress(address owner, uint256 salt) view returns (address)",
]);
const accountAbi = parseAbi(["function owner() view returns (address)"]);

/** The code of an EOA delegated by EIP-7702: 0xef0100 ‖ the delegate's 20 bytes. */
const DELEGATION_PREFIX = "0xef0100";

/** What kind of account the sender is: a SimpleAccount of the factory, or an EOA delegated by EIP-7702. */
export type SenderKind = "4337" | "7702";

/**
 * Whose account the operation's sender is. An EIP-7702 account: the sender is the embedded EVM wallet of
 * one of this app's users, delegated to one of the policy's `implementations` — by its code (0xef0100 ‖
 * delegate), or by the operation's `eip7702Auth` for the first operation (which delegates it). Otherwise
 * the owner of a SimpleAccount made by one of the chain's account factories (SimpleAccountFactory, or
 * LatchkeySimpleAccountFactory for LatchkeySimpleAccounts),
 * which must be the embedded EVM wallet of one of this app's users. The factory proves the account: a new
 * one (factory and factoryData present) must be `createAccount(owner, salt)` of a configured factory with
 * `getAddress(owner, salt) == sender`; a deployed one must answer `owner()` and be
 * `getAddress(owner, accountSalt)` of one of them (salt 0, as permissionless makes it, unless the client
 * says otherwise).
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
    /** The EIP-7702 authorization the operation carries, if any. */
    eip7702Auth?: { address: Address; chainId: number } | undefined;
    /** The implementations a 7702 sender may delegate to (the policy's `allowedImplementations`). */
    implementations: readonly Address[];
  },
): Promise<{ userId: string; owner: Address; kind: SenderKind }> {
  const { chain, sender } = params;
  const allowedDelegate = (delegate: Address, how: string) => {
    if (!params.implementations.some((i) => getAddress(i) === getAddress(delegate)))
      throw unsupported(
        `${sender} ${how} ${getAddress(delegate)}, not an implementation this policy sponsors (allowedImplementations)`,
      );
  };
  if (params.eip7702Auth) {
    if (params.factory) throw unsupported("An operation with an EIP-7702 authorization has no factory");
    const { address: delegate, chainId } = params.eip7702Auth;
    if (chainId !== 0 && chainId !== chain.chainId)
      throw unsupported(`The EIP-7702 authorization is for chain ${chainId}, not ${chain.chainId}`);
    allowedDelegate(delegate, "would delegate to");
    return { ...(await userOf(ctx, { appId: params.appId, wallet: sender, sender })), kind: "7702" };
  }
  if (!params.factory) {
    const code = await onChain(() => chain.client.getCode({ address: sender })).catch((e: unknown) => {
      throw e === REVERTED ? unsupported(`The code of ${sender} cannot be read`) : e;
    });
    if (code?.toLowerCase().startsWith(DELEGATION_PREFIX) && code.length === 48) {
      allowedDelegate(`0x${code.slice(DELEGATION_PREFIX.length)}`, "delegates to");
      return { ...(await userOf(ctx, { appId: params.appId, wallet: sender, sender })), kind: "7702" };
    }
  }
  const factories = [chain.accountFactory, chain.latchkeyAccountFactory];
  const factoryAt = (factory: Address, owner: Address, salt: bigint) =>
    onChain(() =>
      chain.client.readContract({
        address: factory,
        abi: factoryAbi,
        functionName: "getAddress",
        args: [owner, salt],
      }),
    ).catch((e: unknown) => {
      throw e === REVERTED ? unsupported(`The account factory ${factory} does not answer`) : e;
    });
  let owner: Address;
  if (params.factory) {
    const factory = params.factory;
    if (!factories.includes(factory))
      throw unsupported(
        `Only accounts of the SimpleAccountFactory ${chain.accountFactory} or the LatchkeySimpleAccountFactory ${chain.latchkeyAccountFactory} are sponsored`,
      );
    let decoded: ReturnType<typeof decodeFunctionData<typeof factoryAbi>>;
    try {
      decoded = decodeFunctionData({ abi: factoryAbi, data: params.factoryData ?? "0x" });
    } catch {
      throw unsupported("factoryData must be createAccount(owner, salt)");
    }
    if (decoded.functionName !== "createAccount")
      throw unsupported("factoryData must be createAccount(owner, salt)");
    const [createdOwner, salt] = decoded.args;
    owner = createdOwner;
    if (getAddress(await factoryAt(factory, owner, salt)) !== sender)
      throw unsupported(`${sender} is not the account createAccount(${owner}, ${salt}) makes`);
  } else {
    owner = await onChain(() =>
      chain.client.readContract({ address: sender, abi: accountAbi, functionName: "owner" }),
    ).catch((e: unknown) => {
      throw e === REVERTED ? unsupported(`${sender} is not a deployed SimpleAccount`) : e;
    });
    const salt = params.accountSalt;
    // A factory that is not deployed on this chain makes none of its accounts.
    const made = await Promise.all(
      factories.map((f) =>
        factoryAt(f, owner, salt).then(
          (a) => getAddress(a) === sender,
          (e: unknown) => (isUnsupported(e) ? false : Promise.reject(e)),
        ),
      ),
    );
    if (!made.includes(true))
      throw unsupported(
        `${sender} is not a SimpleAccount of the factories ${factories.join(" or ")} (salt ${salt}; pass context.accountSalt for another)`,
      );
  }
  return { ...(await userOf(ctx, { appId: params.appId, wallet: owner, sender })), kind: "4337" };
}

/**
 * The app's user whose embedded EVM wallet `wallet` is (the sender's owner, or the 7702 sender itself);
 * USER_DISABLED when an admin disabled that user.
 */
async function userOf(
  ctx: Pick<ServiceContext, "db">,
  params: { appId: string; wallet: Address; sender: Address },
): Promise<{ userId: string; owner: Address }> {
  const { wallet, sender } = params;
  const user = await ctx.db
    .selectFrom("wallet_accounts")
    .innerJoin("users", "users.org_id", "wallet_accounts.org_id")
    .select(["users.id", "users.disabled_at"])
    .where("wallet_accounts.address_key", "=", wallet.toLowerCase())
    .where("wallet_accounts.address_format", "=", "ADDRESS_FORMAT_ETHEREUM")
    .where("users.app_id", "=", params.appId)
    .executeTakeFirst();
  if (!user)
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.UNKNOWN_SENDER,
      wallet === sender
        ? `${sender} is not the wallet of a user of this app`
        : `The owner of ${sender} is not a user of this app`,
      { sender },
    );
  // A user an admin disabled gets nothing sponsored, whatever the policy's limits.
  if (user.disabled_at != null)
    throw rpcError(
      RpcErrorCode.TRANSACTION_REJECTED,
      SponsorshipErrorCode.USER_DISABLED,
      `The user of ${sender} is disabled by an admin of this app`,
      { sender },
    );
  return { userId: user.id, owner: getAddress(wallet) };
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

const isUnsupported = (e: unknown) =>
  e instanceof RpcError && e.reason === SponsorshipErrorCode.UNSUPPORTED_ACCOUNT;

function unsupported(message: string) {
  return rpcError(RpcErrorCode.TRANSACTION_REJECTED, SponsorshipErrorCode.UNSUPPORTED_ACCOUNT, message);
}
