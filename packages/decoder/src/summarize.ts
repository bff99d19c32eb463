import { type Address, formatUnits, getAddress } from "viem";
import { de } from "./texts/de";
import { en } from "./texts/en";
import { es } from "./texts/es";
import { fr } from "./texts/fr";
import type { DecoderTexts, LocaleCode } from "./texts/types";
import type { Action, Decoded, KnownAddress, TokenInfo, TokenRef, Warning } from "./types";
import { flatActions, knownName } from "./warnings";

export interface SummarizeOptions {
  /** The language: en (default), de, fr or es. */
  locale?: LocaleCode;
  /** Texts of another language, or the app's wording: replaces `locale`'s table (`locale` still formats numbers). */
  texts?: DecoderTexts;
  /** The app's token list: symbols and decimals for tokens the decoding did not read. */
  tokens?: readonly TokenInfo[];
  /** Names for addresses (the app's contracts, known spenders, allowed delegates). */
  names?: readonly KnownAddress[];
  /** The chain's currency; by default ETH, or POL, BNB, xDAI, AVAX on their chains. */
  nativeCurrency?: { symbol: string; decimals: number };
}

/** One line of a summary; `depth` > 0 for the calls a smart account runs. */
export interface SummaryLine {
  text: string;
  depth: number;
}

export interface Summary {
  title: string;
  lines: SummaryLine[];
  warnings: string[];
  /** Title, lines (indented by depth) and warnings as one text: for a log or a terminal. */
  text: string;
}

export const locales: Record<LocaleCode, DecoderTexts> = { en, de, fr, es };

/**
 * Text the request brings (typed data, SIWE, a message, a token's symbol) shown as it is, but with every
 * control and format character (bidi overrides, zero-width characters) made visible as U+FFFD: none can
 * then reorder or hide what a person reads. A message keeps its line breaks and tabs.
 */
export function clean(text: string, keepLines = false): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, (c) => (keepLines && (c === "\n" || c === "\t") ? c : "\ufffd"));
}

const CHAINS: Record<number, string> = {
  1: "Ethereum",
  10: "OP Mainnet",
  56: "BNB Chain",
  100: "Gnosis",
  137: "Polygon",
  8453: "Base",
  42161: "Arbitrum One",
  43114: "Avalanche",
  84532: "Base Sepolia",
  11155111: "Sepolia",
};
const NATIVE: Record<number, string> = { 56: "BNB", 100: "xDAI", 137: "POL", 43114: "AVAX" };

/**
 * A decoded request in sentences: a title, one line per action, one per warning, in the locale's words.
 *
 * @example
 * summarize(await decodeTransaction(tx, { tokens }), { locale: "en" });
 * // → { title: "Transaction on Ethereum", lines: [{ text: "Send 1.5 USDC to 0x1234…abcd", depth: 0 }], warnings: [], … }
 */
