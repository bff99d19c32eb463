import { IMPORT_KEY_TTL_MS, sealImportBundle, toHex, uncompressP256PublicKey } from "@latchkey/protocol";
import { newP256KeyPair } from "../../crypto/p256Session";
import { splitImportOf } from "../../custody/splitImport";
import { hit } from "../../limits/rateLimit";
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
 * export limit (the same budget: a key is cheap, but not free). For a split user the bundle also says
 * `custody: "split"` and the wallet's id to be, which is the key's id (splitImport.ts).
 */
export const initImportWallet = defineActivity<"ACTIVITY_TYPE_INIT_IMPORT_WALLET", Prepared>({
  type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
  async prepare(ctx, { caller }) {
    const user = caller.user;
    // Split custody: the import frame splits the secret (docs/split-custody.md §5, Import); the bundle
    // tells it so, and the id the wallet will have (the import key's), under which it keeps its share.
    const split = await splitImportOf(ctx, user);
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
      ...(split ? { split: { walletId: id } } : {}),
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
