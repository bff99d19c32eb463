import { IMPORT_KEY_TTL_MS, sealImportBundle, toHex, uncompressP256PublicKey } from "@latchkey/protocol";
import { newP256KeyPair } from "../../crypto/p256Session";
import { splitUnsupported } from "../../custody/shareKey";
import { hit } from "../../limits/rateLimit";
import { isSplitUser } from "../../users/userStore";
import { defineActivity } from "../defineActivity";

interface Prepared {
  id: string;
  publicKey: string;
  sealedPrivateKey: string;
  expiresAt: number;
  importBundle: string;
}

/**
 * `init_import_wallet`: a fresh P-256 key for one wallet import, answered as an import bundle signed by
 * the service's import-signing key (which `/frames/import` pins), so the import frame seals the user's
 * secret to this key and no other. The key's private half is sealed at rest like every secret, lives
 * `IMPORT_KEY_TTL_MS`, and opens one `import_wallet` (importWallet.ts). Counted against the user's
 * export limit (the same budget: a key is cheap, but not free).
 */
export const initImportWallet = defineActivity<"ACTIVITY_TYPE_INIT_IMPORT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
  async prepare(ctx, { caller }) {
    const user = caller.user;
    // Split custody: an import must be split in the import frame (a later slice), never stored whole.
    if (await isSplitUser(ctx, caller.user)) throw splitUnsupported("Importing a wallet");
    await hit(ctx, {
      key: `import-wallet-key:${user.id}`,
      limit: ctx.limits.exportsPerUser,
      message: "Too many wallet imports. Try again later.",
    });
    const id = ctx.random.uuid();
    const { privateKey, publicKeyHex } = newP256KeyPair();
    const publicKey = uncompressP256PublicKey(Buffer.from(publicKeyHex, "hex"));
    const sealedPrivateKey = ctx.keyring.seal(privateKey, `import_key:${id}`);
    privateKey.fill(0);
    const expiresAt = ctx.now() + IMPORT_KEY_TTL_MS;
    const importBundle = await sealImportBundle({
      targetPublicKey: publicKey,
      organizationId: user.orgId,
      userId: user.id,
      expiresAtMs: expiresAt,
      signerPublicKey: await ctx.serviceKeys.publicKey("importSigner"),
      sign: (data) => ctx.serviceKeys.signP256Der("importSigner", data),
    });
    return { id, publicKey: toHex(publicKey), sealedPrivateKey, expiresAt, importBundle };
  },
  async run(tx, { caller, prepared }) {
    await tx.db
      .insertInto("import_keys")
      .values({
        id: prepared.id,
        user_id: caller.user.id,
        org_id: caller.user.orgId,
        public_key: prepared.publicKey,
        sealed_private_key: prepared.sealedPrivateKey,
        expires_at: prepared.expiresAt,
        used_at: null,
        created_at: tx.now(),
      })
      .execute();
    return { importBundle: prepared.importBundle };
  },
});