export function summarize(decoded: Decoded, options: SummarizeOptions = {}): Summary {
  const t = options.texts ?? locales[options.locale ?? "en"] ?? en;
  const lang = options.locale ?? "en";
  const f = formatter(decoded, t, lang, options);
  const lines: SummaryLine[] = [];
  let title: string;

  switch (decoded.kind) {
    case "transaction":
      title = t.transactionTitle({ chain: f.chain(decoded.chainId) });
      f.actions(decoded.actions, 0, lines);
      for (const a of decoded.authorizations) lines.push({ text: f.authorization(a), depth: 0 });
      break;
    case "userOperation":
      title = t.userOperationTitle({ chain: f.chain(decoded.chainId) });
      f.actions(decoded.actions, 0, lines);
      break;
    case "typedData": {
      const contract = decoded.domain.verifyingContract;
      const app =
        decoded.domain.name !== undefined ? clean(decoded.domain.name) : contract ? f.address(contract) : "?";
      title = t.typedDataTitle({ primaryType: clean(decoded.primaryType), app });
      f.actions(decoded.actions, 0, lines);
      for (const field of decoded.fields)
        lines.push({ text: t.field({ name: clean(field.name), value: clean(field.value) }), depth: 0 });
      break;
    }
    case "authorization":
      title = t.authorizationTitle({ chain: decoded.chainId === 0 ? t.anyChain : f.chain(decoded.chainId) });
      lines.push({ text: f.authorization(decoded), depth: 0 });
      break;
    case "siwe":
      title = t.siweTitle({ domain: clean(decoded.domain) });
      lines.push({
        text: t.siweSignIn({ domain: clean(decoded.domain), address: f.address(decoded.address) }),
        depth: 0,
      });
      if (decoded.statement)
        lines.push({ text: t.siweStatement({ statement: clean(decoded.statement) }), depth: 0 });
      lines.push({ text: t.siweUri({ uri: clean(decoded.uri) }), depth: 0 });
      lines.push({ text: t.siweChain({ chain: f.chain(decoded.chainId) }), depth: 0 });
      if (decoded.expirationTime)
        lines.push({ text: t.siweExpires({ date: f.date(decoded.expirationTime) }), depth: 0 });
      break;
    case "message":
      title = t.messageTitle;
      lines.push({ text: t.messageText({ text: clean(decoded.text, true) }), depth: 0 });
      break;
    case "solanaTransaction":
      title = t.solanaTitle;
      f.actions(decoded.actions, 0, lines);
      break;
    default:
      title = t.unreadableTitle;
      lines.push({ text: t.unreadable({ reason: t.reasons[decoded.reason] ?? decoded.reason }), depth: 0 });
  }
  const warnings = decoded.warnings.map(f.warning);
  const text = [
    title,
    ...lines.map((l) => `${"  ".repeat(l.depth + 1)}${l.text}`),
    ...warnings.map((w) => `! ${w}`),
  ].join("\n");
  return { title, lines, warnings, text };
}

