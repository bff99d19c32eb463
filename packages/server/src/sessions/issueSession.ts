import { randomUUID } from "node:crypto";
import {
  DEFAULT_SESSION_EXPIRATION_SECONDS,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  sealCredentialBundle,
  toHex,
} from "@latchkey/protocol";
import type { Db } from "../db";
import type { UserRecord } from "./users";

export interface IssuedSession {
  apiKeyId: string;
  credentialBundle: string;
  expiresAt: number;
}

/**
 * Makes a session API key for `user` and returns its private key sealed to the browser's target key
 * (DESIGN §3.4). Only the public key is stored; the private key exists here for the time of the seal.
 */
export async function issueSession(
  db: Db,
  user: UserRecord,
  targetPublicKey: string,
  expirationSeconds: number | undefined,
  now: number,
  name = "session",
): Promise<IssuedSession> {
  const privateKey = generateP256PrivateKey();
  const publicKey = toHex(p256PublicKeyFromPrivate(privateKey, true));
  const credentialBundle = await sealCredentialBundle({ plaintext: privateKey, targetPublicKey });
  privateKey.fill(0);
  const apiKeyId = randomUUID();
  const expiresAt = now + (expirationSeconds ?? DEFAULT_SESSION_EXPIRATION_SECONDS) * 1000;
  await db
    .insertInto("api_keys")
    .values({
      id: apiKeyId,
      org_id: user.orgId,
      user_id: user.id,
      name: `${name}-${now}`,
      public_key: publicKey,
      kind: "session",
      expires_at: expiresAt,
      created_at: now,
      revoked_at: null,
    })
    .execute();
  return { apiKeyId, credentialBundle, expiresAt };
}
