import type { ServiceContext } from "../../context";
import type { ServerKey } from "./config";

/** An app's server key (`apps[].serverKeys`), with the app it signs for. */
export interface AppServerKey {
  appId: string;
  orgId: string;
  name: string;
  publicKey: string;
}

/** How long the keys read from the apps are kept: a key removed from the config stops within seconds. */
const TTL_MS = 5_000;

/** The keys by public key, per service (its app directory): read from the apps at most every TTL_MS. */
const cached = new WeakMap<object, { byKey: Map<string, AppServerKey>; at: number }>();

/**
 * The app whose `serverKeys` lists this key (compressed P-256, hex), with the key's name; null for any
 * other key (a user's session key, an admin key, an unknown one).
 *
 * @example
 * const key = await serverKeyOf(ctx, stamp.publicKey); // { appId: "shop", name: "bot", … } or null
 */
export async function serverKeyOf(
  ctx: Pick<ServiceContext, "db" | "now" | "apps">,
  publicKey: string,
): Promise<AppServerKey | null> {
  const now = ctx.now();
  let entry = cached.get(ctx.apps);
  if (!entry || now - entry.at >= TTL_MS) {
    const rows = await ctx.db
      .selectFrom("apps")
      .select(["id", "org_id", "server_keys"])
      .where("server_keys", "is not", null)
      .execute();
    const byKey = new Map<string, AppServerKey>();
    for (const row of rows)
      for (const key of JSON.parse(row.server_keys as string) as ServerKey[])
        byKey.set(key.publicKey, {
          appId: row.id,
          orgId: row.org_id,
          name: key.name,
          publicKey: key.publicKey,
        });
    entry = { byKey, at: now };
    cached.set(ctx.apps, entry);
  }
  return entry.byKey.get(publicKey.toLowerCase()) ?? null;
}
