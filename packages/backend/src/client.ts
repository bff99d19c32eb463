import { fromHex, type Grant, stampWithPrivateKey, unreachableService } from "@latchkey/protocol";
import {
  type BackendEndpointName,
  type BackendRequestInput,
  type BackendResponse,
  backendApi,
} from "@latchkey/protocol/schemas";
import {
  type Address,
  type Hex,
  serializeTransaction,
  type TransactionSerializable,
  type TypedDataDefinition,
} from "viem";
import { BackendApiError } from "./errors";

/** What `createBackendClient` takes. */
export interface BackendClientOptions {
  /** The Latchkey service's base URL, e.g. https://auth.example.com */
  url: string;
  /** The app's id (`apps[].id`): the app the server key belongs to. */
  appId: string;
  /**
   * The app's server key: the P-256 private key `latchkey server-key create --out <file>` wrote (64 hex
   * digits; the file's text is taken as is), or its bytes. Its public key is in the app's `serverKeys`.
   */
  serverKey: string | Uint8Array;
  /** A fetch to send with (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** The clock the bodies' `timestampMs` come from (default Date.now). */
  now?: () => number;
}

/** Who a signature is for, and the grant it is made under. */
export interface UnderGrant {
  userId: string;
  grantId: string;
}

/** A signature made under a grant: the signature, the activity that records it, and the user's address. */
export interface GrantSignature {
  signature: Hex;
  activityId: string;
  address: Address;
}

/** A call of a user operation: its target, the native coin it sends (wei) and its data. */
export interface BackendCall {
  to: Address;
  value?: bigint;
  data?: Hex;
}

export interface SentUserOperation {
  userOperationHash: Hex;
  /** The user's smart account that sent it. */
  sender: Address;
  activityId: string;
  /** With `waitForReceipt`: the transaction that included it, and whether its calls succeeded. */
  transactionHash?: Hex;
  success?: boolean;
}

/** The app's backend acting for its users within their grants (`createBackendClient`). */
export interface BackendClient {
  /** Signs an EIP-191 message (text, or `{ raw }` bytes); the grant must allow messages. */
  signMessage(params: UnderGrant & { message: string | { raw: Hex } }): Promise<GrantSignature>;
  /** Signs EIP-712 typed data (a permit reads as its approve call; other typed data needs `typedData`). */
  signTypedData(params: UnderGrant & { typedData: TypedDataDefinition }): Promise<GrantSignature>;
  /** Signs an EVM transaction (chain, target, function and value within the grant). */
  signTransaction(
    params: UnderGrant & { transaction: TransactionSerializable },
  ): Promise<{ signedTransaction: Hex; activityId: string; address: Address }>;
  /**
   * Sends a user operation from the user's smart account (ERC-4337), sponsored by the app's policy
   * `policyId` when given; with `waitForReceipt`, answers once it is in a block.
   */
  sendUserOperation(
    params: UnderGrant & {
      chainId: number;
      calls: readonly BackendCall[];
      policyId?: string;
      waitForReceipt?: boolean;
    },
  ): Promise<SentUserOperation>;
  /** The grants the app's users made, newest first; those of one user with `userId`. */
  listGrants(userId?: string, options?: { status?: Grant["status"] }): Promise<Grant[]>;
}

/** Typed data as JSON: bigints as decimal strings (the service reads both). */
const json = (value: unknown) => JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v));

/**
 * A client of the service's backend API (`POST /backend/v1/*`) for the app's own server: every request is
 * stamped with the app's server key (X-Stamp over the exact body, single use), and every signature is
 * made within a grant the user gave the app (`wallet_grantPermissions`, or the modal's consent step),
 * recorded as an activity of that grant that the user sees in their security activity. A refusal throws
 * a `BackendApiError` with a stable `code`.
 *
 * @example
 * import { createBackendClient } from "@latchkey/backend";
 * const backend = createBackendClient({ url: "https://auth.example.com", appId: "shop", serverKey });
 * const [grant] = await backend.listGrants(userId, { status: "active" });
 * const { userOperationHash } = await backend.sendUserOperation({
 *   userId, grantId: grant.grantId, chainId: 8453, calls: [{ to: token, data }], policyId: "pol_bot",
 * });
 */
