/**
 * Filler rows for the scale benchmark (bench/scale.ts, bench/soak.ts): users with their wallet, its two
 * accounts, a session, a code and their security events, and the activities, sponsorship spend and daily
 * usage a busy app keeps, shaped as the service writes them (the same columns, value formats and sizes:
 * sealed blobs in the keyring's `v1.<key>.<base64url>` form around plaintexts of the real lengths,
 * checksummed EVM addresses, base58 Solana addresses, activity intents and results as JSON).
 *
 * A filler user's identity is a function of the seed and its index (fillerUser): the bench can name any
 * of a million users (its email, its address, its keyset cursor) without reading them back. The secrets
 * are random: filler users never sign; the users a benchmark signs for are made through the service.
 */
import { createHash, randomBytes } from "node:crypto";
import { getAddress } from "viem";

const DAY_MS = 24 * 60 * 60 * 1000;

/** What a column holds: PostgreSQL's array type for the unnest insert (SQLite needs none). */
type ColumnType = "text" | "int8" | "int4";

/** The tables the seeder fills, their columns in insert order and types. */
export const SEED_TABLES = {
  users: {
    id: "text",
    org_id: "text",
    app_id: "text",
    email: "text",
    unverified_email: "text",
    created_at: "int8",
    smart_account_kind: "text",
    disabled_at: "int8",
  },
  wallets: {
    id: "text",
    org_id: "text",
    user_id: "text",
    name: "text",
    sealed_mnemonic: "text",
    created_at: "int8",
  },
  wallet_accounts: {
    id: "text",
    wallet_id: "text",
    org_id: "text",
    curve: "text",
    path: "text",
    address_format: "text",
    address: "text",
    address_key: "text",
    public_key: "text",
    sealed_private_key: "text",
    created_at: "int8",
  },
  api_keys: {
    id: "text",
    org_id: "text",
    user_id: "text",
    name: "text",
    public_key: "text",
    kind: "text",
    signed_in_by: "text",
    expires_at: "int8",
    created_at: "int8",
    revoked_at: "int8",
  },
  otps: {
    id: "text",
    app_id: "text",
    org_id: "text",
    user_id: "text",
    email: "text",
    code_hash: "text",
    attempts: "int4",
    expires_at: "int8",
    used_at: "int8",
    created_at: "int8",
  },
  audit_log: {
    id: "text",
    app_id: "text",
    user_id: "text",
    event: "text",
    ip: "text",
    details: "text",
    created_at: "int8",
  },
  activities: {
    id: "text",
    org_id: "text",
    user_id: "text",
    type: "text",
    fingerprint: "text",
    status: "text",
    intent: "text",
    result: "text",
    failure: "text",
    created_at: "int8",
    updated_at: "int8",
  },
  sponsorship_spend: {
    chain_id: "int8",
    sender: "text",
    nonce: "text",
    app_id: "text",
    policy_id: "text",
    user_id: "text",
    day: "text",
    wei: "text",
    created_at: "int8",
    updated_at: "int8",
  },
  sponsorship_usage: {
    app_id: "text",
    policy_id: "text",
    scope: "text",
    day: "text",
    operations: "int4",
    wei: "text",
    updated_at: "int8",
  },
} as const satisfies Record<string, Record<string, ColumnType>>;
export type SeedTable = keyof typeof SEED_TABLES;
export type SeedValue = string | number | null;
/** One chunk of rows per table, each row its values in SEED_TABLES column order. */
export type SeedChunk = Record<SeedTable, SeedValue[][]>;

/** How far back each kind of row reaches, in days before `now` (older than its retention: the sweeper's). */
export interface SeedSpans {
  users: number;
  activities: number;
  sessions: number;
  codes: number;
  audit: number;
  sponsorship: number;
}
/** A steady state within the default retention (limits/retention.ts): what a year-old app holds. */
export const STEADY_SPANS: SeedSpans = {
  users: 730,
  activities: 90,
  sessions: 7,
  codes: 1,
  audit: 400,
  sponsorship: 90,
};

