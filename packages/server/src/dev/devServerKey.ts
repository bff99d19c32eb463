import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fromHex, p256PublicKeyFromPrivate, toHex } from "@latchkey/protocol";
import { createAdminKeyFile } from "../keyManagement/policies/adminCli";

/**
 * The dev app's server key (dev mode only): made once in the data folder (`dev-server-key`, mode 0600,
 * 64 hex digits, what `latchkey server-key create` writes), so that a local bot — the demo's, or an app's
 * own backend in development — can sign within users' grants with `@latchkey/backend`.
 */
export function devServerKey(dataDir: string): { file: string; publicKey: string } {
  const file = join(dataDir, "dev-server-key");
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    return { file, publicKey: createAdminKeyFile(file) };
  }
  const privateKey = fromHex(readFileSync(file, "utf8").trim().replace(/^0x/, ""));
  return { file, publicKey: toHex(p256PublicKeyFromPrivate(privateKey, true)) };
}
