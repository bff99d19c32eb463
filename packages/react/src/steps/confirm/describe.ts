import type { SigningRequest } from "@latchkey/core";
import {
  createTokenInfoReader,
  type Decoded,
  type DecodeOptions,
  decodeAuthorization,
  decodeMessage,
  decodeTransaction,
  decodeTypedData,
  type KnownAddress,
  type LocaleCode,
  type SummaryLine,
  summarize,
  type TokenInfoReader,
  type Warning,
} from "@latchkey/decoder";
import type { Address, Hex } from "viem";
import type { ConfirmationConfig } from "../../types";

/** Simple7702Account v0.8: the delegate of every Latchkey 7702 account, never flagged. */
export const SIMPLE_7702_ACCOUNT: KnownAddress = {
  address: "0xe6Cae83BdE06E4c305530e199D7217f42808555B",
  name: "Simple7702Account",
};

/** What the confirmation step shows of a request: the decoder's summary, each warning with its kind. */
export interface Description {
  decoded: Decoded;
  title: string;
  lines: SummaryLine[];
  warnings: { kind: Warning["kind"]; text: string }[];
}

/** The chains whose node the step may ask for a token's symbol and decimals. */
export type ChainRpc = (chainId: number) => string | undefined;

/** Reads tokens through each chain's JSON-RPC node (`eth_call`); unknown chains answer nothing. */
export function rpcTokenReader(rpcOf: ChainRpc, fetchFn: typeof fetch = fetch): TokenInfoReader {
  let id = 0;
  return createTokenInfoReader({
    async call({ chainId, to, data }) {
      const url = rpcOf(chainId);
      if (!url) throw new Error(`no node for chain ${chainId}`);
      const response = await fetchFn(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: ++id,
          method: "eth_call",
          params: [{ to, data }, "latest"],
        }),
      });
      const body = (await response.json()) as { result?: Hex; error?: unknown };
      if (typeof body.result !== "string") throw new Error("eth_call failed");
      return body.result;
    },
  });
}

/** The decoder's options from the app's `ui.confirmation`. */
export function decodeOptionsOf(
  config: ConfirmationConfig | undefined,
  tokens?: TokenInfoReader,
): DecodeOptions {
  const threshold = config?.valueThreshold;
  return {
    ...(tokens ? { tokens } : {}),
    ...(config?.knownSpenders ? { knownSpenders: config.knownSpenders as readonly KnownAddress[] } : {}),
    allowedDelegates: [SIMPLE_7702_ACCOUNT, ...((config?.allowedDelegates ?? []) as readonly KnownAddress[])],
    ...(threshold !== undefined && threshold !== "" ? { valueThreshold: BigInt(threshold) } : {}),
  };
}

/** Decodes a request as the wallet received it. Never throws (the decoder answers `unreadable`). */
export async function decodeRequest(request: SigningRequest, options: DecodeOptions): Promise<Decoded> {
  switch (request.kind) {
    case "message":
      return decodeMessage({ raw: request.message });
    case "typedData":
      return decodeTypedData(request.typedData, options);
    case "authorization":
      return decodeAuthorization(request, options);
    case "transaction":
      return decodeTransaction(
        {
          chainId: request.chainId,
          from: request.from,
          ...(request.to !== undefined ? { to: request.to } : {}),
          ...(request.value !== undefined ? { value: request.value } : {}),
          ...(request.data !== undefined ? { data: request.data } : {}),
          ...(request.authorizationList ? { authorizationList: request.authorizationList } : {}),
        },
        options,
      );
  }
}

/**
 * The request in the locale's sentences: title, one line per action, each warning with its kind (the step
 * puts its label before it).
 */
export async function describeRequest(
  request: SigningRequest,
  options: DecodeOptions,
  locale: LocaleCode,
): Promise<Description> {
  const decoded = await decodeRequest(request, options);
  const names = [...(options.knownSpenders ?? []), ...(options.allowedDelegates ?? [])];
  const summary = summarize(decoded, { locale, names });
  return {
    decoded,
    title: summary.title,
    lines: summary.lines,
    warnings: decoded.warnings.map((w, i) => ({ kind: w.kind, text: summary.warnings[i] ?? "" })),
  };
}

/** The address a request is signed by, when it names one (a transaction's sender). */
export const senderOf = (request: SigningRequest): Address | undefined =>
  request.kind === "transaction" ? request.from : undefined;
