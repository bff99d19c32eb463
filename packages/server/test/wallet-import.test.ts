/**
 * Wallet import (issue 38): `init_import_wallet` answers a fresh key for one import, signed by the service's
 * import-signing key, which `/frames/import` pins; the frame seals the user's phrase or key to it, and
 * `import_wallet` opens it (single use, short-lived, after a fresh sign-in), stores the wallet sealed, audits
 * and mails. The imported accounts sign, and export back what was imported. Here the frame's part is done in
 * Node with the same protocol functions the frame runs. SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  encodeImportSecret,
  encryptToImportKey,
  IMPORT_KEY_TTL_MS,
  type ImportSecretKind,
  openExportBundle,
  parseImportSecret,
  STEP_UP_MAX_AGE_MS,
  stampWithPrivateKey,
  verifyImportBundle,
} from "@latchkey/protocol";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { recoverAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBackup } from "../src/backup/verifyBackup";
import { deriveAccounts, entropyToMnemonic } from "../src/crypto/wallet";
import { isBip39Mnemonic } from "../src/users/importedWallet";
import {
  type EmailUser,
  type Harness,
  LINK_APP,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
  verificationToken as verifyContact,
} from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
const OTHER_APP = {
  ...TEST_APP,
  id: "other-app",
  name: "Other App",
  apiKeys: ["lk_other_key_0123456789abcdef"],
};
const OTHER_KEY = { authorization: `Bearer ${OTHER_APP.apiKeys[0]}` };

describe.each(["sqlite", "postgres"] as const)("wallet import (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind, {
      rateLimits: { exportsPerUser: 20 },
      apps: [TEST_APP, LINK_APP, OTHER_APP],
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;

  function submit(user: EmailUser, path: string, type: string, parameters: Record<string, unknown>) {
    const text = JSON.stringify({
      type,
      timestampMs: String(h.clock.now),
      organizationId: user.orgId,
      parameters,
    });
    return post(h.url, `/public/v1/submit/${path}`, text, {
      "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
    });
  }
  const query = (user: EmailUser, path: string, body: Record<string, unknown>) => {
    const text = JSON.stringify({ organizationId: user.orgId, ...body });
    return post(h.url, `/public/v1/query/${path}`, text, {
      "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
    });
  };

  /** The import frame's pinned key, as `/frames/import` writes it into the page. */
  async function importFrame() {
    const res = await fetch(`${h.url}/frames/import?appId=${TEST_APP.id}`);
    const html = await res.text();
    return {
      status: res.status,
      csp: res.headers.get("content-security-policy") ?? "",
      signer: /name="latchkey-import-signer" content="([0-9a-f]+)"/.exec(html)?.[1] ?? "",
    };
  }

  /** init_import_wallet, then what the frame does: check the bundle, seal `input` of `kind` to its key. */
  async function sealForImport(user: EmailUser, secretKind: ImportSecretKind, input: string) {
    const init = await submit(user, "init_import_wallet", "ACTIVITY_TYPE_INIT_IMPORT_WALLET", {
      userId: user.userId,
    });
    expect(init.json.code ?? "").toBe("");
    const importBundle = (
      init.json.activity as { result: { initImportWalletResult: { importBundle: string } } }
    ).result.initImportWalletResult.importBundle;
    const { targetPublicKey } = verifyImportBundle({
      importBundle,
      organizationId: user.orgId,
      userId: user.userId,
      signerPublicKey: (await importFrame()).signer,
      nowMs: h.clock.now,
    });
    const seal = (plaintext: Uint8Array) => encryptToImportKey({ plaintext, targetPublicKey });
    return {
      targetPublicKey,
      seal,
      encryptedBundle: await seal(encodeImportSecret(parseImportSecret(secretKind, input, isBip39Mnemonic))),
    };
  }

  const importWith = (user: EmailUser, encryptedBundle: string, proof: Record<string, unknown> = {}) =>
    submit(user, "import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", {
      userId: user.userId,
      encryptedBundle,
      ...proof,
    });

  type Imported = {
    walletId: string;
    kind: string;
    address: string;
    solanaAddress: string;
    importedAddresses: string[];
  };
  const resultOf = (res: Awaited<ReturnType<typeof post>>) =>
    (res.json.activity as { result: { importWalletResult: Imported } }).result.importWalletResult;

  async function whoami(user: EmailUser) {
    const who = await post(
      h.url,
      "/signer/v1/whoami",
      stamped("/public/v1/query/whoami", { organizationId: user.orgId }, user.sessionKey),
      KEY,
    );
    return who.json as { address: string; solanaAddress: string };
  }

  async function signsAs(user: EmailUser, address: string, solana: boolean) {
    const digest = `0x${randomBytes(32).toString("hex")}`;
    const text = JSON.stringify(
      signBody(
        user.orgId,
        address,
        digest,
        solana ? "HASH_FUNCTION_NOT_APPLICABLE" : "HASH_FUNCTION_NO_OP",
        h.clock.now,
      ),
    );
    const res = await post(h.url, "/public/v1/submit/sign_raw_payload", text, {
      "X-Stamp": stampWithPrivateKey(text, user.sessionKey).stampHeaderValue,
    });
    expect(res.json.code ?? "").toBe("");
    const { r, s, v } = (
      res.json.activity as { result: { signRawPayloadResult: { r: string; s: string; v: string } } }
    ).result.signRawPayloadResult;
    if (solana) return ed25519.verify(`${r}${s}`, digest.slice(2), base58.decode(address));
    const signer = await recoverAddress({
      hash: digest as `0x${string}`,
      signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number.parseInt(v, 16) },
    });
    return signer === address;
  }

  /** export_wallet of the user's first listed wallet (the one in use), opened as the export frame does. */
  async function exported(user: EmailUser): Promise<string> {
    const wallets = (await query(user, "list_wallets", { type: "QUERY_TYPE_LIST_WALLETS" })).json.wallets as {
      walletId: string;
    }[];
    const target = targetKey();
    const res = await submit(user, "export_wallet", "ACTIVITY_TYPE_EXPORT_WALLET", {
      walletId: wallets[0]?.walletId,
      targetPublicKey: target.publicKey,
    });
    expect(res.json.code ?? "").toBe("");
    const exportBundle = (res.json.activity as { result: { exportWalletResult: { exportBundle: string } } })
      .result.exportWalletResult.exportBundle;
    const frame = await fetch(`${h.url}/frames/export?appId=${TEST_APP.id}`).then((r) => r.text());
    const signer = /name="latchkey-export-signer" content="([0-9a-f]+)"/.exec(frame)?.[1] ?? "";
    const plain = await openExportBundle({
      exportBundle,
      targetPrivateKey: target.privateKey,
      targetPublicKey: target.publicKey,
      organizationId: user.orgId,
      signerPublicKey: signer,
    });
    return new TextDecoder().decode(plain);
  }

  async function rows(userId: string) {
    const db = h.service.ctx.db;
    const [wallets, audits, activities] = await Promise.all([
      db.selectFrom("wallets").select(["id", "imported"]).where("user_id", "=", userId).execute(),
      db
        .selectFrom("audit_log")
        .select("details")
        .where("user_id", "=", userId)
        .where("event", "=", "wallet.imported")
        .execute(),
      db
        .selectFrom("activities")
        .select("id")
        .where("user_id", "=", userId)
        .where("type", "=", "ACTIVITY_TYPE_IMPORT_WALLET")
        .execute(),
    ]);
    return { wallets: wallets.length, audits, activities: activities.length };
  }

  it("serves the import frame with its own CSP and pins an import-signing key of its own", async () => {
    const frame = await importFrame();
    expect(frame.status).toBe(200);
    expect(frame.csp).toMatch(/default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-/);
    expect(frame.csp).toContain("connect-src 'none'");
    expect(frame.csp).toContain("frame-ancestors http://app.test");
    expect(frame.signer).toMatch(/^04[0-9a-f]{128}$/);
    const exportFrame = await fetch(`${h.url}/frames/export?appId=${TEST_APP.id}`).then((r) => r.text());
    expect(exportFrame).not.toContain(frame.signer);
  });

  it("a 24-word phrase: its addresses are the user's, they sign, and export gives back the same words", async () => {
    const email = unique("phrase");
    const user = await signUpByEmail(h, email, KEY);
    const mnemonic = entropyToMnemonic(randomBytes(32));
    const [evm, sol] = deriveAccounts(mnemonic);
    const sealed = await sealForImport(user, "mnemonic", `  ${mnemonic.replace(/ /g, "  \n")} `);
    expect(sealed.encryptedBundle).not.toContain(mnemonic.split(" ")[0] as string);
    const before = h.smtp.mails.length;
    const res = await importWith(user, sealed.encryptedBundle);
    expect(res.json.code ?? "").toBe("");
    expect(res.status).toBe(200);
    expect(resultOf(res)).toMatchObject({
      kind: "mnemonic",
      address: evm?.address,
      solanaAddress: sol?.address,
      importedAddresses: [evm?.address, sol?.address],
    });
    expect(await whoami(user)).toMatchObject({ address: evm?.address, solanaAddress: sol?.address });
    expect(await signsAs(user, evm?.address as string, false)).toBe(true);
    expect(await signsAs(user, sol?.address as string, true)).toBe(true);
    expect(await exported(user)).toBe(mnemonic);

    const { wallets, audits, activities } = await rows(user.userId);
    expect([wallets, activities]).toEqual([2, 1]);
    expect(JSON.parse(audits[0]?.details as string)).toMatchObject({
      kind: "mnemonic",
      addresses: [evm?.address, sol?.address],
      replaced: { address: user.address, solanaAddress: user.solanaAddress },
      stepUp: "session",
    });
    await expect
      .poll(() =>
        h.smtp.mails.slice(before).some((m) => m.to === email && m.raw.includes("A wallet was imported")),
      )
      .toBe(true);
    // Sealed at rest: the phrase is nowhere in the database's wallet rows.
    const stored = await h.service.ctx.db.selectFrom("wallets").select("sealed_mnemonic").execute();
    expect(stored.some((w) => w.sealed_mnemonic.includes(mnemonic.split(" ")[1] as string))).toBe(false);

    // The key is spent: another secret sealed to it is refused, and so is the same phrase again.
    const again = await importWith(
      user,
      await sealed.seal(encodeImportSecret({ kind: "mnemonic", secret: mnemonic })),
    );
    expect([again.status, again.json.code]).toEqual([400, "IMPORT_KEY_USED"]);
    const twice = await importWith(user, (await sealForImport(user, "mnemonic", mnemonic)).encryptedBundle);
    expect([twice.status, twice.json.code]).toEqual([409, "WALLET_ALREADY_IMPORTED"]);
    expect((await rows(user.userId)).activities).toBe(1);
    expect((await verifyBackup({ db: h.service.ctx.db, keyring: h.service.ctx.keyring })).failures).toEqual(
      [],
    );
  });

  it("an EVM private key: the EVM account is the key's, the Solana one stays; export gives the key", async () => {
    const user = await signUpByEmail(h, unique("evm"), KEY);
    const key = `0x${randomBytes(32).toString("hex")}` as const;
    const address = privateKeyToAddress(key);
    const res = await importWith(
      user,
      (await sealForImport(user, "evm_private_key", key.toUpperCase().replace("0X", "0x"))).encryptedBundle,
    );
    expect(res.json.code ?? "").toBe("");
    expect(resultOf(res)).toMatchObject({
      kind: "evm_private_key",
      address,
      solanaAddress: user.solanaAddress,
      importedAddresses: [address],
    });
    expect(await whoami(user)).toMatchObject({ address, solanaAddress: user.solanaAddress });
    expect(await signsAs(user, address, false)).toBe(true);
    expect(JSON.parse(await exported(user))).toEqual({ evmPrivateKey: key });
    expect((await verifyBackup({ db: h.service.ctx.db, keyring: h.service.ctx.keyring })).failures).toEqual(
      [],
    );
  });

  it("a Solana private key (Phantom's base58 secret key): the Solana account is the key's, the EVM one stays", async () => {
    const user = await signUpByEmail(h, unique("solana"), KEY);
    const seed = randomBytes(32);
    const secretKey = base58.encode(Buffer.concat([seed, ed25519.getPublicKey(seed)]));
    const address = base58.encode(ed25519.getPublicKey(seed));
    const res = await importWith(
      user,
      (await sealForImport(user, "solana_private_key", secretKey)).encryptedBundle,
    );
    expect(res.json.code ?? "").toBe("");
    expect(resultOf(res)).toMatchObject({
      kind: "solana_private_key",
      address: user.address,
      solanaAddress: address,
    });
    expect(await whoami(user)).toMatchObject({ address: user.address, solanaAddress: address });
    expect(await signsAs(user, address, true)).toBe(true);
    expect(JSON.parse(await exported(user))).toEqual({ solanaSecretKey: secretKey });
  });

  it("refuses a key or phrase another user holds, in this app or another (WALLET_HELD_BY_ANOTHER_USER), writing nothing", async () => {
    const held = [
      409,
      "WALLET_HELD_BY_ANOTHER_USER",
      "This wallet is another account's: a key can be imported into one account only",
    ];
    const holder = await signUpByEmail(h, unique("holder"), KEY);
    const key = `0x${randomBytes(32).toString("hex")}` as const;
    const first = await importWith(
      holder,
      (await sealForImport(holder, "evm_private_key", key)).encryptedBundle,
    );
    expect(first.json.code ?? "").toBe("");
    // Another user of the same app, with the same key.
    const taker = await signUpByEmail(h, unique("taker"), KEY);
    const same = await importWith(
      taker,
      (await sealForImport(taker, "evm_private_key", key)).encryptedBundle,
    );
    expect([same.status, same.json.code, same.json.message]).toEqual(held);
    // A user of another app, with the phrase of a wallet the service made for someone.
    const maker = await signUpByEmail(h, unique("maker"), KEY);
    const phrase = await exported(maker);
    const outsider = await signUpByEmail(h, unique("outsider"), OTHER_KEY);
    const other = await importWith(
      outsider,
      (await sealForImport(outsider, "mnemonic", phrase)).encryptedBundle,
    );
    expect([other.status, other.json.code, other.json.message]).toEqual(held);
    for (const u of [taker, outsider]) {
      const { wallets, activities, audits } = await rows(u.userId);
      expect([wallets, activities, audits.length]).toEqual([1, 0, 0]);
    }
    expect(await whoami(taker)).toMatchObject({ address: taker.address });
  });

  it("needs a fresh sign-in (STEP_UP_REQUIRED); a code mailed to the user's email then imports", async () => {
    const email = unique("stale");
    const user = await signUpByEmail(h, email, KEY);
    const { encryptedBundle } = await sealForImport(user, "evm_private_key", randomBytes(32).toString("hex"));
    h.clock.advance(STEP_UP_MAX_AGE_MS + 1000);
    const refused = await importWith(user, encryptedBundle);
    expect([refused.status, refused.json.code]).toEqual([403, "STEP_UP_REQUIRED"]);
    expect(refused.json.details).toEqual([{ stepUpMethods: ["email"] }]);
    expect(await rows(user.userId)).toMatchObject({ wallets: 1, activities: 0 });
    // The refusal spent nothing: the same sealed secret imports with the proof.
    const token = await verifyContact(h, KEY, email);
    const ok = await importWith(user, encryptedBundle, { verificationToken: token });
    expect([ok.status, ok.json.code]).toEqual([200, undefined]);
    expect(JSON.parse((await rows(user.userId)).audits[0]?.details as string).stepUp).toBe("email");
  });

  it("refuses an expired import key, even with a fresh sign-in", async () => {
    const email = unique("expired");
    const user = await signUpByEmail(h, email, KEY);
    const { encryptedBundle } = await sealForImport(user, "evm_private_key", randomBytes(32).toString("hex"));
    h.clock.advance(IMPORT_KEY_TTL_MS + 1000);
    const token = await verifyContact(h, KEY, email);
    const late = await importWith(user, encryptedBundle, { verificationToken: token });
    expect([late.status, late.json.code]).toEqual([400, "IMPORT_KEY_EXPIRED"]);
    expect(await rows(user.userId)).toMatchObject({ wallets: 1, activities: 0 });
  });

  it("answers malformed input with stable 4xx codes and writes nothing", async () => {
    const user = await signUpByEmail(h, unique("bad"), KEY);
    const other = await signUpByEmail(h, unique("other"), KEY);
    const sealed = await sealForImport(user, "mnemonic", entropyToMnemonic(randomBytes(16)));
    const codes: Record<string, unknown> = {};
    const attempt = async (name: string, parameters: Record<string, unknown>, as = user) => {
      const res = await submit(as, "import_wallet", "ACTIVITY_TYPE_IMPORT_WALLET", parameters);
      codes[name] = [res.status, res.json.code];
    };
    const bundle = JSON.parse(sealed.encryptedBundle) as Record<string, string>;
    await attempt("no bundle", { userId: user.userId });
    await attempt("not JSON", { userId: user.userId, encryptedBundle: "{oops" });
    await attempt("a field missing", {
      userId: user.userId,
      encryptedBundle: JSON.stringify({ ciphertext: "00" }),
    });
    await attempt("a changed byte", {
      userId: user.userId,
      encryptedBundle: JSON.stringify({ ...bundle, ciphertext: `${bundle.ciphertext?.slice(0, -2)}00` }),
    });
    await attempt("a key the service never made", {
      userId: user.userId,
      encryptedBundle: await encryptToImportKey({
        plaintext: new Uint8Array(8),
        targetPublicKey: targetKey().publicKey,
      }),
    });
    await attempt(
      "another user's key",
      { userId: other.userId, encryptedBundle: sealed.encryptedBundle },
      other,
    );
    await attempt("for another user", { userId: other.userId, encryptedBundle: sealed.encryptedBundle });
    // What the frame would refuse, sealed by hand: a phrase with a bad checksum, a key of the wrong length.
    const badPhrase = { kind: "mnemonic" as const, secret: Array(12).fill("abandon").join(" ") };
    await attempt("not a BIP-39 phrase", {
      userId: user.userId,
      encryptedBundle: await sealed.seal(encodeImportSecret(badPhrase)),
    });
    await attempt("not a key", {
      userId: user.userId,
      encryptedBundle: await sealed.seal(encodeImportSecret({ kind: "evm_private_key", secret: "12ab" })),
    });
    await attempt("not JSON inside", {
      userId: user.userId,
      encryptedBundle: await sealed.seal(new Uint8Array([1, 2])),
    });
    expect(codes).toEqual({
      "no bundle": [400, "INVALID_REQUEST"],
      "not JSON": [400, "INVALID_IMPORT_BUNDLE"],
      "a field missing": [400, "INVALID_IMPORT_BUNDLE"],
      "a changed byte": [400, "INVALID_IMPORT_BUNDLE"],
      "a key the service never made": [400, "INVALID_IMPORT_BUNDLE"],
      "another user's key": [400, "INVALID_IMPORT_BUNDLE"],
      "for another user": [403, "FORBIDDEN"],
      "not a BIP-39 phrase": [400, "INVALID_IMPORT_SECRET"],
      "not a key": [400, "INVALID_IMPORT_SECRET"],
      "not JSON inside": [400, "INVALID_IMPORT_SECRET"],
    });
    expect(await rows(user.userId)).toMatchObject({ wallets: 1, activities: 0 });
    // Refusals spend nothing: the key still imports what the frame sealed.
    const ok = await importWith(user, sealed.encryptedBundle);
    expect([ok.status, ok.json.code]).toEqual([200, undefined]);
  });
});
