// Loaded on first use (actions/getSmartAccountClient.ts imports it with `import()`): viem's
// account-abstraction module and permissionless' SimpleAccount stay out of an app's initial JavaScript.
import { queryTypes, signerRoutes } from "@latchkey/protocol";
import { SimpleSmartAccount } from "permissionless/accounts/simple";
import {
  type Chain,
  type Client,
  concat,
  createPublicClient,
  http,
  type SignedAuthorization,
  type Transport,
} from "viem";
import {
  createBundlerClient,
  createPaymasterClient,
  entryPoint08Address,
  type SmartAccount,
} from "viem/account-abstraction";
import { getCode, getTransactionCount } from "viem/actions";
import { toViemAccount } from "../accounts/toViemAccount";
import { SmartAccountError } from "../errors/smartAccount";
import { requireUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";
import type {
  LatchkeySmartAccountClient,
  SmartAccountChainConfig,
  SmartAccountContract,
  SmartAccountKind,
} from "../types/smartAccounts";
import { toLatchkeySimpleAccount } from "./latchkeySimpleAccount";

const DEFAULT_POLLING_INTERVAL_MS = 1_000;

/**
 * The ERC-7677 paymaster a chain's sponsorship goes through: the service's `/rpc/v1` unless configured,
 * or `url` (an operation's own paymaster service). Only the service's endpoint gets the app's credentials
 * and the user's stamp (`X-Stamp`: the session key over the exact body, which the service asks for before
 * it charges the user's daily limits).
 */
export function paymasterClientFor(signer: SignerBase, config: SmartAccountChainConfig, url?: string) {
  const { options } = signer._internal;
  const token = options.apiKey ?? options.jwt;
  const serviceUrl = `${signer.client.baseUrl}/rpc/v1`;
  const target = url ?? config.paymasterUrl ?? serviceUrl;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const stamped: typeof fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? init.body : "";
    const { stampHeaderName, stampHeaderValue } = await signer.client.keyHolder.stamp(body);
    const headers = new Headers(init?.headers);
    headers.set(stampHeaderName, stampHeaderValue);
    return doFetch(input, { ...init, headers });
  };
  const ours = target === serviceUrl;
  return createPaymasterClient({
    transport: http(target, {
      ...(ours ? { fetchFn: stamped } : options.fetch ? { fetchFn: options.fetch } : {}),
      fetchOptions: token && ours ? { headers: { authorization: `Bearer ${token}` } } : {},
      retryCount: 0,
    }),
  });
}

/**
 * `/v1/whoami` whose signed body proposes `smartAccountKind` (built here, not in SignerClient, so that the
 * modal's initial JavaScript does not carry it).
 */
async function whoamiProposing(signer: SignerBase, orgId: string, smartAccountKind: SmartAccountKind) {
  const stampedRequest = await signer.client.stampRequest("/public/v1/query/whoami", {
    type: queryTypes.whoami,
    organizationId: orgId,
    smartAccountKind,
  });
  return signer.client.call(signerRoutes.whoami, { stampedRequest });
}

/** The user's smart account as the service records it. */
interface RecordedAccount {
  kind: SmartAccountKind;
  contract: SmartAccountContract;
}

/** The account asked of the service per signer and user, once per page. */
const kinds = new WeakMap<SignerBase, Map<string, Promise<RecordedAccount>>>();

/**
 * The user's smart account as the service records it: the app's default (`smartAccount.kind`, "7702"
 * unless said) is proposed in a whoami the session signs, and the service keeps the first kind a user
 * got; a new 4337 user gets a LatchkeySimpleAccount, one recorded before keeps their SimpleAccount. A
 * service that records none (older than 7702 accounts) means a SimpleAccount, as before.
 */
function recordedAccountOf(signer: SignerBase): Promise<RecordedAccount> {
  return requireUser(signer).then((user) => {
    let byUser = kinds.get(signer);
    if (!byUser) {
      byUser = new Map();
      kinds.set(signer, byUser);
    }
    let recorded = byUser.get(user.userId);
    if (!recorded) {
      const proposed = signer._internal.options.smartAccount?.kind ?? "7702";
      recorded = whoamiProposing(signer, user.orgId, proposed).then((who): RecordedAccount => {
        if (who.smartAccountKind === "7702") return { kind: "7702", contract: "Simple7702Account" };
        return { kind: "4337", contract: who.smartAccountContract ?? "SimpleAccount" };
      });
      byUser.set(user.userId, recorded);
      recorded.catch(() => byUser.delete(user.userId));
    }
    return recorded;
  });
}

