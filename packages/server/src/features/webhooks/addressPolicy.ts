import { isIP } from "node:net";

/**
 * Why an address is not one webhooks go to by default, or null when it is public. `loopback` is set apart
 * because dev mode allows it; every other range needs the endpoint's `allowPrivateNetwork`.
 */
export interface RefusedRange {
  kind: "loopback" | "private";
  /** e.g. "link-local (169.254.0.0/16, cloud metadata)". */
  range: string;
}

const V4: [string, number, RefusedRange][] = [
  ["0.0.0.0", 8, { kind: "private", range: "unspecified (0.0.0.0/8)" }],
  ["10.0.0.0", 8, { kind: "private", range: "private (10.0.0.0/8)" }],
  ["100.64.0.0", 10, { kind: "private", range: "shared address space (100.64.0.0/10)" }],
  ["127.0.0.0", 8, { kind: "loopback", range: "loopback (127.0.0.0/8)" }],
  ["169.254.0.0", 16, { kind: "private", range: "link-local (169.254.0.0/16, cloud metadata)" }],
  ["172.16.0.0", 12, { kind: "private", range: "private (172.16.0.0/12)" }],
  ["192.0.0.0", 24, { kind: "private", range: "IETF protocol assignments (192.0.0.0/24)" }],
  ["192.168.0.0", 16, { kind: "private", range: "private (192.168.0.0/16)" }],
  ["198.18.0.0", 15, { kind: "private", range: "benchmarking (198.18.0.0/15)" }],
  ["224.0.0.0", 4, { kind: "private", range: "multicast (224.0.0.0/4)" }],
  ["240.0.0.0", 4, { kind: "private", range: "reserved (240.0.0.0/4)" }],
];

const v4Number = (ip: string) => ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);

function refusedV4(ip: string): RefusedRange | null {
  const n = v4Number(ip);
  for (const [base, bits, range] of V4) {
    const size = 2 ** (32 - bits);
    const start = v4Number(base);
    if (n >= start && n < start + size) return range;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 address (dotted IPv4 tails included). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const n = v4Number(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (s: string) => (s ? s.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array(8 - left.length - right.length).fill(0), ...right];
}

const v4Of = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

function refusedV6(ip: string): RefusedRange | null {
  const g = v6Groups(ip);
  const [g0 = 0, g1 = 0, , , , g5 = 0, g6 = 0, g7 = 0] = g;
  const zeroTo = (end: number) => g.slice(0, end).every((x) => x === 0);
  if (zeroTo(8)) return { kind: "private", range: "unspecified (::)" };
  if (zeroTo(7) && g7 === 1) return { kind: "loopback", range: "loopback (::1)" };
  // An IPv4 address carried in IPv6 (mapped ::ffff:0:0/96, compatible ::/96, NAT64 64:ff9b::/96) is
  // judged as that IPv4 address.
  if (
    (zeroTo(5) && g5 === 0xffff) ||
    zeroTo(6) ||
    (g0 === 0x64 && g1 === 0xff9b && g.slice(2, 6).every((x) => x === 0))
  )
    return refusedV4(v4Of(g6, g7));
  if (g0 === 0x2002) return refusedV4(v4Of(g1, g[2] ?? 0)); // 6to4
  if ((g0 & 0xfe00) === 0xfc00) return { kind: "private", range: "unique local (fc00::/7)" };
  if ((g0 & 0xffc0) === 0xfe80) return { kind: "private", range: "link-local (fe80::/10)" };
  if ((g0 & 0xffc0) === 0xfec0) return { kind: "private", range: "site-local (fec0::/10)" };
  if ((g0 & 0xff00) === 0xff00) return { kind: "private", range: "multicast (ff00::/8)" };
  return null;
}

/** The range an IP address is in that webhooks refuse by default, or null (public, or not an IP address). */
export function refusedRangeOf(ip: string): RefusedRange | null {
  const version = isIP(ip);
  if (version === 4) return refusedV4(ip);
  if (version === 6) return refusedV6(ip);
  return null;
}

/** A URL's host as an IP literal (brackets off), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/** `localhost` and its subdomains (RFC 6761: always loopback). */
export const isLocalhostName = (hostname: string) =>
  hostname === "localhost" || hostname.endsWith(".localhost");

/** What a URL's host says before any DNS: the refused range of an IP literal or a localhost name. */
export function refusedRangeOfHost(hostname: string): RefusedRange | null {
  if (isLocalhostName(hostname.toLowerCase())) return { kind: "loopback", range: "loopback (localhost)" };
  const literal = ipLiteralOf(hostname);
  return literal ? refusedRangeOf(literal) : null;
}

/** Whether an endpoint may reach `range`: any range with its opt-in; loopback also in dev mode. */
export const mayReach = (
  range: RefusedRange,
  opts: { allowPrivateNetwork: boolean; allowLoopback: boolean },
) => opts.allowPrivateNetwork || (range.kind === "loopback" && opts.allowLoopback);
