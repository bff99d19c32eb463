import type { Activity, PayloadEncoding, SignTransactionResult } from "@latchkey/protocol";
import { signerRoutes } from "@latchkey/protocol/wire";
import type {
  AuthorizationRequest,
  CustomSource,
  Hex,
  LocalAccount,
  SignableMessage,
  TransactionSerializable,
} from "viem";
import { signRawMessage } from "../actions/signRawMessage";
import { ActivityError, SignerError } from "../errors";
import { confirmSigning, type SigningRequest } from "../signer/confirmation";
import { requireSigningUser } from "../signer/guards";
import type { SignerBase } from "../signer/types";

// viem loads with the first signature, not with the modal: the account itself is plain data (what
// viem's `toAccount` returns), and every method is async anyway.
const loadViem = () => import("viem");

/**
 * The signed-in user's EVM wallet as a viem LocalAccount: `signMessage` (EIP-191), `signTypedData`
 * (EIP-712), `signTransaction` (legacy, EIP-1559, EIP-7702, ...) and `signAuthorization` (EIP-7702).
 * Every signature is made by the service with the session held by the key holder. Transactions go to
 * the service whole (`sign_transaction`), so the app's signing policy can refuse one (an ActivityError,
 * REJECTED) or hold it for an app admin (CONSENSUS_NEEDED: `waitForActivity(signer, { activityId })`
 * then gives it signed once approved). Messages, typed data (a smart account's user operations too) and
 * authorizations go whole as well, in their own payload encodings, and the service hashes them: the
 * policy reads what is signed. Only `sign({ hash })` sends a bare digest (a raw payload).
 *
 *
 * Before each signature the user may be asked to confirm it (the modal's confirmation step, when the app's
 * `ui.confirmTransactions` is on or `options.confirm` asks for it); a refusal is a SignerError
 * USER_REJECTED. A bare digest (`sign({ hash })`) cannot be shown and is not confirmed.
 *
 * @example
 * const client = createWalletClient({ account: toViemAccount(signer), chain, transport: http() });
 */
