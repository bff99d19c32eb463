import { createHash, randomUUID } from "node:crypto";
import {
  type Activity,
  type ActivityType,
  activityParameterSchemas,
  ErrorCode,
  type QueryName,
  querySchemas,
  type SignRawPayloadResult,
  submitEnvelopeSchema,
  submitPathActivityTypes,
} from "@latchkey/protocol";
import { keccak_256 } from "@noble/hashes/sha3";
import type { z } from "zod";
import type { Keyring } from "../crypto/keyring";
import { signEd25519, signSecp256k1 } from "../crypto/wallet";
import type { Db } from "../db";
import type { ActivitiesTable } from "../db/schema";
import { ApiError, badRequest, notFound } from "../errors";
import type { AppDirectory } from "./apps";
import { linkProvider, markTokenLinked, type VerifiedProviderToken, verifyProviderToken } from "./oauth";
import { insertAuthenticator, type VerifiedPasskey, verifyPasskeyRegistration } from "./passkeys";
import { issueSession } from "./sessions";
import { forgetStampKeys, type StampedCaller } from "./stamps";

export interface ActivityContext {
  db: Db;
  keyring: Keyring;
  apps: AppDirectory;
  now: () => number;
}

const INTENT_NAMES: Record<ActivityType, [intent: string, result: string]> = {
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: ["signRawPayloadIntentV2", "signRawPayloadResult"],
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: ["signRawPayloadsIntent", "signRawPayloadsResult"],
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: [
    "createReadWriteSessionIntentV2",
    "createReadWriteSessionResultV2",
  ],
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: ["createApiKeysIntentV2", "createApiKeysResult"],
  ACTIVITY_TYPE_DELETE_API_KEYS: ["deleteApiKeysIntent", "deleteApiKeysResult"],
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: ["createAuthenticatorsIntentV2", "createAuthenticatorsResult"],
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: ["deleteAuthenticatorsIntent", "deleteAuthenticatorsResult"],
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: ["createOauthProvidersIntent", "createOauthProvidersResult"],
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: ["deleteOauthProvidersIntent", "deleteOauthProvidersResult"],
};

export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, what: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    throw badRequest(`Invalid ${what}: ${where}${issue?.message ?? "invalid"}`);
  }
  return r.data;
}

function timestamp(ms: number) {
  return { seconds: String(Math.floor(ms / 1000)), nanos: String((ms % 1000) * 1_000_000) };
}

export function toActivity(row: ActivitiesTable): Activity {
  return {
    id: row.id,
    organizationId: row.org_id,
    status: row.status as Activity["status"],
    type: row.type,
    intent: JSON.parse(row.intent) as Record<string, unknown>,
    result: JSON.parse(row.result) as Record<string, unknown>,
    fingerprint: row.fingerprint,
    createdAt: timestamp(row.created_at),
    updatedAt: timestamp(row.updated_at),
    ...(row.failure ? { failure: JSON.parse(row.failure) as { code: string; message: string } } : {}),
  };
}

// ---- signing ----

type SignParams = z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"]>;

function payloadBytes(payload: string, encoding: SignParams["encoding"]): Uint8Array {
  if (encoding === "PAYLOAD_ENCODING_TEXT_UTF8") return new TextEncoder().encode(payload);
  const h = payload.replace(/^0x/, "");
  if (h.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(h)) {
    throw badRequest("payload is not valid hex for PAYLOAD_ENCODING_HEXADECIMAL");
  }
  return new Uint8Array(Buffer.from(h, "hex"));
}

function hashPayload(bytes: Uint8Array, fn: SignParams["hashFunction"]): Uint8Array {
  if (fn === "HASH_FUNCTION_SHA256") return new Uint8Array(createHash("sha256").update(bytes).digest());
  if (fn === "HASH_FUNCTION_KECCAK256") return keccak_256(bytes);
  return bytes;
}

/** Wallet accounts never change once made, so their (still sealed) rows are cached for the signing path. */
type CachedAccount = { id: string; curve: "CURVE_SECP256K1" | "CURVE_ED25519"; sealed: string };
const accountCaches = new WeakMap<Keyring, Map<string, CachedAccount>>();

