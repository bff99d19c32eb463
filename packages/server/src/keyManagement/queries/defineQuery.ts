import type { QueryName, QueryResponse, querySchemas } from "@latchkey/protocol";
import type { z } from "zod";
import type { StampedCaller } from "../../auth/stamps/authenticateStamp";
import type { ServiceContext } from "../../context";
import { wireTimestamp } from "../toActivity";

export type QueryContext = Pick<ServiceContext, "db" | "apps" | "caches"> & {
  /** The chains the service reads (preview_signing simulates on them); absent in contexts that have none. */
  chains?: ServiceContext["chains"];
};

/** One read-only key-management query (`POST /public/v1/query/<name>`), its body and answer typed from protocol. */
export interface QueryHandler<N extends QueryName> {
  name: N;
  run(
    ctx: QueryContext,
    input: { caller: StampedCaller; body: z.output<(typeof querySchemas)[N]> },
  ): Promise<QueryResponse<N>>;
}

export function defineQuery<N extends QueryName>(handler: QueryHandler<N>): QueryHandler<N> {
  return handler;
}

export function toAuthenticator(a: {
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
    createdAt: wireTimestamp(a.created_at),
    updatedAt: wireTimestamp(a.created_at),
  };
}

export async function apiKeysOf(
  ctx: QueryContext,
  userId: string,
): Promise<QueryResponse<"get_api_keys">["apiKeys"]> {
  const rows = await ctx.db
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
    createdAt: wireTimestamp(k.created_at),
  }));
}