export function createBackendClient(options: BackendClientOptions): BackendClient {
  const key =
    typeof options.serverKey === "string"
      ? fromHex(options.serverKey.trim().replace(/^0x/, ""))
      : options.serverKey;
  if (key.length !== 32)
    throw new TypeError("serverKey must be a P-256 private key: 32 bytes, 64 hex digits");
  const base = options.url.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const now = options.now ?? Date.now;
  // Bodies are single use and stamps deterministic: two bodies in one millisecond would be one request.
  let lastTimestamp = 0;
  const timestampMs = () => {
    lastTimestamp = Math.max(now(), lastTimestamp + 1);
    return String(lastTimestamp);
  };

  async function call<N extends BackendEndpointName>(
    name: N,
    params: Omit<BackendRequestInput<N>, "type" | "appId" | "timestampMs">,
  ): Promise<BackendResponse<N>> {
    const endpoint = backendApi[name];
    const body = json({ type: endpoint.type, appId: options.appId, timestampMs: timestampMs(), ...params });
    const stamp = stampWithPrivateKey(body, key);
    const url = `${base}${endpoint.path}`;
    const res = await doFetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
      body,
    }).catch((error: unknown) => {
      throw unreachableService(url, error);
    });
    const text = await res.text();
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new BackendApiError("HTTP_ERROR", `HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
    }
    if (!res.ok) {
      const e = answer as { code?: string; error?: string; data?: Record<string, unknown> };
      throw new BackendApiError(
        (e.code ?? "HTTP_ERROR") as BackendApiError["code"],
        e.error ?? `HTTP ${res.status}`,
        res.status,
        e.data,
      );
    }
    return answer as BackendResponse<N>;
  }

  const signed = (r: { signature: string; activityId: string; address: string }): GrantSignature => ({
    signature: r.signature as Hex,
    activityId: r.activityId,
    address: r.address as Address,
  });

  return {
    async signMessage({ userId, grantId, message }) {
      return signed(await call("sign_message", { userId, grantId, message }));
    },
    async signTypedData({ userId, grantId, typedData }) {
      const { domain, types, primaryType, message } = JSON.parse(json(typedData)) as {
        domain?: Record<string, unknown>;
        types: Record<string, { name: string; type: string }[]>;
        primaryType: string;
        message: Record<string, unknown>;
      };
      // EIP712Domain is derived from the domain by the service, as by viem.
      const { EIP712Domain: _, ...ownTypes } = types;
      return signed(
        await call("sign_typed_data", {
          userId,
          grantId,
          typedData: { ...(domain ? { domain } : {}), types: ownTypes, primaryType, message },
        }),
      );
    },
    async signTransaction({ userId, grantId, transaction }) {
      const r = await call("sign_transaction", {
        userId,
        grantId,
        unsignedTransaction: serializeTransaction(transaction),
      });
      return {
        signedTransaction: r.signedTransaction as Hex,
        activityId: r.activityId,
        address: r.address as Address,
      };
    },
    async sendUserOperation({ userId, grantId, chainId, calls, policyId, waitForReceipt }) {
      const r = await call("send_user_operation", {
        userId,
        grantId,
        chainId,
        calls: calls.map((c) => ({
          to: c.to,
          ...(c.value === undefined ? {} : { value: c.value.toString() }),
          ...(c.data === undefined ? {} : { data: c.data }),
        })),
        ...(policyId === undefined ? {} : { policyId }),
        ...(waitForReceipt === undefined ? {} : { waitForReceipt }),
      });
      return {
        userOperationHash: r.userOperationHash as Hex,
        sender: r.sender as Address,
        activityId: r.activityId,
        ...(r.transactionHash ? { transactionHash: r.transactionHash as Hex } : {}),
        ...(r.success === undefined ? {} : { success: r.success }),
      };
    },
    async listGrants(userId, listOptions = {}) {
      const { grants } = await call("list_grants", {
        ...(userId === undefined ? {} : { userId }),
        ...(listOptions.status ? { status: listOptions.status } : {}),
      });
      return grants;
    },
  };
}