async function loadSigningAccount(ctx: ActivityContext, orgId: string, signWith: string) {
  const key = signWith.startsWith("0x") ? signWith.toLowerCase() : signWith;
  const cacheKey = `${orgId}/${key}`;
  let accountCache = accountCaches.get(ctx.keyring);
  if (!accountCache) {
    accountCache = new Map();
    accountCaches.set(ctx.keyring, accountCache);
  }
  let account = accountCache.get(cacheKey);
  if (!account) {
    const row = await ctx.db
      .selectFrom("wallet_accounts")
      .select(["id", "curve", "sealed_private_key"])
      .where("org_id", "=", orgId)
      .where("address_key", "=", key)
      .executeTakeFirst();
    if (!row)
      throw notFound(`No wallet account ${signWith} in this organization`, ErrorCode.ACCOUNT_NOT_FOUND);
    account = { id: row.id, curve: row.curve, sealed: row.sealed_private_key };
    if (accountCache.size >= 10_000) accountCache.delete(accountCache.keys().next().value as string);
    accountCache.set(cacheKey, account);
  }
  const privateKey = await ctx.keyring.open(account.sealed, `wallet_account:${account.id}`);
  return { curve: account.curve, privateKey };
}

function signOne(
  curve: "CURVE_SECP256K1" | "CURVE_ED25519",
  privateKey: Uint8Array,
  payload: string,
  encoding: SignParams["encoding"],
  hashFunction: SignParams["hashFunction"],
): SignRawPayloadResult {
  const message = hashPayload(payloadBytes(payload, encoding), hashFunction);
  if (curve === "CURVE_SECP256K1") {
    if (hashFunction === "HASH_FUNCTION_NOT_APPLICABLE") {
      throw badRequest("secp256k1 accounts need a hash function (HASH_FUNCTION_NO_OP for a ready digest)");
    }
    if (message.length !== 32) throw badRequest("secp256k1 signs a 32-byte digest; payload is not 32 bytes");
    const sig = signSecp256k1(message, privateKey);
    return { r: sig.r, s: sig.s, v: sig.v.toString(16).padStart(2, "0") };
  }
  const sig = signEd25519(message, privateKey);
  const hex = Buffer.from(sig).toString("hex");
  return { r: hex.slice(0, 64), s: hex.slice(64), v: "00" };
}

// ---- submit ----

export interface SubmitOutcome {
  activity: Activity;
  /** True when the same body was already executed and this is its stored outcome. */
  replayed: boolean;
}

/**
 * Runs a stamped submit request at most once per body: the body's SHA-256 is the activity's fingerprint,
 * so a resubmission (direct or wrapped) answers with the activity it created the first time.
 */
