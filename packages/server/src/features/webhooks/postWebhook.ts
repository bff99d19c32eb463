import { lookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { ipLiteralOf, isLocalhostName, mayReach, refusedRangeOf } from "./addressPolicy";

/** The addresses a host name has (all of them: each is checked). */
export type ResolveHost = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const resolveWithDns: ResolveHost = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** A delivery not sent because its host is (or resolved to) an address the endpoint may not reach. */
export class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
}

export interface PostWebhookParameters {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  resolve: ResolveHost;
  allowPrivateNetwork: boolean;
  /** Dev mode: loopback without the opt-in. */
  allowLoopback: boolean;
}

/**
 * POSTs one delivery and returns the status code (redirects are not followed). The host is resolved
 * first and every answer checked (addressPolicy.ts); the connection then goes to the checked address, so a
 * DNS answer that changes between the check and the connect (rebinding) is never used.
 */
export async function postWebhook(p: PostWebhookParameters): Promise<number> {
  const url = new URL(p.url);
  const target = await checkedAddress(url.hostname, p);
  const pinned: LookupFunction = (_host, options, callback) => {
    if (options.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<number>((resolve, reject) => {
    const req = send(url, {
      method: "POST",
      headers: { ...p.headers, "content-length": String(Buffer.byteLength(p.body)) },
      agent: false,
      lookup: pinned,
      signal: p.signal,
    });
    req.on("response", (res) => {
      res.resume();
      res.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(p.body);
  });
}

async function checkedAddress(
  hostname: string,
  p: Pick<PostWebhookParameters, "resolve" | "allowPrivateNetwork" | "allowLoopback">,
): Promise<{ address: string; family: number }> {
  const literal = ipLiteralOf(hostname);
  const answers = literal
    ? [{ address: literal, family: literal.includes(":") ? 6 : 4 }]
    : await p.resolve(hostname);
  if (answers.length === 0) throw new Error(`${hostname} has no address`);
  if (!literal && isLocalhostName(hostname.toLowerCase()) && !p.allowPrivateNetwork && !p.allowLoopback)
    throw new RefusedAddressError(
      `refused: ${hostname} is loopback and the endpoint does not allow private networks`,
    );
  for (const a of answers) {
    const range = refusedRangeOf(a.address);
    if (range && !mayReach(range, p))
      throw new RefusedAddressError(
        `refused: ${hostname} is ${a.address}, a ${range.range} address, and the endpoint does not allow private networks`,
      );
  }
  return answers[0] as { address: string; family: number };
}
