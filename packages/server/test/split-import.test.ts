/**
 * Importing a wallet into a split-custody app (issue 44, docs/split-custody.md §5, Import): the import frame
 * splits the phrase or key, seals only the service's share to the import key, keeps the user's, and
 * import_wallet checks that the two combine to the accounts sent, then stores the service share sealed and
 * the public rows, in one transaction. Here the frame's part is done in Node with the protocol functions
 * the frame runs (helpers/splitKeyHolder.ts `importSplit`). SQLite and PostgreSQL.
 */
import { randomBytes } from "node:crypto";
import {
  encodeImportSecret,
  type ImportSecret,
  parseImportSecret,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import {
  combineShares,
  decodeWalletSecret,
  decryptRecoveryShare,
  encryptRecoveryShare,
  mnemonicOfSecret,
  newRecoveryCode,
  recoveryCodeBytes,
  sealUserShare,
} from "@latchkey/protocol/custody";
import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";
import { type Hex, recoverAddress } from "viem";
import { privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyBackup } from "../src/backup/verifyBackup";
import { entropyToMnemonic } from "../src/crypto/wallet";
import { isBip39Mnemonic } from "../src/users/importedWallet";
import { type Harness, post, signUpByEmail, startHarness, TEST_APP } from "./helpers";
import {
  type ConvertedHolder,
  exportServiceShare,
  importSplit,
  makeSplitWallet,
  SPLIT,
  SPLIT_APP,
  signRawBody,
} from "./helpers/splitKeyHolder";

const parse = (kind: ImportSecret["kind"], input: string) => parseImportSecret(kind, input, isBip39Mnemonic);

describe.each(["sqlite", "postgres"] as const)("import into a split app (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [TEST_APP, SPLIT_APP], rateLimits: { exportsPerUser: 50 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  const unique = (name: string) => `${name}-${kind}-${randomBytes(3).toString("hex")}@example.com`;
  const splitUser = async (name: string) => {
    const user = await signUpByEmail(h, unique(name), SPLIT);
    return { user, first: await makeSplitWallet(h, user, SPLIT) };
  };
  const phrase = () => entropyToMnemonic(randomBytes(16));

  async function rowsOf(walletId: string) {
    const db = h.service.ctx.db;
    const wallet = await db.selectFrom("wallets").selectAll().where("id", "=", walletId).executeTakeFirst();
    const accounts = await db
      .selectFrom("wallet_accounts")
      .selectAll()
      .where("wallet_id", "=", walletId)
      .orderBy("secret_index")
      .execute();
    return { wallet, accounts };
  }

  async function signsAs(holder: ConvertedHolder, address: string, solana = false) {
    const digest = `0x${randomBytes(32).toString("hex")}`;
    const res = await holder.submit(
      "sign_raw_payload",
      signRawBody(address, digest, solana ? { hashFunction: "HASH_FUNCTION_NOT_APPLICABLE" } : {}),
    );
    if (res.status !== 200) return `${res.status} ${res.json.code}`;
    const { r, s, v } = (
      res.json.activity as { result: { signRawPayloadResult: { r: string; s: string; v: string } } }
    ).result.signRawPayloadResult;
    if (solana) return ed25519.verify(`${r}${s}`, digest.slice(2), base58.decode(address));
    const signer = await recoverAddress({
      hash: digest as Hex,
      signature: { r: `0x${r}`, s: `0x${s}`, yParity: Number.parseInt(v, 16) },
    });
    return signer === address;
  }

  const exportShare = (holder: ConvertedHolder, walletId: string) =>
    exportServiceShare(h.url, holder, walletId);

  it("a phrase: split in the frame, stored as a split wallet with no phrase and no key; it signs, exports and is recovered", async () => {
    const { user, first } = await splitUser("phrase");
    const words = phrase();
    const imported = await importSplit(h, user, SPLIT_APP.id, SPLIT, parse("mnemonic", words));
    expect(imported.status).toBe(200);
    const result = (imported.json.activity as { result: { importWalletResult: Record<string, unknown> } })
      .result.importWalletResult;
    const [evm, sol] = imported.accounts;
    expect(result).toEqual({
      walletId: imported.walletId,
      kind: "mnemonic",
      address: evm?.address,
      solanaAddress: sol?.address,
      importedAddresses: [evm?.address, sol?.address],
    });
    // What the service keeps: the service share sealed, public rows, no phrase, no key.
    const { wallet, accounts } = await rowsOf(imported.walletId);
    expect(wallet).toMatchObject({ custody: "split", sealed_mnemonic: "", imported: "mnemonic" });
    expect(wallet?.sealed_service_share).toEqual(expect.any(String));
    expect(accounts.map((a) => [a.address, a.sealed_private_key, Number(a.secret_index)])).toEqual([
      [evm?.address, "", 0],
      [sol?.address, "", 1],
    ]);
    const audit = await h.service.ctx.db
      .selectFrom("audit_log")
      .select("details")
      .where("user_id", "=", user.userId)
      .where("event", "=", "wallet.imported")
      .executeTakeFirst();
    expect(String(audit?.details)).toContain('"custody":"split"');
    // The imported accounts sign with the imported wallet's share, the first wallet's with its own.
    expect(await signsAs(imported.holder, evm?.address ?? "")).toBe(true);
    expect(await signsAs(imported.holder, sol?.address ?? "", true)).toBe(true);
    expect(await signsAs(first, first.address)).toBe(true);
    // Each share signs for its own wallet only, and none without a share.
    expect(await signsAs(first, evm?.address ?? "")).toBe("400 USER_SHARE_INVALID");
    expect(await signsAs(imported.holder, first.address)).toBe("400 USER_SHARE_INVALID");
    const none = await imported.holder.submit("sign_raw_payload", signRawBody(evm?.address ?? "", "0x00"), {
      share: "none",
    });
    expect([none.status, none.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    // Export: the bundle holds the service share; with the device's share it is the typed phrase.
    const serviceShare = await exportShare(imported.holder, imported.walletId);
    const secret = decodeWalletSecret(await combineShares(imported.userShare, serviceShare));
    expect(mnemonicOfSecret(secret)).toBe(words);
    // Recovery: a blob per wallet; the imported wallet's opens to its share with its code.
    const code = newRecoveryCode();
    const blob = await encryptRecoveryShare({
      userShare: imported.userShare,
      walletId: imported.walletId,
      ikm: recoveryCodeBytes(code),
    });
    const set = await imported.holder.submit(
      "set_recovery_share",
      {
        type: "ACTIVITY_TYPE_SET_RECOVERY_SHARE",
        parameters: { walletId: imported.walletId, kind: "code", blob },
      },
      { share: "none" },
    );
    expect(set.status).toBe(200);
    const body = JSON.stringify({ type: "QUERY_TYPE_GET_RECOVERY_SHARES", organizationId: user.orgId });
    const listed = await post(
      h.url,
      "/signer/v1/get-recovery-shares",
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, user.sessionKey),
          url: "https://s.test/public/v1/query/get_recovery_shares",
        },
      },
      SPLIT,
    );
    const shares = listed.json.recoveryShares as { walletId: string; blob: typeof blob }[];
    const mine = shares.find((r) => r.walletId === imported.walletId);
    expect(mine).toBeDefined();
    const opened = await decryptRecoveryShare({
      blob: mine?.blob ?? blob,
      walletId: imported.walletId,
      ikm: recoveryCodeBytes(code),
    });
    expect(opened).toEqual(imported.userShare);
  });

  it("an EVM key and a Solana key: one account each, split; they sign and export the key", async () => {
    const { user } = await splitUser("keys");
    const evmKey = toHex(randomBytes(32));
    const evm = await importSplit(h, user, SPLIT_APP.id, SPLIT, parse("evm_private_key", evmKey));
    expect(evm.status).toBe(200);
    expect(evm.accounts.map((a) => a.address)).toEqual([privateKeyToAddress(`0x${evmKey}`)]);
    expect((await rowsOf(evm.walletId)).wallet).toMatchObject({
      custody: "split",
      imported: "evm_private_key",
    });
    expect(await signsAs(evm.holder, evm.accounts[0]?.address ?? "")).toBe(true);
    const secret = decodeWalletSecret(
      await combineShares(evm.userShare, await exportShare(evm.holder, evm.walletId)),
    );
    expect(toHex(secret.accounts[0]?.privateKey ?? new Uint8Array())).toBe(evmKey);

    const seed = randomBytes(32);
    const sol = await importSplit(
      h,
      user,
      SPLIT_APP.id,
      SPLIT,
      parse("solana_private_key", base58.encode(seed)),
    );
    expect(sol.status).toBe(200);
    expect(sol.accounts.map((a) => a.address)).toEqual([base58.encode(ed25519.getPublicKey(seed))]);
    expect(await signsAs(sol.holder, sol.accounts[0]?.address ?? "", true)).toBe(true);
    // verify-backup checks split imports as any split wallet: the share opens, each account has its place.
    expect((await verifyBackup({ db: h.service.ctx.db, keyring: h.service.ctx.keyring })).failures).toEqual(
      [],
    );
  });

  it("refusals are coded 4xx and write nothing: no share, another body's, a whole secret, wrong accounts, no wallet yet", async () => {
    const { user } = await splitUser("refused");
    const walletsOf = async () =>
      (await h.service.ctx.db.selectFrom("wallets").select("id").where("org_id", "=", user.orgId).execute())
        .length;
    const secret = parse("mnemonic", phrase());
    const none = await importSplit(h, user, SPLIT_APP.id, SPLIT, secret, { share: "none" });
    expect([none.status, none.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const other = await importSplit(h, user, SPLIT_APP.id, SPLIT, secret, {
      share: async (_body, _own) =>
        sealUserShare({ userShare: new Uint8Array(33), shareKey: await shareKeyOf(), body: "{}" }),
    });
    expect([other.status, other.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    // A frame that did not split: the whole phrase sealed to the import key is never stored.
    const whole = await importSplit(h, user, SPLIT_APP.id, SPLIT, secret, {
      plaintext: () => encodeImportSecret(secret),
    });
    expect([whole.status, whole.json.code]).toEqual([400, "INVALID_IMPORT_SECRET"]);
    const wrong = await importSplit(h, user, SPLIT_APP.id, SPLIT, secret, {
      accounts: (a) => [...a].reverse(),
    });
    expect([wrong.status, wrong.json.code]).toEqual([400, "INVALID_REQUEST"]);
    const fewer = await importSplit(h, user, SPLIT_APP.id, SPLIT, secret, { accounts: (a) => a.slice(0, 1) });
    expect([fewer.status, fewer.json.code]).toEqual([400, "INVALID_REQUEST"]);
    expect(await walletsOf()).toBe(1);
    // The same phrase once more, once imported: 409, nothing added.
    expect((await importSplit(h, user, SPLIT_APP.id, SPLIT, secret)).status).toBe(200);
    const again = await importSplit(h, user, SPLIT_APP.id, SPLIT, secret);
    expect([again.status, again.json.code]).toEqual([409, "WALLET_ALREADY_IMPORTED"]);
    expect(await walletsOf()).toBe(2);
    // A split app's user whose own wallet is not made yet cannot import (still 409, saying why).
    const early = await signUpByEmail(h, unique("early"), SPLIT);
    const text = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: early.orgId,
      type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
      parameters: { userId: early.userId },
    });
    const { submitStamped } = await import("./helpers/splitKeyHolder");
    const init = await submitStamped(h.url, "init_import_wallet", text, early.sessionKey);
    expect([init.status, init.json.code]).toEqual([409, "SPLIT_CUSTODY_UNSUPPORTED"]);
    expect(init.json.message).toContain("before the user's own wallet is made");
  });

  const shareKeyOf = async () => {
    const res = await post(h.url, "/signer/v1/signer-config", {}, SPLIT);
    return (res.json.custody as { shareKey: string }).shareKey;
  };
});