export async function submitActivity(
  ctx: ActivityContext,
  path: string,
  rawBody: string,
  caller: StampedCaller,
): Promise<SubmitOutcome> {
  const allowed = submitPathActivityTypes[path];
  if (!allowed) throw notFound(`Unknown submit endpoint ${path}`);
  const envelope = parseOrThrow(submitEnvelopeSchema, caller.body, "request");
  const type = envelope.type as ActivityType;
  if (!allowed.includes(type)) {
    throw new ApiError(
      400,
      ErrorCode.UNSUPPORTED_ACTIVITY,
      `Activity type ${envelope.type} is not served at ${path}`,
    );
  }
  // No lookup first: the insert's conflict on the fingerprint finds a resubmission (one query, not two).
  const fingerprint = createHash("sha256").update(rawBody).digest("hex");

  const now = ctx.now();
  const [intentName, resultName] = INTENT_NAMES[type];
  const params = parseOrThrow(activityParameterSchemas[type], envelope.parameters, "parameters");
  const row: ActivitiesTable = {
    id: randomUUID(),
    org_id: caller.user.orgId,
    user_id: caller.user.id,
    type,
    fingerprint,
    status: "ACTIVITY_STATUS_COMPLETED",
    intent: JSON.stringify({ [intentName]: params }),
    result: "{}",
    failure: null,
    created_at: now,
    updated_at: now,
  };

  // Pure signatures are computed before the write: RFC 6979 makes a lost race produce the same answer.
  if (type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" || type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS") {
    const p = params as {
      signWith: string;
      encoding: SignParams["encoding"];
      hashFunction: SignParams["hashFunction"];
    };
    const { curve, privateKey } = await loadSigningAccount(ctx, caller.user.orgId, p.signWith);
    try {
      const result =
        type === "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
          ? signOne(curve, privateKey, (params as SignParams).payload, p.encoding, p.hashFunction)
          : {
              signatures: (params as { payloads: string[] }).payloads.map((payload) =>
                signOne(curve, privateKey, payload, p.encoding, p.hashFunction),
              ),
            };
      row.result = JSON.stringify({ [resultName]: result });
    } finally {
      privateKey.fill(0);
    }
    return insertOnce(ctx, row);
  }

  // Attestations are verified before the transaction: it needs the app, and holds no lock meanwhile.
  const verified =
    type === "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2" ? await verifyNewPasskeys(ctx, caller, params) : [];
  // ID tokens are checked (JWKS over the network) before the transaction too.
  const tokens =
    type === "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS" ? await verifyNewProviders(ctx, caller, params) : [];

  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("activities")
      .values({ ...row, status: "ACTIVITY_STATUS_PENDING" })
      .onConflict((oc) => oc.column("fingerprint").doNothing())
      .returning("id")
      .executeTakeFirst();
    if (!inserted) {
      const first = await trx
        .selectFrom("activities")
        .selectAll()
        .where("fingerprint", "=", fingerprint)
        .executeTakeFirstOrThrow();
      return { activity: toActivity(first), replayed: true };
    }
    const tctx = { ...ctx, db: trx };
    const result = await runSideEffect(tctx, type, params, caller, now, verified, tokens);
    row.result = JSON.stringify({ [resultName]: result });
    await trx
      .updateTable("activities")
      .set({ status: row.status, result: row.result, updated_at: now })
      .where("id", "=", row.id)
      .execute();
    return { activity: toActivity(row), replayed: false };
  });
  // Revocations are seen by this process's stamp checks at once, also after the commit.
  if (type === "ACTIVITY_TYPE_DELETE_API_KEYS" || type === "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2")
    forgetStampKeys();
  return outcome;
}

async function verifyNewPasskeys(ctx: ActivityContext, caller: StampedCaller, params: unknown) {
  const p = params as z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2"]>;
  if (p.userId !== caller.user.id)
    throw new ApiError(403, ErrorCode.FORBIDDEN, "A session may only act for its own user");
  const app = await ctx.apps.byId(caller.user.appId);
  if (!app) throw notFound("This user's app no longer exists");
  const out: { passkey: VerifiedPasskey; name: string }[] = [];
  for (const a of p.authenticators)
    out.push({ passkey: await verifyPasskeyRegistration(app, a), name: a.authenticatorName });
  return out;
}

async function verifyNewProviders(ctx: ActivityContext, caller: StampedCaller, params: unknown) {
  const p = params as z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS"]>;
  if (p.userId !== caller.user.id)
    throw new ApiError(403, ErrorCode.FORBIDDEN, "A session may only act for its own user");
  const app = await ctx.apps.byId(caller.user.appId);
  if (!app) throw notFound("This user's app no longer exists");
  const out: VerifiedProviderToken[] = [];
  for (const o of p.oauthProviders)
    out.push(
      await verifyProviderToken(ctx, app, o.providerName, o.oidcToken, caller.user.orgId, o.targetPublicKey),
    );
  return out;
}

