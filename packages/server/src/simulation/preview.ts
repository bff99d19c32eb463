import {
  type Action,
  createTokenInfoReader,
  type Decoded,
  decodeAuthorization,
  decodeMessage,
  decodeSolanaTransaction,
  decodeTransaction,
  decodeTypedData,
  decodeUserOperation,
  summarize,
  type TokenInfoReader,
  type Warning,
} from "@latchkey/decoder";
import type {
  ActivityType,
  PreviewAction,
  PreviewLocale,
  PreviewPolicy,
  PreviewSimulation,
  PreviewSummary,
  PreviewWarning,
  SigningPreview,
} from "@latchkey/protocol";
import { getAddress, type Hex } from "viem";
import type { ConfiguredChain, ServiceContext } from "../context";
import type { ActivityInput } from "../keyManagement/defineActivity";
import {
  evaluatePolicy,
  type PolicyDecision,
  type SigningRequest,
} from "../keyManagement/policies/evaluatePolicy";
import { isStructuredEncoding, readStructuredPayload } from "../keyManagement/policies/structuredPayloads";
import { parseUnsignedTransaction } from "../keyManagement/policies/unsignedTransaction";
import { ACCOUNT_MESSAGE_TYPE, verifiedAccountOriginal } from "./accountMessage";
import { httpJsonRpc, type JsonRpc, type SimulatedCall, simulateCalls } from "./simulate";

/**
 * A signing request read for a person and a policy before it is signed (issue 46): decoded
 * (`@latchkey/decoder`, token symbols and decimals read from the chain and cached), simulated on the
 * chain's node (simulate.ts) and asked of the app's signing policy — without signing or recording
 * anything. `preview_signing` answers it; a held signature keeps it for the app's admins.
 */

/** The signing activities a preview reads, with their parameters. */
export type PreviewableRequest =
  | {
      type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2";
      parameters: ActivityInput<"ACTIVITY_TYPE_SIGN_TRANSACTION_V2">["params"];
    }
  | {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2";
      parameters: ActivityInput<"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2">["params"];
    }
  | {
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS";
      parameters: ActivityInput<"ACTIVITY_TYPE_SIGN_RAW_PAYLOADS">["params"];
    };

export const PREVIEWABLE_TYPES: ReadonlySet<string> = new Set<ActivityType>([
  "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
]);

export type PreviewContext = Pick<ServiceContext, "apps"> & { chains?: ServiceContext["chains"] };

/** One reader per service's chains: symbols and decimals cached per chain and address (1 h, 1000 tokens). */
const readers = new WeakMap<object, TokenInfoReader>();
function tokensOf(chains: ServiceContext["chains"] | undefined): TokenInfoReader | undefined {
  if (!chains || chains.size === 0) return undefined;
  let reader = readers.get(chains);
  if (!reader) {
    reader = createTokenInfoReader({
      call: async ({ chainId, to, data }) => {
        const chain = chains.get(chainId);
        if (!chain) throw new Error(`no RPC for chain ${chainId}`);
        return ((await chain.client.call({ to, data })).data ?? "0x") as Hex;
      },
    });
    readers.set(chains, reader);
  }
  return reader;
}

/** What a decoding gives a preview, before its simulation and policy. */
interface Read {
  decoded: Decoded | null;
  kind: SigningPreview["kind"];
  chainId?: number;
  /** A smart account's message or typed data, read through the hash its owner signs (accountMessage.ts). */
  account?: `0x${string}`;
  /** What to simulate, when anything: the calls and whose balances. */
  simulate?: {
    chainId: number;
    calls: SimulatedCall[];
    account: `0x${string}`;
    userOperation?: { sender: `0x${string}`; entryPoint: `0x${string}` | null };
  };
}

export interface PreviewParameters {
  appId: string;
  request: PreviewableRequest;
  /** The request as the app's policy reads it (its activity's `signingRequest`); none: allowed. */
  signingRequest?: SigningRequest;
  locale?: PreviewLocale;
  simulationTimeoutMs?: number;
  /** false: decode only (token symbols still read), no simulation: e.g. a refused signature's audit summary. */
  simulate?: boolean;
}

/**
 * The preview of one signing request for the app `appId`'s signer `signWith` (checked by the caller to
 * be the user's): decoded, simulated (unless `simulate: false`) and decided by the app's policy.
 */
export async function previewSigningRequest(
  ctx: PreviewContext,
  params: PreviewParameters,
): Promise<SigningPreview> {
  return (await readPreview(ctx, params)).preview;
}