export interface SeedPlan {
  /** Names filler users apart between runs and databases. */
  seed: string;
  appId: string;
  /** The keyring's active data key id (`data_keys.id`): what a sealed blob names. */
  dataKeyId: string;
  /** Filler users to add: indexes [from, to). */
  from: number;
  to: number;
  /** Activities to add over every owner (the real users and the filler users of this call). */
  activities: number;
  /** Users made through the service: they get activities too, no other rows. */
  realOwners: Owner[];
  now: number;
  spans: SeedSpans;
  /** The sponsorship policy and chain whose spend rows are seeded. */
  policyId: string;
  chainId: number;
}

export interface Owner {
  userId: string;
  orgId: string;
  /** Checksummed EVM address. */
  address: string;
}

/** 16 bytes of SHA-256(seed, kind, i), shaped as a version-4 UUID. */
function uuidFrom(seed: string, kind: string, i: number): string {
  const b = createHash("sha256").update(`${seed}:${kind}:${i}`).digest();
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString("hex", 0, 16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export interface FillerUser extends Owner {
  email: string;
  solanaAddress: string;
  solanaPublicKey: string;
  createdAt: number;
}

/** Filler user `i` of `seed`: the same answer every time (the bench names users without reading them). */
export function fillerUser(
  plan: Pick<SeedPlan, "seed" | "now" | "spans">,
  i: number,
  total: number,
): FillerUser {
  const evm = createHash("sha256").update(`${plan.seed}:evm:${i}`).digest();
  const sol = createHash("sha256").update(`${plan.seed}:sol:${i}`).digest();
  // Sign-ups spread evenly over the span, oldest first; the real users came last (today).
  const span = plan.spans.users * DAY_MS;
  return {
    userId: uuidFrom(plan.seed, "user", i),
    orgId: uuidFrom(plan.seed, "org", i),
    email: `user${i}.${plan.seed}@scale.example.com`,
    address: getAddress(`0x${evm.toString("hex", 0, 20)}`),
    solanaPublicKey: sol.toString("hex"),
    solanaAddress: base58Hex(sol.toString("hex")),
    createdAt: plan.now - span + Math.floor((span * i) / Math.max(1, total)) - 60_000,
  };
}

/** A cheap source of randomness: one large draw kept as hex (and base64url), sliced without copying. */
class RandomPool {
  #hex = "";
  #hexPos = 0;
  #b64 = "";
  #b64Pos = 0;
  #words = new Uint32Array(0);
  #wordPos = 0;
  /** `n` random bytes as hex. */
  hex(n: number): string {
    if (this.#hexPos + 2 * n > this.#hex.length) {
      this.#hex = randomBytes(1 << 20).toString("hex");
      this.#hexPos = 0;
    }
    const out = this.#hex.slice(this.#hexPos, this.#hexPos + 2 * n);
    this.#hexPos += 2 * n;
    return out;
  }
  /** `n` random bytes as base64url (n a multiple of 3 reads exactly; else its length rounded up). */
  base64url(n: number): string {
    const chars = Math.ceil((n * 4) / 3);
    if (this.#b64Pos + chars > this.#b64.length) {
      this.#b64 = randomBytes(3 << 18).toString("base64url");
      this.#b64Pos = 0;
    }
    const out = this.#b64.slice(this.#b64Pos, this.#b64Pos + chars);
    this.#b64Pos += chars;
    return out;
  }
  uuid(): string {
    const h = this.hex(16);
    const variant = "89ab"[this.byte() & 3];
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
  byte(): number {
    return Math.floor(this.unit() * 256);
  }
  /** A uniform number in [0, 1). */
  unit(): number {
    if (this.#wordPos >= this.#words.length) {
      const b = randomBytes(1 << 16);
      this.#words = new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
      this.#wordPos = 0;
    }
    return (this.#words[this.#wordPos++] as number) / 2 ** 32;
  }
}

/** The keyring's sealed form of `plaintextLength` bytes (AES-GCM: 12-byte IV ‖ ciphertext ‖ 16-byte tag). */
function sealedBlob(rand: RandomPool, keyId: string, plaintextLength: number): string {
  return `v1.${keyId}.${rand.base64url(12 + plaintextLength + 16)}`;
}

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** Base58 (Bitcoin alphabet, as Solana writes addresses) of a byte string given as hex. */
function base58Hex(hex: string): string {
  let n = BigInt(`0x${hex}`);
  let out = "";
  while (n > 0n) {
    out = (BASE58[Number(n % 58n)] as string) + out;
    n /= 58n;
  }
  for (let i = 0; i < hex.length && hex.startsWith("00", i); i += 2) out = `1${out}`;
  return out;
}

/** `YYYY-MM-DD` of the UTC day `ms` falls in. */
function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

const ACTIVITY_TYPE = "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2";

function activityRow(rand: RandomPool, owner: Owner, createdAt: number): SeedValue[] {
  // As the service writes them (keyManagement/submitActivity.ts): the intent and the result as JSON.
  const intent = `{"signRawPayloadIntentV2":{"signWith":"${owner.address}","payload":"${rand.hex(32)}","encoding":"PAYLOAD_ENCODING_HEXADECIMAL","hashFunction":"HASH_FUNCTION_NO_OP"}}`;
  // Most are signed; a few were refused by the app's signing policy, a very few wait for an admin.
  const roll = rand.unit();
  if (roll >= 0.0201)
    return [
      rand.uuid(),
      owner.orgId,
      owner.userId,
      ACTIVITY_TYPE,
      rand.hex(32),
      "ACTIVITY_STATUS_COMPLETED",
      intent,
      `{"signRawPayloadResult":{"r":"${rand.hex(32)}","s":"${rand.hex(32)}","v":"0${roll < 0.5 ? 0 : 1}"}}`,
      null,
      createdAt,
      createdAt,
    ];
  const rejected = roll < 0.02;
  const failure = rejected
    ? '{"code":"POLICY_DENIED","message":"The app\'s signing policy refuses this signature"}'
    : '{"code":"ACTIVITY_CONSENSUS_NEEDED","message":"An app admin must approve this"}';
  const status = rejected ? "ACTIVITY_STATUS_REJECTED" : "ACTIVITY_STATUS_CONSENSUS_NEEDED";
  return [
    rand.uuid(),
    owner.orgId,
    owner.userId,
    ACTIVITY_TYPE,
    rand.hex(32),
    status,
    intent,
    "{}",
    failure,
    createdAt,
    createdAt,
  ];
}

function emptyChunk(): SeedChunk {
  return Object.fromEntries(Object.keys(SEED_TABLES).map((t) => [t, []])) as unknown as SeedChunk;
}

/**
 * The plan's rows in chunks of about `chunkUsers` owners: first the real owners' activities, then the
 * filler users with all their rows and their share of the activities (spread evenly: every owner gets
 * `activities / owners`, the first ones one more).
 */
export function* seedChunks(plan: SeedPlan, chunkUsers = 1_000): Generator<SeedChunk> {
  const rand = new RandomPool();
  const fillers = plan.to - plan.from;
  const owners = plan.realOwners.length + fillers;
  const base = owners > 0 ? Math.floor(plan.activities / owners) : 0;
  const extra = owners > 0 ? plan.activities % owners : 0;
  const { now, spans, appId, dataKeyId } = plan;
  const within = (days: number) => now - Math.floor(rand.unit() * days * DAY_MS);
  let chunk = emptyChunk();
  let inChunk = 0;
  let ownerIndex = 0;
  const addActivities = (owner: Owner) => {
    const n = base + (ownerIndex < extra ? 1 : 0);
    ownerIndex++;
    for (let k = 0; k < n; k++) chunk.activities.push(activityRow(rand, owner, within(spans.activities)));
  };
  for (const owner of plan.realOwners) {
    addActivities(owner);
    if (++inChunk >= chunkUsers) {
      yield chunk;
      chunk = emptyChunk();
      inChunk = 0;
    }
  }
  for (let i = plan.from; i < plan.to; i++) {
    const u = fillerUser(plan, i, plan.to);
    const t = u.createdAt;
    chunk.users.push([u.userId, u.orgId, appId, u.email, null, t, null, null]);
    const walletId = rand.uuid();
    // A 12-word mnemonic is 60 to 90 characters.
    const mnemonicLength = 60 + Math.floor(rand.unit() * 31);
    chunk.wallets.push([
      walletId,
      u.orgId,
      u.userId,
      "Default wallet",
      sealedBlob(rand, dataKeyId, mnemonicLength),
      t,
    ]);
    chunk.wallet_accounts.push(
      [
        rand.uuid(),
        walletId,
        u.orgId,
        "CURVE_SECP256K1",
        "m/44'/60'/0'/0/0",
        "ADDRESS_FORMAT_ETHEREUM",
        u.address,
        u.address.toLowerCase(),
        `04${rand.hex(64)}`,
        sealedBlob(rand, dataKeyId, 32),
        t,
      ],
      [
        rand.uuid(),
        walletId,
        u.orgId,
        "CURVE_ED25519",
        "m/44'/501'/0'/0'",
        "ADDRESS_FORMAT_SOLANA",
        u.solanaAddress,
        u.solanaAddress,
        u.solanaPublicKey,
        sealedBlob(rand, dataKeyId, 32),
        t,
      ],
    );
    // The last sign-in: its code (used) and its session key (15 minutes), and the security events.
    const signedIn = Math.max(t, within(spans.sessions));
    const codeAt = Math.max(t, within(spans.codes));
    const otpId = rand.uuid();
    chunk.otps.push([
      otpId,
      appId,
      u.orgId,
      u.userId,
      u.email,
      rand.hex(32),
      0,
      codeAt + 600_000,
      codeAt + 20_000,
      codeAt,
    ]);
    chunk.api_keys.push([
      rand.uuid(),
      u.orgId,
      u.userId,
      `otp-${signedIn}`,
      `0${2 + (rand.byte() % 2)}${rand.hex(32)}`,
      "session",
      "email_code",
      signedIn + 900_000,
      signedIn,
      null,
    ]);
    const ip = `10.${rand.byte()}.${rand.byte()}.${rand.byte()}`;
    const auditAt = Math.max(t, within(spans.audit));
    // The sign-up's event is gone once older than the security log's span (the sweeper took it).
    if (t >= now - spans.audit * DAY_MS)
      chunk.audit_log.push([rand.uuid(), appId, u.userId, "user.signup", ip, '{"method":"email"}', t]);
    chunk.audit_log.push([
      rand.uuid(),
      appId,
      u.userId,
      "user.signin",
      ip,
      '{"method":"otp"}',
      Math.max(auditAt, signedIn),
    ]);
    // Three users in ten had an operation sponsored: its spend row and their daily total.
    if (rand.unit() < 0.3) {
      const at = within(spans.sponsorship);
      const day = utcDay(at);
      const wei = String(100_000_000_000_000 + Math.floor(rand.unit() * 1e14));
      chunk.sponsorship_spend.push([
        plan.chainId,
        u.address.toLowerCase(),
        "0",
        appId,
        plan.policyId,
        u.userId,
        day,
        wei,
        at,
        at,
      ]);
      chunk.sponsorship_usage.push([appId, plan.policyId, `user:${u.userId}`, day, 1, wei, at]);
    }
    addActivities(u);
    if (++inChunk >= chunkUsers) {
      yield chunk;
      chunk = emptyChunk();
      inChunk = 0;
    }
  }
  if (inChunk > 0) yield chunk;
}

/** The app's daily totals (scope "app") for each day of the sponsorship span, as the service keeps them. */
export function appUsageRows(plan: SeedPlan): SeedValue[][] {
  const rows: SeedValue[][] = [];
  for (let d = 1; d <= plan.spans.sponsorship; d++) {
    const at = plan.now - d * DAY_MS;
    rows.push([plan.appId, plan.policyId, "app", utcDay(at), 1_000, "100000000000000000", at]);
  }
  return rows;
}