async function insertOnce(ctx: ActivityContext, row: ActivitiesTable): Promise<SubmitOutcome> {
  const inserted = await ctx.db
    .insertInto("activities")
    .values(row)
    .onConflict((oc) => oc.column("fingerprint").doNothing())
    .returning("id")
    .executeTakeFirst();
  if (inserted) return { activity: toActivity(row), replayed: false };
  const first = await ctx.db
    .selectFrom("activities")
    .selectAll()
    .where("fingerprint", "=", row.fingerprint)
    .executeTakeFirstOrThrow();
  return { activity: toActivity(first), replayed: true };
}

async function runSideEffect(
  ctx: ActivityContext,
  type: ActivityType,
  params: unknown,
  caller: StampedCaller,
  now: number,
  verifiedPasskeys: { passkey: VerifiedPasskey; name: string }[],
  providerTokens: VerifiedProviderToken[] = [],
): Promise<Record<string, unknown>> {
  const self = (userId: string | undefined) => {
    if (userId && userId !== caller.user.id) {
      throw new ApiError(403, ErrorCode.FORBIDDEN, "A session may only act for its own user");
    }
  };
  switch (type) {
    case "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2": {
      const p = params as z.infer<
        (typeof activityParameterSchemas)["ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"]
      >;
      self(p.userId);
      if (p.invalidateExisting) {
        await ctx.db
          .updateTable("api_keys")
          .set({ revoked_at: now })
          .where("user_id", "=", caller.user.id)
          .where("kind", "=", "session")
          .where("revoked_at", "is", null)
          .where("id", "!=", caller.apiKeyId ?? "")
          .execute();
        forgetStampKeys();
      }
      const session = await issueSession(
        ctx.db,
        caller.user,
        p.targetPublicKey,
        p.expirationSeconds,
        now,
        p.apiKeyName ?? "session",
      );
      return {
        organizationId: caller.user.orgId,
        organizationName: "",
        userId: caller.user.id,
        username: caller.user.email ?? "",
        apiKeyId: session.apiKeyId,
        credentialBundle: session.credentialBundle,
      };
    }
    case "ACTIVITY_TYPE_CREATE_API_KEYS_V2": {
      const p = params as z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_CREATE_API_KEYS_V2"]>;
      self(p.userId);
      const apiKeyIds: string[] = [];
      for (const k of p.apiKeys) {
        const id = randomUUID();
        apiKeyIds.push(id);
        await ctx.db
          .insertInto("api_keys")
          .values({
            id,
            org_id: caller.user.orgId,
            user_id: caller.user.id,
            name: k.apiKeyName,
            public_key: compressHex(k.publicKey),
            kind: "api",
            expires_at: k.expirationSeconds ? now + k.expirationSeconds * 1000 : null,
            created_at: now,
            revoked_at: null,
          })
          .execute();
      }
      return { apiKeyIds };
    }
    case "ACTIVITY_TYPE_DELETE_API_KEYS": {
      const p = params as z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_DELETE_API_KEYS"]>;
      self(p.userId);
      const found = await ctx.db
        .selectFrom("api_keys")
        .select("id")
        .where("user_id", "=", caller.user.id)
        .where("id", "in", p.apiKeyIds)
        .where("revoked_at", "is", null)
        .execute();
      if (found.length !== p.apiKeyIds.length) {
        throw notFound("Some of the API keys do not exist for this user", ErrorCode.API_KEY_NOT_FOUND);
      }
      await ctx.db.updateTable("api_keys").set({ revoked_at: now }).where("id", "in", p.apiKeyIds).execute();
      forgetStampKeys();
      return { apiKeyIds: p.apiKeyIds };
    }
    case "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2": {
      const authenticatorIds: string[] = [];
      for (const v of verifiedPasskeys) {
        authenticatorIds.push(await insertAuthenticator(ctx.db, caller.user, v.passkey, v.name, now));
      }
      return { authenticatorIds };
    }
    case "ACTIVITY_TYPE_DELETE_AUTHENTICATORS": {
      const p = params as z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_DELETE_AUTHENTICATORS"]>;
      self(p.userId);
      const mine = await ctx.db
        .selectFrom("authenticators")
        .select("id")
        .where("user_id", "=", caller.user.id)
        .execute();
      const ids = new Set(mine.map((m) => m.id));
      if (!p.authenticatorIds.every((id) => ids.has(id))) {
        throw notFound("Some of the passkeys do not exist for this user", ErrorCode.AUTHENTICATOR_NOT_FOUND);
      }
      await assertKeepsASignInMethod(ctx.db, caller.user.id, { removePasskeys: p.authenticatorIds.length });
      await ctx.db
        .deleteFrom("authenticators")
        .where("user_id", "=", caller.user.id)
        .where("id", "in", p.authenticatorIds)
        .execute();
      return { authenticatorIds: p.authenticatorIds };
    }
    case "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS": {
      const providerIds: string[] = [];
      for (const t of providerTokens) {
        providerIds.push(
          await linkProvider(ctx.db, caller.user, t.providerName, t.issuer, t.subject, t.email, now),
        );
        await markTokenLinked(ctx.db, t.tokenHash, now);
      }
      return { providerIds };
    }
    case "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS": {
      const p = params as z.infer<(typeof activityParameterSchemas)["ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS"]>;
      self(p.userId);
      const mine = await ctx.db
        .selectFrom("user_oauth_providers")
        .select("id")
        .where("user_id", "=", caller.user.id)
        .execute();
      const ids = new Set(mine.map((m) => m.id));
      if (!p.providerIds.every((id) => ids.has(id))) {
        throw notFound(
          "Some of the providers are not linked to this user",
          ErrorCode.OAUTH_PROVIDER_NOT_FOUND,
        );
      }
      await assertKeepsASignInMethod(ctx.db, caller.user.id, { removeProviders: p.providerIds.length });
      await ctx.db
        .deleteFrom("user_oauth_providers")
        .where("user_id", "=", caller.user.id)
        .where("id", "in", p.providerIds)
        .execute();
      return { providerIds: p.providerIds };
    }
    default:
      throw new ApiError(400, ErrorCode.UNSUPPORTED_ACTIVITY, `Activity type ${type} is not supported`);
  }
}