/** A preview as a held activity keeps it (`activities.preview`): in English, with its summary in every language. */
export interface StoredPreview {
  preview: SigningPreview;
  summaries: Record<PreviewLocale, PreviewSummary>;
}

const LOCALES: readonly PreviewLocale[] = ["en", "de", "fr", "es"];

/** The preview of a held signature, as stored with it (JSON), so its admins read it in their language. */
export async function storedPreviewOf(
  ctx: PreviewContext,
  params: PreviewParameters,
): Promise<StoredPreview> {
  const { preview, reads } = await readPreview(ctx, params);
  const summaries = Object.fromEntries(LOCALES.map((l) => [l, summaryOf(reads, l)])) as Record<
    PreviewLocale,
    PreviewSummary
  >;
  return { preview, summaries };
}

/** A stored preview (`activities.preview`) in `locale`; undefined when there is none or it cannot be read. */
export function previewFromStored(
  json: string | null | undefined,
  locale: PreviewLocale = "en",
): SigningPreview | undefined {
  if (!json) return undefined;
  try {
    const stored = JSON.parse(json) as StoredPreview;
    return { ...stored.preview, summary: stored.summaries[locale] ?? stored.preview.summary };
  } catch {
    return undefined;
  }
}

async function readPreview(
  ctx: PreviewContext,
  params: PreviewParameters,
): Promise<{ preview: SigningPreview; reads: Read[] }> {
  const { request } = params;
  const tokens = tokensOf(ctx.chains);
  const reads = await readsOf(request, tokens);
  const first = reads[0] as Read;
  const simulation: PreviewSimulation =
    params.simulate === false
      ? { status: "unavailable", reason: "notApplicable", message: "Not simulated" }
      : await simulationOf(ctx, first, reads.length, tokens, params.simulationTimeoutMs);
  const policy = await ctx.apps.signingPolicyOf(params.appId);
  const { signingRequest } = params;
  const decision = signingRequest
    ? evaluatePolicy(policy, signingRequest, { simulation })
    : ({ effect: "allow" } as const);
  const preview: SigningPreview = {
    ...(first.chainId !== undefined ? { chainId: first.chainId } : {}),
    kind: first.kind,
    actions: reads.flatMap((r) =>
      r.decoded && "actions" in r.decoded ? r.decoded.actions.map(toJson) : [],
    ) as PreviewAction[],
    warnings: reads.flatMap((r) => (r.decoded ? r.decoded.warnings.map(toJson) : [])) as PreviewWarning[],
    summary: summaryOf(reads, params.locale ?? "en"),
    simulation,
    policy: policyOf(decision, policy?.rules),
  };
  return { preview, reads };
}

/** The policy's decision as a preview shows it: the rule's id and description (or why it refuses). */
export function policyOf(
  decision: PolicyDecision,
  rules?: readonly { id: string; description?: string | undefined }[],
): PreviewPolicy {
  if (decision.effect === "allow")
    return decision.ruleId ? { effect: "allow", ruleId: decision.ruleId } : { effect: "allow" };
  const description = rules?.find((r) => r.id === decision.ruleId)?.description ?? decision.message;
  return { effect: decision.effect, ruleId: decision.ruleId, description };
}

