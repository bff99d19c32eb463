import { ErrorCode } from "@latchkey/protocol";
import { getAddress } from "viem";
import { parseSiweMessage } from "viem/siwe";
import { apiError } from "../../errors";

/** An EIP-4361 message as read: every field the grammar requires is present and well formed. */
export interface SiweMessageFields {
  scheme?: string;
  /** The RFC 3986 authority (host and optional port) that asks for the signature. */
  domain: string;
  /** Checksummed (EIP-55). */
  address: `0x${string}`;
  statement?: string;
  uri: string;
  version: "1";
  chainId: number;
  nonce: string;
  issuedAt: Date;
  expirationTime?: Date;
  notBefore?: Date;
  requestId?: string;
  resources?: string[];
}

const malformed = (why: string) =>
  apiError(ErrorCode.SIWE_INVALID_MESSAGE, `The message is not an EIP-4361 message: ${why}`);

const PREAMBLE = " wants you to sign in with your Ethereum account:";
const REQUIRED = ["URI: ", "Version: ", "Chain ID: ", "Nonce: ", "Issued At: "] as const;
const OPTIONAL = ["Expiration Time: ", "Not Before: ", "Request ID: "] as const;

/**
 * The message's lines follow the EIP-4361 grammar exactly, each field once and in order, with nothing
 * before, between or after: a message cannot carry a second `Nonce:` or `URI:` line that a wallet would
 * show and this service would not read (or the other way round).
 */
function wellFormedLines(message: string): string | undefined {
  const lines = message.split("\n");
  if (!lines[0]?.endsWith(PREAMBLE)) return "the first line must end with 'wants you to sign in…'";
  if (!/^0x[0-9a-fA-F]{40}$/.test(lines[1] ?? "")) return "the second line must be the address";
  if (lines[2] !== "") return "an empty line must follow the address";
  // [statement LF] LF
  let at = lines[3] === "" ? 4 : 5;
  if (at === 5 && lines[4] !== "") return "an empty line must follow the statement";
  for (const label of REQUIRED) {
    if (!lines[at]?.startsWith(label)) return `'${label.trim()}' is missing or out of order`;
    at++;
  }
  for (const label of OPTIONAL) if (lines[at]?.startsWith(label)) at++;
  if (lines[at] === "Resources:") {
    at++;
    while (lines[at]?.startsWith("- ")) at++;
  }
  if (at !== lines.length) return `line ${at + 1} is not part of the grammar`;
  return undefined;
}

const validDate = (d: Date | undefined) => d === undefined || !Number.isNaN(d.getTime());

/**
 * Reads an EIP-4361 message with viem's `parseSiweMessage`, after checking that its lines follow the
 * grammar; anything else is SIWE_INVALID_MESSAGE. Only the form is checked here: the nonce, domain, URI,
 * chain, times and signature are the verifier's (verifySignIn.ts).
 *
 * @example
 * const fields = parseMessage(createSiweMessage({ domain, address, uri, version: "1", chainId, nonce }));
 */
export function parseMessage(message: string): SiweMessageFields {
  const wrong = wellFormedLines(message);
  if (wrong) throw malformed(wrong);
  const parsed = parseSiweMessage(message);
  const { domain, address, uri, version, chainId, nonce, issuedAt } = parsed;
  if (!domain || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(domain)) throw malformed("the domain is not a host");
  if (!address) throw malformed("no address");
  if (!uri) throw malformed("no URI");
  if (version !== "1") throw malformed("the version must be 1");
  if (chainId === undefined || !Number.isSafeInteger(chainId) || chainId <= 0)
    throw malformed("the chain id must be a positive integer");
  if (!nonce || !/^[A-Za-z0-9]{8,}$/.test(nonce))
    throw malformed("the nonce must be 8 or more letters and digits");
  if (!issuedAt) throw malformed("no Issued At");
  if (!validDate(issuedAt) || !validDate(parsed.expirationTime) || !validDate(parsed.notBefore))
    throw malformed("a time is not an RFC 3339 date-time");
  return {
    ...(parsed.scheme ? { scheme: parsed.scheme } : {}),
    domain,
    address: getAddress(address),
    ...(parsed.statement ? { statement: parsed.statement } : {}),
    uri,
    version,
    chainId,
    nonce,
    issuedAt,
    ...(parsed.expirationTime ? { expirationTime: parsed.expirationTime } : {}),
    ...(parsed.notBefore ? { notBefore: parsed.notBefore } : {}),
    ...(parsed.requestId !== undefined ? { requestId: parsed.requestId } : {}),
    ...(parsed.resources ? { resources: parsed.resources } : {}),
  };
}