export function toViemAccount(signer: SignerBase, options: ToViemAccountOptions = {}): LocalAccount {
  const { confirm } = options;
  const user = signer.store.getState().user;
  if (!user) throw new SignerError("NOT_AUTHENTICATED");
  const sign = (hash: `0x${string}`) => signRawMessage(signer, { message: hash, mode: "ETHEREUM" });
  /** Signs a payload the service reads, once the user confirmed `request` (when confirmations are on). */
  const signPayload = async (
    encoding: PayloadEncoding,
    payload: string,
    request: DistributiveOmit<SigningRequest, "activity">,
  ): Promise<Hex> => {
    const current = await requireSigningUser(signer);
    const parameters = {
      signWith: current.address,
      payload,
      encoding,
      hashFunction: "HASH_FUNCTION_NOT_APPLICABLE" as const,
    };
    await confirmSigning(
      signer,
      { ...request, activity: { type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", parameters } } as SigningRequest,
      confirm,
    );
    const { signature } = await signer.client.callStamped(signerRoutes.signPayload, {
      organizationId: current.orgId,
      parameters,
    });
    return signature;
  };
  const source: CustomSource = {
    address: user.address,
    sign: ({ hash }) => sign(hash),
    signMessage: async ({ message }: { message: SignableMessage }) => {
      const hex = messageHex(await loadViem(), message);
      return signPayload("PAYLOAD_ENCODING_EIP191_MESSAGE", hex, { kind: "message", message: hex });
    },
    signTypedData: async (typedData) => {
      const json = toJson(await loadViem(), typedData);
      return signPayload("PAYLOAD_ENCODING_EIP712", json, { kind: "typedData", typedData: JSON.parse(json) });
    },
    async signTransaction(transaction, options) {
      const { keccak256, parseSignature, parseTransaction, serializeTransaction } = await loadViem();
      const serializer = options?.serializer ?? serializeTransaction;
      const tx = transaction as TransactionSerializable;
      // EIP-4844 signs the payload body without the sidecars (as viem's own signTransaction does).
      const signable = tx.type === "eip4844" ? { ...tx, sidecars: false as const } : tx;
      const unsigned = await serializer(signable as never);
      if (options?.serializer) {
        // A chain's own transaction format, which the service cannot read: its hash is signed as a raw
        // payload (which an app's signing policy may refuse).
        await confirmSigning(signer, transactionRequest(user.address, tx), confirm);
        return serializer(transaction as never, parseSignature(await sign(keccak256(unsigned))));
      }
      // The service reads the transaction, so the app's signing policy sees its chain, target and value.
      const current = await requireSigningUser(signer);
      const parameters = {
        signWith: current.address,
        unsignedTransaction: unsigned,
        type: "TRANSACTION_TYPE_ETHEREUM" as const,
      };
      await confirmSigning(
        signer,
        {
          ...transactionRequest(current.address, tx),
          activity: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", parameters },
        },
        confirm,
      );
      const activity = await signer.client.submit("sign_transaction", {
        type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
        organizationId: current.orgId,
        parameters,
      });
      const signedTransaction = signedTransactionOf(activity);
      if (tx.type !== "eip4844") return signedTransaction;
      const { r, s, v, yParity } = parseTransaction(signedTransaction);
      return serializer(transaction as never, { r, s, v, yParity } as never);
    },
    async signAuthorization(authorization: AuthorizationRequest) {
      const viem = await loadViem();
      const address = authorization.contractAddress ?? authorization.address;
      const { r, s, v, yParity } = viem.parseSignature(
        await signPayload(
          "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
          toJson(viem, { chainId: authorization.chainId, address, nonce: authorization.nonce }),
          { kind: "authorization", chainId: authorization.chainId, address, nonce: authorization.nonce },
        ),
      );
      return { address, chainId: authorization.chainId, nonce: authorization.nonce, r, s, v, yParity };
    },
  };
  // As viem's `toAccount(source)` makes it (the address is the service's, so it is not checked again).
  return { ...source, nonceManager: undefined, source: "custom", type: "local" } as LocalAccount;
}

/** How `toViemAccount` signs. */
export interface ToViemAccountOptions {
  /** Every signature of this account is shown to the user first (the modal's confirmation step). */
  confirm?: boolean;
}

type Viem = Awaited<ReturnType<typeof loadViem>>;
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** What the user confirms of a transaction: its chain, target, value, data and delegations. */
function transactionRequest(
  from: Hex,
  tx: TransactionSerializable,
): Extract<SigningRequest, { kind: "transaction" }> {
  const list = (tx as { authorizationList?: readonly Record<string, unknown>[] }).authorizationList;
  return {
    kind: "transaction",
    chainId: tx.chainId ?? 0,
    from,
    ...(tx.to !== undefined ? { to: tx.to } : {}),
    ...(tx.value !== undefined ? { value: tx.value } : {}),
    ...(tx.data !== undefined ? { data: tx.data } : {}),
    ...(list
      ? {
          authorizationList: list.map((a) => ({
            chainId: Number(a.chainId),
            address: (a.address ?? a.contractAddress) as Hex,
            nonce: Number(a.nonce),
          })),
        }
      : {}),
  };
}

/** The signed transaction of a completed `sign_transaction` activity. */
function signedTransactionOf(activity: Activity): Hex {
  const { signTransactionResult } = activity.result as {
    signTransactionResult?: Partial<SignTransactionResult>;
  };
  const signed = signTransactionResult?.signedTransaction;
  if (typeof signed !== "string" || !signed.startsWith("0x")) {
    throw new ActivityError({
      id: activity.id,
      status: activity.status,
      failure: { code: "NO_RESULT", message: "The signing activity carried no signed transaction" },
    });
  }
  return signed;
}

/** An EIP-191 message's bytes as hex: a string is UTF-8, `raw` is taken as is. */
function messageHex({ bytesToHex, stringToHex }: Viem, message: SignableMessage): Hex {
  if (typeof message === "string") return stringToHex(message);
  return typeof message.raw === "string" ? message.raw : bytesToHex(message.raw);
}

/** JSON with bigints as decimal strings and bytes as hex (typed data values; the service reads both). */
function toJson({ bytesToHex }: Viem, value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? bytesToHex(v) : v,
  );
}