async function readsOf(request: PreviewableRequest, tokens: TokenInfoReader | undefined): Promise<Read[]> {
  const options = tokens ? { tokens } : {};
  if (request.type === "ACTIVITY_TYPE_SIGN_TRANSACTION_V2") {
    const { signWith } = request.parameters;
    const tx = parseUnsignedTransaction(request.parameters.unsignedTransaction);
    const from = signWith.toLowerCase() as `0x${string}`;
    const chainId = tx.chainId;
    if (chainId === undefined) return [{ decoded: null, kind: "transaction" }];
    const decoded = await decodeTransaction(
      {
        chainId,
        from,
        to: tx.to ?? null,
        value: tx.value ?? 0n,
        data: (tx.data ?? "0x") as Hex,
        ...(tx.authorizationList ? { authorizationList: tx.authorizationList } : {}),
      },
      options,
    );
    return [
      {
        decoded,
        kind: "transaction",
        chainId,
        simulate: {
          chainId,
          account: from,
          calls: [
            {
              from,
              to: (tx.to?.toLowerCase() as `0x${string}`) ?? null,
              data: (tx.data ?? "0x") as Hex,
              value: tx.value ?? 0n,
            },
          ],
        },
      },
    ];
  }
  const { signWith, encoding, hashFunction } = request.parameters;
  const payloads =
    request.type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
      ? [request.parameters.payload]
      : request.parameters.payloads;
  return Promise.all(
    payloads.map(async (payload): Promise<Read> => {
      if (!isStructuredEncoding(encoding)) {
        // Bytes for a Solana account: a transaction (or its message) the decoder may read.
        if (!signWith.startsWith("0x") && encoding === "PAYLOAD_ENCODING_HEXADECIMAL") {
          const decoded = decodeSolanaTransaction(Buffer.from(payload.replace(/^0x/, ""), "hex"));
          if (decoded.kind === "solanaTransaction") return { decoded, kind: "solanaTransaction" };
        }
        return { decoded: null, kind: "raw" };
      }
      const structured = readStructuredPayload(payload, encoding, hashFunction);
      if (structured.encoding === "PAYLOAD_ENCODING_EIP191_MESSAGE")
        return { decoded: decodeMessage({ raw: structured.message }), kind: "message" };
      if (structured.encoding === "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION") {
        const decoded = decodeAuthorization(structured.authorization);
        return { decoded, kind: "authorization", chainId: structured.authorization.chainId };
      }
      const { typedData } = structured;
      const domain = (typedData.domain ?? {}) as { chainId?: number | bigint; verifyingContract?: string };
      const chainId = domain.chainId === undefined ? undefined : Number(domain.chainId);
      const message = typedData.message as Record<string, unknown>;
      if (
        typedData.primaryType === "PackedUserOperation" &&
        chainId !== undefined &&
        typeof message.sender === "string"
      ) {
        const sender = message.sender.toLowerCase() as `0x${string}`;
        const callData = String(message.callData) as Hex;
        const decoded = await decodeUserOperation({ chainId, sender, callData }, options);
        if (decoded.kind === "userOperation") {
          const entryPoint = domain.verifyingContract
            ? (domain.verifyingContract.toLowerCase() as `0x${string}`)
            : null;
          return {
            decoded,
            kind: "userOperation",
            chainId,
            simulate: {
              chainId,
              account: sender,
              calls: [{ from: entryPoint ?? sender, to: sender, data: callData, value: 0n }],
              userOperation: { sender, entryPoint },
            },
          };
        }
      }
      if (typedData.primaryType === ACCOUNT_MESSAGE_TYPE && domain.verifyingContract) {
        const original = verifiedAccountOriginal(payload, message.hash);
        const account = domain.verifyingContract.toLowerCase() as `0x${string}`;
        if (original?.kind === "message")
          return { decoded: decodeMessage({ raw: original.raw }), kind: "message", account };
        if (original?.kind === "typedData") {
          const inner = await decodeTypedData(original.typedData as never, options);
          return {
            decoded: inner,
            kind: "typedData",
            account,
            ...(chainId !== undefined ? { chainId } : {}),
          };
        }
      }
      const decoded = await decodeTypedData(typedData as never, options);
      return { decoded, kind: "typedData", ...(chainId !== undefined ? { chainId } : {}) };
    }),
  );
}

async function simulationOf(
  ctx: PreviewContext,
  read: Read,
  count: number,
  tokens: TokenInfoReader | undefined,
  timeoutMs: number | undefined,
): Promise<PreviewSimulation> {
  const target = read.simulate;
  if (!target || count > 1)
    return {
      status: "unavailable",
      reason: "notApplicable",
      message: "Only a transaction or a user operation is simulated",
    };
  const chain = ctx.chains?.get(target.chainId);
  if (!chain)
    return {
      status: "unavailable",
      reason: "noRpc",
      message: `The service has no RPC for chain ${target.chainId}`,
    };
  const rpc = rpcOf(chain);
  if (target.userOperation) {
    // The EntryPoint calls the account with the operation's callData (execute/executeBatch): what its
    // calls do. An account not deployed yet (its first operation) has no code to run them.
    const code = await chain.client.getCode({ address: target.userOperation.sender }).catch(() => undefined);
    if (!code || code === "0x")
      return {
        status: "unavailable",
        reason: "unsupported",
        message: "The account is not deployed yet: its first operation is not simulated",
      };
    const entryPoint = target.userOperation.entryPoint ?? (chain.entryPoint.toLowerCase() as `0x${string}`);
    const calls = target.calls.map((c) => ({ ...c, from: entryPoint }));
    return simulateCalls({
      rpc,
      chainId: target.chainId,
      calls,
      account: target.account,
      ...(tokens ? { tokens } : {}),
      timeoutMs: timeoutMs ?? chain.simulationTimeoutMs,
    });
  }
  return simulateCalls({
    rpc,
    chainId: target.chainId,
    calls: target.calls,
    account: target.account,
    ...(tokens ? { tokens } : {}),
    timeoutMs: timeoutMs ?? chain.simulationTimeoutMs,
  });
}