/**
 * The user's smart account on one chain behind a viem bundler client, sponsored by the chain's policy
 * when it has one: kind "7702", the embedded wallet's EOA delegated to Simple7702Account (permissionless'
 * 7702 SimpleAccount; the first operation carries the authorization, signedAuthorizationFor); kind "4337",
 * a LatchkeySimpleAccount the embedded wallet owns (SimpleAccount v0.8 with ERC-1271: its signatures
 * verify for its address), or the eth-infinitism SimpleAccount of users who got one before.
 */
export async function createSmartAccountClient(
  signer: SignerBase,
  config: SmartAccountChainConfig,
): Promise<LatchkeySmartAccountClient> {
  const pollingInterval = config.pollingInterval ?? DEFAULT_POLLING_INTERVAL_MS;
  const fetchOptions = signer._internal.options.fetch ? { fetchFn: signer._internal.options.fetch } : {};
  const publicClient = createPublicClient({
    chain: config.chain,
    transport: http(config.rpcUrl, fetchOptions),
    pollingInterval,
  });
  const owner = toViemAccount(signer);
  const entryPoint = { address: entryPoint08Address, version: "0.8" } as const;
  const { kind: smartAccountKind, contract: smartAccountContract } = await recordedAccountOf(signer);
  const account =
    smartAccountContract === "Simple7702Account"
      ? await SimpleSmartAccount.to7702SimpleSmartAccount({ client: publicClient, owner, entryPoint })
      : smartAccountContract === "LatchkeySimpleAccount"
        ? await toLatchkeySimpleAccount({ client: publicClient, owner, entryPoint })
        : await SimpleSmartAccount.toSimpleSmartAccount({ client: publicClient, owner, entryPoint });
  // Explicit type arguments: the result is LatchkeySmartAccountClient as declared. Inferring them and
  // casting the result made tsc compare viem's whole inferred client type with it: ~180 s of checking.
  const client = createBundlerClient<Transport, Chain, SmartAccount, Client | undefined>({
    account,
    chain: config.chain,
    client: publicClient,
    transport: http(config.bundlerUrl, { ...fetchOptions, retryCount: 0 }),
    pollingInterval,
    ...(config.policyId
      ? { paymaster: paymasterClientFor(signer, config), paymasterContext: { policyId: config.policyId } }
      : {}),
  });
  return Object.assign(client, { smartAccountKind, smartAccountContract });
}

/**
 * 7702 accounts whose EOA is known to delegate to their implementation, for this page: only an
 * authorization the service signs (to the app's allowed delegates) would change that.
 */
const delegated = new WeakSet<SmartAccount>();

/**
 * The EIP-7702 authorization a 7702 account's operation must carry while its EOA does not delegate to
 * Simple7702Account yet (its first operation): signed by the service as an activity, for the EOA's
 * current nonce (the bundler, not the EOA, sends the transaction). None for a 4337 account, or once the
 * EOA's code is 0xef0100 ‖ the implementation.
 */
export async function signedAuthorizationFor(
  client: LatchkeySmartAccountClient,
): Promise<SignedAuthorization | undefined> {
  const { account } = client;
  const authorization = account.authorization;
  if (!authorization || delegated.has(account)) return undefined;
  const publicClient = client.client as Client;
  const address = account.address;
  const code = await getCode(publicClient, { address });
  if (code?.toLowerCase() === concat(["0xef0100", authorization.address]).toLowerCase()) {
    delegated.add(account);
    return undefined;
  }
  const nonce = await getTransactionCount(publicClient, { address, blockTag: "pending" });
  const sign = authorization.account.signAuthorization;
  if (!sign)
    throw new SmartAccountError("USER_OPERATION_FAILED", {
      details: "The embedded wallet cannot sign an EIP-7702 authorization",
    });
  return sign({ chainId: client.chain.id, address: authorization.address, nonce });
}