function formatter(decoded: Decoded, t: DecoderTexts, lang: LocaleCode, options: SummarizeOptions) {
  const chainId = "chainId" in decoded && typeof decoded.chainId === "number" ? decoded.chainId : undefined;
  const list = new Map<string, Pick<TokenInfo, "symbol" | "name" | "decimals">>(
    (options.tokens ?? [])
      .filter((i) => chainId === undefined || i.chainId === chainId)
      .map((i) => [i.address.toLowerCase(), i]),
  );
  // What the decoding read of a token names it in the warnings too.
  if ("actions" in decoded)
    for (const a of flatActions(decoded.actions))
      if ("token" in a && !list.has(a.token.address.toLowerCase()))
        list.set(a.token.address.toLowerCase(), a.token);
  const native = options.nativeCurrency ?? { symbol: (chainId && NATIVE[chainId]) || "ETH", decimals: 18 };
  const group = new Intl.NumberFormat(lang, { useGrouping: true });
  const decimalSeparator =
    new Intl.NumberFormat(lang).formatToParts(1.5).find((p) => p.type === "decimal")?.value ?? ".";

  /** A decimal string in the locale's digits: grouped integer part, exact fraction. */
  const number = (decimal: string) => {
    const negative = decimal.startsWith("-");
    const [int, frac] = (negative ? decimal.slice(1) : decimal).split(".");
    const grouped = group.format(BigInt(int ?? "0"));
    return `${negative ? "-" : ""}${grouped}${frac ? decimalSeparator + frac : ""}`;
  };
  const short = (address: string) => {
    if (!address.startsWith("0x")) return `${address.slice(0, 4)}…${address.slice(-4)}`;
    const checksummed = getAddress(address);
    return `${checksummed.slice(0, 6)}…${checksummed.slice(-4)}`;
  };
  const address = (a: string | null): string => {
    if (a === null) return t.lookupTableAccount;
    const name = options.names ? knownName(options.names, a) : undefined;
    return name ? t.named({ name: clean(name), address: short(a) }) : short(a);
  };
  const info = (token: TokenRef) => {
    const listed = list.get(token.address.toLowerCase());
    const symbol = token.symbol ?? listed?.symbol ?? token.name ?? listed?.name;
    return {
      symbol: symbol === undefined ? undefined : clean(symbol),
      decimals: token.decimals ?? listed?.decimals,
    };
  };
  const tokenName = (token: TokenRef) => info(token).symbol ?? address(token.address);
  const amount = (token: TokenRef, value: bigint) => {
    const { symbol, decimals } = info(token);
    const name = symbol ?? address(token.address);
    return decimals === undefined
      ? t.rawAmount({ amount: number(value.toString()), token: name })
      : t.tokenAmount({ amount: number(formatUnits(value, decimals)), token: name });
  };
  const nativeAmount = (value: bigint) =>
    t.tokenAmount({ amount: number(formatUnits(value, native.decimals)), token: native.symbol });
  const sol = (lamports: bigint) => t.tokenAmount({ amount: number(formatUnits(lamports, 9)), token: "SOL" });
  // ISO 8601 in UTC: the same in every language, and never ambiguous (3/4 or 4/3).
  const date = (d: Date) => `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  const deadline = (seconds: bigint | undefined) =>
    // Beyond year 9999 is no deadline a person reads.
    seconds === undefined || seconds > 253_402_300_799n
      ? ""
      : ` ${t.until({ date: date(new Date(Number(seconds) * 1000)) })}`;
  const chain = (id: number) => CHAINS[id] ?? t.chain({ chainId: id });
  const id = (value: bigint) => value.toString();

  const action = (a: Action): string => {
    switch (a.kind) {
      case "nativeTransfer":
        return t.nativeTransfer({ amount: nativeAmount(a.value), to: address(a.to) });
      case "contractCreation":
        return a.value > 0n
          ? t.contractCreation({ amount: nativeAmount(a.value) })
          : t.contractCreationNoValue;
      case "erc20Transfer":
        return a.from
          ? t.erc20TransferFrom({
              amount: amount(a.token, a.amount),
              from: address(a.from),
              to: address(a.to),
            })
          : t.erc20Transfer({ amount: amount(a.token, a.amount), to: address(a.to) });
      case "erc20Approve":
        if (a.unlimited)
          return t.erc20ApproveUnlimited({ spender: address(a.spender), token: tokenName(a.token) });
        if (a.amount === 0n) return t.erc20Revoke({ spender: address(a.spender), token: tokenName(a.token) });
        return t.erc20Approve({ spender: address(a.spender), amount: amount(a.token, a.amount) });
      case "erc20IncreaseAllowance":
        if (a.unlimited)
          return t.erc20ApproveUnlimited({ spender: address(a.spender), token: tokenName(a.token) });
        return t.erc20IncreaseAllowance({ spender: address(a.spender), amount: amount(a.token, a.amount) });
      case "erc721Transfer":
        return t.erc721Transfer({
          token: tokenName(a.token),
          tokenId: id(a.tokenId),
          from: address(a.from),
          to: address(a.to),
        });
      case "erc721Approve":
        return t.erc721Approve({
          spender: address(a.spender),
          token: tokenName(a.token),
          tokenId: id(a.tokenId),
        });
      case "tokenTransferFrom":
        return t.tokenTransferFrom({
          token: tokenName(a.token),
          value: id(a.value),
          from: address(a.from),
          to: address(a.to),
        });
      case "tokenApprove":
        if (a.unlimited)
          return t.erc20ApproveUnlimited({ spender: address(a.spender), token: tokenName(a.token) });
        return t.tokenApprove({ spender: address(a.spender), token: tokenName(a.token), value: id(a.value) });
      case "operatorApproval":
        return (a.approved ? t.operatorApproval : t.operatorRevoke)({
          operator: address(a.operator),
          token: tokenName(a.token),
        });
      case "erc1155Transfer":
        return a.batch || a.ids.length !== 1
          ? t.erc1155BatchTransfer({
              count: a.ids.length,
              token: tokenName(a.token),
              from: address(a.from),
              to: address(a.to),
            })
          : t.erc1155Transfer({
              amount: number(String(a.amounts[0] ?? 0n)),
              token: tokenName(a.token),
              tokenId: id(a.ids[0] ?? 0n),
              from: address(a.from),
              to: address(a.to),
            });
      case "permit": {
        const spender = address(a.spender);
        if (a.standard === "erc4494")
          return (
            t.permitNft({ spender, token: tokenName(a.token), tokenId: id(a.amount) }) + deadline(a.deadline)
          );
        if (a.standard === "permit2Transfer")
          return (
            t.permitTransfer({
              spender,
              amount: a.unlimited
                ? t.tokenAmount({ amount: t.unlimited, token: tokenName(a.token) })
                : amount(a.token, a.amount),
            }) + deadline(a.deadline)
          );
        if (a.unlimited)
          return t.permitUnlimited({ spender, token: tokenName(a.token) }) + deadline(a.deadline);
        return t.permit({ spender, amount: amount(a.token, a.amount) }) + deadline(a.deadline);
      }
      case "accountCalls":
        return t.accountCalls({ account: address(a.account) });
      case "unknownCall": {
        const base = a.selector
          ? t.unknownCall({ to: address(a.to), selector: a.selector })
          : t.unknownCallNoData({ to: address(a.to) });
        const parts = [base];
        if (a.value > 0n) parts.push(t.sending({ amount: nativeAmount(a.value) }));
        if (a.reason === "tooDeep") parts.push(t.tooDeep);
        return parts.join(", ");
      }
      case "solTransfer":
        return t.solTransfer({ amount: sol(a.lamports), to: address(a.to) });
      case "solCreateAccount":
        return t.solCreateAccount({
          account: address(a.account),
          amount: sol(a.lamports),
          owner: address(a.owner),
        });
      case "splTransfer":
        return t.splTransfer({ amount: splAmount(a.amount, a.decimals, a.mint), to: address(a.destination) });
      case "splApprove":
        if (a.unlimited) return t.splApproveUnlimited({ delegate: address(a.delegate) });
        return t.splApprove({
          delegate: address(a.delegate),
          amount: splAmount(a.amount, a.decimals, a.mint),
        });
      case "splCloseAccount":
        return t.splCloseAccount({ account: address(a.account), to: address(a.destination) });
      case "unknownInstruction":
        return t.unknownInstruction({ program: a.programId });
    }
  };
  const splAmount = (value: bigint, decimals: number | undefined, mint: string | null | undefined) => {
    if (decimals === undefined || mint === undefined) return t.tokens({ amount: number(value.toString()) });
    return t.tokenAmount({ amount: number(formatUnits(value, decimals)), token: address(mint) });
  };
  const actions = (list: readonly Action[], depth: number, out: SummaryLine[]) => {
    for (const a of list) {
      out.push({ text: action(a), depth });
      if (a.kind === "accountCalls") actions(a.calls, depth + 1, out);
    }
  };
  const authorization = (a: Extract<Decoded, { kind: "authorization" }>) => {
    if (a.revoke) return t.revokeDelegation;
    const delegate = a.delegateName
      ? t.named({ name: clean(a.delegateName), address: short(a.delegate) })
      : address(a.delegate);
    return t.delegate({ delegate });
  };
  const warning = (w: Warning): string => {
    switch (w.kind) {
      case "unlimitedApproval":
        return t.warnUnlimitedApproval({ spender: address(w.spender), token: tokenLabel(w.token) });
      case "operatorApproval":
        return t.warnOperatorApproval({ operator: address(w.operator), token: tokenLabel(w.token) });
      case "permitToUnknownSpender":
        return t.warnPermitToUnknownSpender({ spender: address(w.spender) });
      case "delegationNotAllowed":
        return t.warnDelegationNotAllowed({ delegate: address(w.delegate) });
      case "transferToZeroAddress":
        return t.warnTransferToZeroAddress;
      case "valueAboveThreshold":
        return decoded.kind === "solanaTransaction"
          ? t.warnValueAboveThreshold({ amount: sol(w.value), threshold: sol(w.threshold) })
          : t.warnValueAboveThreshold({
              amount: nativeAmount(w.value),
              threshold: nativeAmount(w.threshold),
            });
    }
  };
  const tokenLabel = (token: string) =>
    token.startsWith("0x") ? (info({ address: token as Address }).symbol ?? address(token)) : address(token);
  return { actions, authorization, warning, address, chain, date };
}