const rpcs = new WeakMap<ConfiguredChain, JsonRpc>();
function rpcOf(chain: ConfiguredChain): JsonRpc {
  let rpc = rpcs.get(chain);
  if (!rpc) {
    rpc = httpJsonRpc(chain.rpcUrl);
    rpcs.set(chain, rpc);
  }
  return rpc;
}

const RAW_TITLE: Record<PreviewLocale, string> = {
  en: "Raw signature",
  de: "Rohe Signatur",
  fr: "Signature brute",
  es: "Firma sin formato",
};
const RAW_LINE: Record<PreviewLocale, string> = {
  en: "Signs a hash whose content cannot be read",
  de: "Signiert einen Hash, dessen Inhalt nicht lesbar ist",
  fr: "Signe un hachage dont le contenu est illisible",
  es: "Firma un hash cuyo contenido no se puede leer",
};

/**
 * A LatchkeySimpleAccount (4337) signs a message or typed data as the owner's signature of
 * `LatchkeySimpleAccountMessage(bytes32 hash)`: only the hash reaches the owner, so it is said plainly.
 */
const ACCOUNT_HASH_WARNING: Record<PreviewLocale, string> = {
  en: "Signs a hash for your smart account: what it stands for cannot be read",
  de: "Signiert einen Hash für Ihr Smart-Konto: wofür er steht, ist nicht lesbar",
  fr: "Signe un hachage pour votre compte intelligent : ce qu’il représente est illisible",
  es: "Firma un hash para su cuenta inteligente: no se puede leer lo que representa",
};

/** The line under a smart account's message read through its hash: whose signature it becomes. */
const ACCOUNT_LINE: Record<PreviewLocale, string> = {
  en: "Signed as your smart account",
  de: "Signiert als Ihr Smart-Konto",
  fr: "Signé en tant que votre compte intelligent",
  es: "Firmado como su cuenta inteligente",
};
const shortAddress = (a: `0x${string}`) => {
  const checksummed = getAddress(a);
  return `${checksummed.slice(0, 6)}…${checksummed.slice(-4)}`;
};

function summaryOf(reads: Read[], locale: PreviewLocale): PreviewSummary {
  const summaries = reads.map((r) => {
    if (!r.decoded)
      return { title: RAW_TITLE[locale], lines: [{ text: RAW_LINE[locale], depth: 0 }], warnings: [] };
    const summary = summarize(r.decoded, { locale });
    if (r.account)
      return {
        ...summary,
        lines: [...summary.lines, { text: `${ACCOUNT_LINE[locale]} ${shortAddress(r.account)}`, depth: 0 }],
      };
    return r.decoded.kind === "typedData" && r.decoded.primaryType === ACCOUNT_MESSAGE_TYPE
      ? { ...summary, warnings: [...summary.warnings, ACCOUNT_HASH_WARNING[locale]] }
      : summary;
  });
  return {
    title: summaries[0]?.title ?? RAW_TITLE[locale],
    lines: summaries.flatMap((s) => s.lines),
    warnings: summaries.flatMap((s) => s.warnings),
  };
}

/** A decoded action or warning as JSON: bigints as decimal strings, dates as ISO text. */
export function toJson(value: Action | Warning): PreviewAction {
  return JSON.parse(
    JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v)),
  ) as PreviewAction;
}

/**
 * A signature's decoded summary as the audit log keeps it: its title and lines in English, short (at most
 * 8 lines of 160 characters). Addresses, amounts and token symbols only: nothing secret is signed here.
 */
export function auditSummary(stored: StoredPreview): string[] {
  const summary = stored.summaries.en ?? stored.preview.summary;
  return [summary.title, ...summary.lines.map((l) => `${"  ".repeat(l.depth)}${l.text}`)]
    .slice(0, 9)
    .map((t) => (t.length > 160 ? `${t.slice(0, 159)}…` : t));
}