/** The last way to sign in can never be removed (DESIGN §9). */
export async function assertKeepsASignInMethod(
  db: Db,
  userId: string,
  change: { removePasskeys?: number; removeEmail?: boolean; removeProviders?: number },
) {
  const user = await db
    .selectFrom("users")
    .select("email")
    .where("id", "=", userId)
    .executeTakeFirstOrThrow();
  const passkeys = await db
    .selectFrom("authenticators")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  const providers = await db
    .selectFrom("user_oauth_providers")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("user_id", "=", userId)
    .executeTakeFirstOrThrow();
  const remaining =
    (user.email && !change.removeEmail ? 1 : 0) +
    Number(passkeys.n) -
    (change.removePasskeys ?? 0) +
    Number(providers.n) -
    (change.removeProviders ?? 0);
  if (remaining < 1) {
    throw new ApiError(
      409,
      ErrorCode.LAST_AUTH_METHOD,
      "This is the last way to sign in to this account; add another first",
    );
  }
}

function compressHex(pub: string): string {
  if (pub.length === 66) return pub;
  const x = pub.slice(2, 66);
  const yLast = Number.parseInt(pub.slice(-1), 16);
  return `${yLast % 2 === 0 ? "02" : "03"}${x}`;
}

// ---- queries ----

export async function runQuery(
  ctx: ActivityContext,
  name: string,
  caller: StampedCaller,
): Promise<Record<string, unknown>> {
  if (!(name in querySchemas)) throw notFound(`Unknown query endpoint ${name}`);
  const q = name as QueryName;
  const body = parseOrThrow(querySchemas[q], caller.body, "request") as Record<string, string | undefined>;
  const { db } = ctx;
  const { user } = caller;
  const self = (userId: string | undefined) => {
    if (userId && userId !== user.id)
      throw notFound(`No user ${userId} in this organization`, ErrorCode.USER_NOT_FOUND);
  };
  switch (q) {
    case "whoami":
      return {
        organizationId: user.orgId,
        organizationName: "",
        userId: user.id,
        username: user.email ?? "",
      };
    case "get_user": {
      self(body.userId);
      const row = await db
        .selectFrom("users")
        .selectAll()
        .where("id", "=", user.id)
        .executeTakeFirstOrThrow();
      return {
        user: {
          userId: row.id,
          userName: row.email ?? "",
          userEmail: row.email ?? undefined,
          authenticators: (
            await db
              .selectFrom("authenticators")
              .selectAll()
              .where("user_id", "=", user.id)
              .orderBy("created_at")
              .execute()
          ).map(toAuthenticator),
          apiKeys: await apiKeys(db, user.id),
          createdAt: timestamp(row.created_at),
          updatedAt: timestamp(row.created_at),
        },
      };
    }
    case "list_wallets": {
      const rows = await db
        .selectFrom("wallets")
        .select(["id", "name", "created_at"])
        .where("org_id", "=", user.orgId)
        .execute();
      return {
        wallets: rows.map((w) => ({
          walletId: w.id,
          walletName: w.name,
          createdAt: timestamp(w.created_at),
          updatedAt: timestamp(w.created_at),
          exported: false,
          imported: false,
        })),
      };
    }
    case "list_wallet_accounts": {
      const rows = await db
        .selectFrom("wallet_accounts")
        .select(["id", "wallet_id", "curve", "path", "address_format", "address", "public_key", "created_at"])
        .where("org_id", "=", user.orgId)
        .where("wallet_id", "=", body.walletId ?? "")
        .orderBy("created_at")
        .execute();
      if (rows.length === 0)
        throw notFound(`No wallet ${body.walletId} in this organization`, ErrorCode.WALLET_NOT_FOUND);
      return {
        accounts: rows.map((a) => ({
          walletAccountId: a.id,
          organizationId: user.orgId,
          walletId: a.wallet_id,
          curve: a.curve,
          pathFormat: "PATH_FORMAT_BIP32",
          path: a.path,
          addressFormat: a.address_format,
          address: a.address,
          publicKey: a.public_key,
          createdAt: timestamp(a.created_at),
          updatedAt: timestamp(a.created_at),
        })),
      };
    }
    case "get_activity": {
      const row = await db
        .selectFrom("activities")
        .selectAll()
        .where("id", "=", body.activityId ?? "")
        .where("org_id", "=", user.orgId)
        .executeTakeFirst();
      if (!row) throw notFound(`No activity ${body.activityId}`, ErrorCode.ACTIVITY_NOT_FOUND);
      return { activity: toActivity(row) };
    }
    case "get_authenticators": {
      self(body.userId);
      const rows = await db
        .selectFrom("authenticators")
        .selectAll()
        .where("user_id", "=", user.id)
        .orderBy("created_at")
        .execute();
      return { authenticators: rows.map(toAuthenticator) };
    }
    case "get_api_keys":
      self(body.userId);
      return { apiKeys: await apiKeys(db, user.id) };
  }
}

function toAuthenticator(a: {
  id: string;
  name: string;
  credential_id: string;
  transports: string;
  aaguid: string;
  created_at: number;
}) {
  return {
    authenticatorId: a.id,
    authenticatorName: a.name,
    credentialId: a.credential_id,
    transports: JSON.parse(a.transports) as string[],
    aaguid: a.aaguid,
    createdAt: timestamp(a.created_at),
    updatedAt: timestamp(a.created_at),
  };
}

async function apiKeys(db: Db, userId: string) {
  const rows = await db
    .selectFrom("api_keys")
    .select(["id", "name", "public_key", "expires_at", "created_at"])
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .execute();
  return rows.map((k) => ({
    apiKeyId: k.id,
    apiKeyName: k.name,
    credential: { publicKey: k.public_key, type: "CREDENTIAL_TYPE_API_KEY_P256" },
    ...(k.expires_at ? { expirationSeconds: String(Math.round((k.expires_at - k.created_at) / 1000)) } : {}),
    createdAt: timestamp(k.created_at),
  }));
}
