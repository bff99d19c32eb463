/**
 * THE PROOF of split custody (issue 44, item 5; docs/split-custody.md): the attacker holds everything the
 * operator holds — the database (file or dump, read and write), the master key (env mode), the config and
 * the service's logs — and tries to sign for a split user and to open their recovery blob. Refused,
 * nothing opens. The same attacks against a "service" user succeed, so the test can tell the two apart.
 * SQLite and PostgreSQL with the master key in the environment, and SQLite with it in an HSM (SoftHSM2):
 * there the attacker holds the token and its PIN, and has the HSM unwrap every data key.
 *
 * (a) open every sealed secret of the victim with the keyring and rebuild a key: nothing signs for the
 *     victim's address (a service user's key opens and signs offline);
 * (b) insert a session key for the victim and submit sign_raw_payload: 403 USER_SHARE_REQUIRED, nothing
 *     signed; a forged share (sealed to the public share key) or the service share itself: 400 (a service
 *     user's inserted session signs);
 * (c) replay a share captured from an earlier legit request with a new body: 400 USER_SHARE_INVALID;
 * (d) the recovery blob does not open with the master key, the data keys, the share key or the service
 *     share;
 * (e) an inserted session cannot make a grant (a grant keeps the user's share, so consent must bring it):
 *     403 USER_SHARE_REQUIRED, and a captured share replayed with a grant's body 400;
 * (f) EXPECTED, documented (docs/split-custody.md §5.1): while a grant the victim made is live, the
 *     service holds their share for it, so the attacker opens it and rebuilds the key — a grant makes the
 *     wallet custodial until it ends. Once revoked, the share is gone and nothing opens rebuilds it;
 * (g) a held signature the attacker approves (written into the database) and completes: without the
 *     user's share, with a forged one or a captured one, nothing signs;
 * (h) a user whose whole wallet was split at sign-in (docs/split-custody.md §3.1): the whole copy opens
 *     before the conversion, nothing of theirs after it, and an inserted session signs nothing;
 * (i) a wallet the victim imported (a phrase, split in the import frame, docs/split-custody.md §5): nothing
 *     opened rebuilds its keys, an inserted session signs nothing for it, and its recovery blob does not
 *     open with anything the operator holds;
 * and no share appears in the activity rows, the audit rows or the logs.
 */
import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import {
  compressP256PublicKey,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import {
  combineShares,
  decodeWalletSecret,
  decryptRecoveryShare,
  encryptRecoveryShare,
  newRecoveryCode,
  type RecoveryBlob,
  recoveryCodeBytes,
  sealUserShare,
} from "@latchkey/protocol/custody";
import { ed25519 } from "@noble/curves/ed25519";
import { secp256k1 } from "@noble/curves/secp256k1";
import { base58 } from "@scure/base";
import { type Hex, keccak256, recoverAddress, toHex as viemHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keyring } from "../src/crypto/keyring";
import type { KeyWrapper } from "../src/crypto/keyWrap/keyWrapper";
import { LocalKeyWrapper } from "../src/crypto/keyWrap/localKey";
import { evmAddressFromPrivateKey } from "../src/crypto/wallet";
import { type OpenedDatabase, openDatabase } from "../src/db";
import { type EmailUser, type Harness, post, signUpByEmail, startHarness, TEST_APP } from "./helpers";
import { type SoftHsmToken, softHsmToken } from "./helpers/softHsm";
import {
  convertToSplit,
  importSplit,
  makeSplitWallet,
  SPLIT,
  SPLIT_APP,
  type SplitKeyHolder,
  signRawBody,
  submitStamped,
} from "./helpers/splitKeyHolder";

const SERVICE = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };
/** A service app that moves to split in the test: its user's whole wallet is split (docs §3.1). */
const MOVED_APP = {
  id: "moved-app",
  name: "Moved App",
  apiKeys: ["lk_moved_key_0123456789abcdef"],
  allowedOrigins: ["http://moved.test"],
  emailMode: "OTP" as const,
};
const MOVED = { authorization: `Bearer ${MOVED_APP.apiKeys[0]}` };

const signatureOf = (activity: { result: Record<string, unknown> }) => {
  const r = activity.result.signRawPayloadResult as { r: string; s: string; v: string };
  return `0x${r.r}${r.s}${(27 + Number.parseInt(r.v, 16)).toString(16)}` as Hex;
};

/** Every way the bytes of a secret could be written into a row or a log line. */
const spellings = (bytes: Uint8Array) => {
  const b = Buffer.from(bytes);
  return [b.toString("hex"), b.toString("base64url"), b.toString("base64")];
};

/** Where the master key is: the environment (both databases), or an HSM whose token and PIN they hold. */
const CASES = [
  ["sqlite", "env"],
  ["postgres", "env"],
  ["sqlite", "hsm"],
] as const;

describe.each(CASES)("custody attack: the operator's everything (%s, master key in %s)", (kind, keys) => {
  const masterKey = randomBytes(32);
  let hsm: SoftHsmToken | undefined;
  /** The attacker's hold on the master key: the key itself, or a session on the HSM's token. */
  const attackerWrapper = (): KeyWrapper => (hsm ? hsm.open() : new LocalKeyWrapper(masterKey));
  const logs: string[] = [];
  let h: Harness & { dbUrl: string };
  /** The attacker's own connection to the database and their keyring (the master key, from the env). */
  let stolen: OpenedDatabase;
  let keyring: Keyring;
  let victim: SplitKeyHolder;
  let victimUser: EmailUser;
  let serviceUser: EmailUser;
  /** The sealed shares the victim's legit requests carried (as a captured request would show them). */
  const capturedShares: { body: string; share: string; activityId: string }[] = [];
  let recoveryCode: string;

  beforeAll(async () => {
    if (keys === "hsm") hsm = await softHsmToken(`latchkey-attack-${process.pid}`);
    h = await startHarness(kind, {
      ...(hsm ? { env: hsm.env } : {}),
      apps: [TEST_APP, SPLIT_APP, MOVED_APP],
      ...(hsm ? {} : { masterKey }),
      logLevel: "trace",
      logStream: new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    });
    // The victim: a split user, made the way a key holder makes one, who signs once (legitimately).
    victimUser = await signUpByEmail(h, `victim-${kind}@example.com`, SPLIT);
    victim = await makeSplitWallet(h, victimUser, SPLIT);
    const digest = keccak256(viemHex("the victim's own signature"));
    const legit = await victim.submit("sign_raw_payload", signRawBody(victim.address, digest));
    const activity = legit.json.activity as { id: string; status: string; result: Record<string, unknown> };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverAddress({ hash: digest, signature: signatureOf(activity) })).toBe(victim.address);
    capturedShares.push({ body: legit.text, share: legit.share ?? "", activityId: activity.id });
    // The victim protects the wallet with a recovery code (shown to them once; never to the service).
    recoveryCode = newRecoveryCode();
    const blob = await encryptRecoveryShare({
      userShare: victim.userShare,
      walletId: victim.walletId,
      ikm: recoveryCodeBytes(recoveryCode),
    });
    const set = await victim.submit(
      "set_recovery_share",
      {
        type: "ACTIVITY_TYPE_SET_RECOVERY_SHARE",
        parameters: { walletId: victim.walletId, kind: "code", blob },
      },
      { share: "none" },
    );
    expect(set.status).toBe(200);
    // The control: a "service" user of another app in the same service.
    serviceUser = await signUpByEmail(h, `service-${kind}@example.com`, SERVICE);

    // The attacker: the database and the master key.
    stolen = openDatabase(h.dbUrl);
    keyring = new Keyring(stolen.db, attackerWrapper());
    await keyring.init();
  });
  afterAll(async () => {
    await keyring?.close();
    await stolen?.close();
    await h?.close();
    hsm?.close();
  });

  /** Every sealed column of one user's rows, opened with the stolen keyring (what opens). */
  async function openEverySealedSecret(orgId: string): Promise<Uint8Array[]> {
    const opened: Uint8Array[] = [];
    const tryOpen = async (sealed: string | null | undefined, context: string) => {
      if (!sealed) return;
      opened.push(new Uint8Array(await keyring.open(sealed, context)));
    };
    const wallets = await stolen.db.selectFrom("wallets").selectAll().where("org_id", "=", orgId).execute();
    for (const w of wallets) {
      await tryOpen(w.sealed_mnemonic, `wallet:${w.id}`);
      await tryOpen(w.sealed_service_share, `wallet_share:${w.id}`);
    }
    const accounts = await stolen.db
      .selectFrom("wallet_accounts")
      .selectAll()
      .where("org_id", "=", orgId)
      .execute();
    for (const a of accounts) await tryOpen(a.sealed_private_key, `wallet_account:${a.id}`);
    // Import keys (spent ones are erased; an import bundle sealed to one holds only the service share).
    const importKeys = await stolen.db
      .selectFrom("import_keys")
      .selectAll()
      .where("org_id", "=", orgId)
      .execute();
    for (const k of importKeys) await tryOpen(k.sealed_private_key, `import_key:${k.id}`);
    // A live grant's copy of the user share (split custody, §5.1).
    const grants = await stolen.db.selectFrom("grants").selectAll().where("org_id", "=", orgId).execute();
    for (const g of grants) await tryOpen(g.sealed_user_share, `grant_share:${g.id}`);
    // And the service's own keys (the share key among them).
    const serviceKeys = await stolen.db.selectFrom("service_keys").selectAll().execute();
    for (const k of serviceKeys) await tryOpen(k.sealed_key, `service_key:${k.id}`);
    return opened;
  }

  /** Every key an attacker could build from opened bytes: each 32-byte window, decoded secrets, combines. */
  async function candidateKeys(opened: Uint8Array[]): Promise<Uint8Array[]> {
    const keys: Uint8Array[] = [];
    for (const bytes of opened) {
      for (let i = 0; i + 32 <= bytes.length; i++) keys.push(bytes.slice(i, i + 32));
      try {
        for (const a of decodeWalletSecret(bytes).accounts) keys.push(a.privateKey);
      } catch {}
      // Combined with a guess (zeros, random, itself) in place of the user's share.
      for (const guess of [new Uint8Array(bytes.length), randomBytes(bytes.length), bytes]) {
        try {
          const secret = decodeWalletSecret(await combineShares(new Uint8Array(guess), bytes));
          for (const a of secret.accounts) keys.push(a.privateKey);
        } catch {}
      }
    }
    // Any two opened byte strings combined as the two shares (a grant's copy of the user share among them).
    for (const a of opened) {
      for (const b of opened) {
        if (a === b || a.length !== b.length) continue;
        try {
          const secret = decodeWalletSecret(await combineShares(new Uint8Array(a), new Uint8Array(b)));
          for (const acct of secret.accounts) keys.push(acct.privateKey);
        } catch {}
      }
    }
    return keys;
  }

  const signsFor = (key: Uint8Array, evm: string, solana?: string) => {
    let evmMatch = false;
    try {
      evmMatch = secp256k1.utils.isValidPrivateKey(key) && evmAddressFromPrivateKey(key).address === evm;
    } catch {}
    const solMatch = solana ? base58.encode(ed25519.getPublicKey(key)) === solana : false;
    return evmMatch || solMatch;
  };

  it("(a) every sealed secret of the victim opened with the master key rebuilds no key of theirs", async () => {
    const opened = await openEverySealedSecret(victim.orgId);
    // What opens is the service share (and the service's own keys): never a phrase or an account key.
    expect(opened.length).toBeGreaterThan(0);
    const keys = await candidateKeys(opened);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys.filter((k) => signsFor(k, victim.address, victim.solanaAddress))).toEqual([]);
    // The rows hold no phrase and no account key at all.
    const wallet = await stolen.db
      .selectFrom("wallets")
      .selectAll()
      .where("id", "=", victim.walletId)
      .executeTakeFirstOrThrow();
    expect(wallet.sealed_mnemonic).toBe("");
    const accounts = await stolen.db
      .selectFrom("wallet_accounts")
      .select("sealed_private_key")
      .where("wallet_id", "=", victim.walletId)
      .execute();
    expect(accounts.map((a) => a.sealed_private_key)).toEqual(["", ""]);
  });

  it("(a) the same against a service user succeeds: the sealed key opens and signs offline", async () => {
    const opened = await openEverySealedSecret(serviceUser.orgId);
    const keys = await candidateKeys(opened);
    const key = keys.find((k) => signsFor(k, serviceUser.address));
    expect(key).toBeDefined();
    const digest = keccak256(viemHex("signed offline by the attacker"));
    const account = privateKeyToAccount(viemHex(key as Uint8Array));
    const signature = await account.sign({ hash: digest });
    expect(await recoverAddress({ hash: digest, signature })).toBe(serviceUser.address);
  });

  it("(h) a converted user (a whole wallet split at sign-in): the whole copy opened before, nothing after", async () => {
    const user = await signUpByEmail(h, `converted-${kind}@example.com`, MOVED);
    await stolen.db.updateTable("apps").set({ custody: "split" }).where("id", "=", MOVED_APP.id).execute();
    h.service.ctx.apps.invalidate();
    const { id: walletId } = await stolen.db
      .selectFrom("wallets")
      .select("id")
      .where("org_id", "=", user.orgId)
      .executeTakeFirstOrThrow();
    // Before the conversion the operator opens the whole wallet, as any service wallet.
    const before = await candidateKeys(await openEverySealedSecret(user.orgId));
    expect(before.some((k) => signsFor(k, user.address))).toBe(true);

    const holder = await convertToSplit(h, user, walletId, MOVED);
    const after = await candidateKeys(await openEverySealedSecret(user.orgId));
    expect(after.length).toBeGreaterThan(20);
    expect(after.filter((k) => signsFor(k, user.address, user.solanaAddress))).toEqual([]);
    // An inserted session signs nothing; the user's own holder, with its share, signs.
    const sessionKey = await insertSession(user);
    const drain = await submitStamped(
      h.url,
      "sign_raw_payload",
      bodyFor(user.orgId, user.address, "drain the converted"),
      sessionKey,
    );
    expect([drain.status, drain.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const digest = keccak256(viemHex("the converted user's own signature"));
    const legit = await holder.submit("sign_raw_payload", signRawBody(user.address, digest));
    const activity = legit.json.activity as { result: Record<string, unknown> };
    expect(await recoverAddress({ hash: digest, signature: signatureOf(activity) })).toBe(user.address);
  });

  it("(i) an imported wallet: nothing opened signs for it, an inserted session signs nothing, its blob does not open", async () => {
    const words = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    const { mnemonicToAccount } = await import("viem/accounts");
    const importedAddress = mnemonicToAccount(words).address;
    // A victim of their own: after an import the app uses the imported accounts, grants too ((f) keeps its victim).
    const user = await signUpByEmail(h, `importer-${kind}@example.com`, SPLIT);
    const first = await makeSplitWallet(h, user, SPLIT);
    const imported = await importSplit(h, user, SPLIT_APP.id, SPLIT, { kind: "mnemonic", secret: words });
    expect(imported.status).toBe(200);
    expect(imported.accounts[0]?.address).toBe(importedAddress);
    const solanaAddress = imported.accounts[1]?.address;
    // The victim protects it with a code of its own (a blob per wallet).
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

    const opened = await openEverySealedSecret(user.orgId);
    const keys = await candidateKeys(opened);
    expect(keys.filter((k) => signsFor(k, importedAddress, solanaAddress))).toEqual([]);
    expect(keys.filter((k) => signsFor(k, first.address, first.solanaAddress))).toEqual([]);
    const rows = await stolen.db
      .selectFrom("wallet_accounts")
      .select("sealed_private_key")
      .where("wallet_id", "=", imported.walletId)
      .execute();
    expect(rows.map((r) => r.sealed_private_key)).toEqual(["", ""]);
    // The phrase the victim typed is nowhere in the rows or the logs, in any form.
    await expectNowhere([words, ...spellings(imported.userShare)], user);

    const sessionKey = await insertSession(user);
    const drain = await submitStamped(
      h.url,
      "sign_raw_payload",
      bodyFor(user.orgId, importedAddress, "drain the imported"),
      sessionKey,
    );
    expect([drain.status, drain.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    // A forged share (an opened service share, sealed to the public share key): still nothing.
    const serviceShareAsUsers = opened.find((b) => b.length === imported.userShare.length) as Uint8Array;
    const text = bodyFor(user.orgId, importedAddress, "forged for the imported");
    const forged = await submitStamped(
      h.url,
      "sign_raw_payload",
      text,
      sessionKey,
      await sealUserShare({ userShare: serviceShareAsUsers, shareKey: first.shareKey, body: text }),
    );
    expect([forged.status, forged.json.code]).toEqual([400, "USER_SHARE_INVALID"]);

    const row = await stolen.db
      .selectFrom("recovery_shares")
      .select("blob")
      .where("wallet_id", "=", imported.walletId)
      .executeTakeFirstOrThrow();
    const stored = JSON.parse(row.blob) as RecoveryBlob;
    const wrapper = attackerWrapper();
    const ikms: Uint8Array[] = [...(hsm ? [] : [masterKey]), ...opened, keyring.deriveKey("otp")];
    for (const dk of await stolen.db.selectFrom("data_keys").selectAll().execute()) {
      ikms.push(await wrapper.unwrap(Buffer.from(dk.wrapped_key, "base64"), `data_key:${dk.id}`));
    }
    await wrapper.close();
    for (const ikm of ikms) {
      await expect(
        decryptRecoveryShare({ blob: stored, walletId: imported.walletId, ikm: new Uint8Array(ikm) }),
      ).rejects.toThrow();
    }
    // The user's own holder signs with it.
    const digest = keccak256(viemHex("the imported wallet's own signature"));
    const legit = await imported.holder.submit("sign_raw_payload", signRawBody(importedAddress, digest));
    const activity = legit.json.activity as { result: Record<string, unknown> };
    expect(await recoverAddress({ hash: digest, signature: signatureOf(activity) })).toBe(importedAddress);
  });

  /** Write access: a session key for `user`, inserted into the database; the attacker holds its private key. */
  async function insertSession(user: { orgId: string; userId: string }): Promise<Uint8Array> {
    const privateKey = generateP256PrivateKey();
    const now = Date.now();
    await stolen.db
      .insertInto("api_keys")
      .values({
        id: `attacker-${randomBytes(4).toString("hex")}`,
        org_id: user.orgId,
        user_id: user.userId,
        name: "attacker",
        public_key: toHex(compressP256PublicKey(p256PublicKeyFromPrivate(privateKey, false))),
        kind: "session",
        signed_in_by: null,
        expires_at: now + 3_600_000,
        created_at: now,
        revoked_at: null,
      })
      .execute();
    return privateKey;
  }

  async function completedSignatures(orgId: string): Promise<number> {
    const rows = await stolen.db
      .selectFrom("activities")
      .select("id")
      .where("org_id", "=", orgId)
      .where("status", "=", "ACTIVITY_STATUS_COMPLETED")
      .where("type", "=", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2")
      .execute();
    return rows.length;
  }

  const bodyFor = (orgId: string, signWith: string, text: string) =>
    JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: orgId,
      ...signRawBody(signWith, keccak256(viemHex(text))),
    });

  it("(b) an inserted session for the victim signs nothing: 403 USER_SHARE_REQUIRED, forged shares 400", async () => {
    const sessionKey = await insertSession(victim);
    const before = await completedSignatures(victim.orgId);
    const body = bodyFor(victim.orgId, victim.address, "drain");
    const noShare = await submitStamped(h.url, "sign_raw_payload", body, sessionKey);
    expect([noShare.status, noShare.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    // Through the signer API too.
    const body2 = bodyFor(victim.orgId, victim.address, "drain via the signer API");
    const viaSigner = await post(
      h.url,
      "/signer/v1/sign-payload",
      {
        stampedRequest: {
          body: body2,
          stamp: stampWithPrivateKey(body2, sessionKey),
          url: "https://s.test/public/v1/submit/sign_raw_payload",
        },
      },
      SPLIT,
    );
    expect([viaSigner.status, viaSigner.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    // A share the attacker makes: random bytes, or the service share they opened, sealed to the public
    // share key for their body.
    const opened = await openEverySealedSecret(victim.orgId);
    const serviceShare = opened.find((b) => b.length === victim.userShare.length) as Uint8Array;
    expect(serviceShare).toBeDefined();
    for (const forged of [
      randomBytes(victim.userShare.length),
      serviceShare,
      new Uint8Array(serviceShare.length),
    ]) {
      const text = bodyFor(victim.orgId, victim.address, `forged ${forged[0]}`);
      const share = await sealUserShare({
        userShare: new Uint8Array(forged),
        shareKey: victim.shareKey,
        body: text,
      });
      const res = await submitStamped(h.url, "sign_raw_payload", text, sessionKey, share);
      expect([res.status, res.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    }
    expect(await completedSignatures(victim.orgId)).toBe(before);
    // Every refusal is recorded FAILED with no result.
    const failed = await stolen.db
      .selectFrom("activities")
      .select(["result", "failure"])
      .where("org_id", "=", victim.orgId)
      .where("status", "=", "ACTIVITY_STATUS_FAILED")
      .execute();
    expect(failed.length).toBeGreaterThanOrEqual(5);
    for (const f of failed) expect(f.result).toBe("{}");
  });

  it("(b) the same against a service user succeeds: the inserted session signs", async () => {
    const sessionKey = await insertSession(serviceUser);
    const digest = keccak256(viemHex("drain the service user"));
    const text = JSON.stringify({
      timestampMs: String(Date.now()),
      organizationId: serviceUser.orgId,
      ...signRawBody(serviceUser.address, digest),
    });
    const res = await submitStamped(h.url, "sign_raw_payload", text, sessionKey);
    const activity = res.json.activity as { status: string; result: Record<string, unknown> };
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverAddress({ hash: digest, signature: signatureOf(activity) })).toBe(
      serviceUser.address,
    );
  });

  it("(c) a share captured from a legit request, replayed with a new body: 400 USER_SHARE_INVALID", async () => {
    const sessionKey = await insertSession(victim);
    const before = await completedSignatures(victim.orgId);
    const [captured] = capturedShares;
    expect(captured?.share).toBeTruthy();
    const text = bodyFor(victim.orgId, victim.address, "replayed share");
    const res = await submitStamped(h.url, "sign_raw_payload", text, sessionKey, captured?.share);
    expect([res.status, res.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    // The captured body itself, resent, only answers the activity it already made (nothing new is signed).
    const resent = await submitStamped(
      h.url,
      "sign_raw_payload",
      captured?.body ?? "",
      sessionKey,
      captured?.share,
    );
    if (resent.status === 200) expect((resent.json.activity as { id: string }).id).toBe(captured?.activityId);
    else expect(resent.status).toBeGreaterThanOrEqual(400);
    expect(await completedSignatures(victim.orgId)).toBe(before);
  });

  it("(g) a held signature the attacker approves (writing the approval into the database) still signs nothing", async () => {
    // docs/split-custody.md §7: an approval only lets the user's device complete the signature with its
    // share. The attacker writes a held, approved signature for the victim and completes it themselves.
    const now = Date.now();
    const heldId = `held-${randomBytes(4).toString("hex")}`;
    const digest = keccak256(viemHex("an approved drain"));
    await stolen.db
      .insertInto("activities")
      .values({
        id: heldId,
        org_id: victim.orgId,
        user_id: victim.userId,
        type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
        fingerprint: randomBytes(32).toString("hex"),
        status: "ACTIVITY_STATUS_CONSENSUS_NEEDED",
        intent: JSON.stringify({ signRawPayloadIntentV2: signRawBody(victim.address, digest).parameters }),
        result: "{}",
        failure: null,
        created_at: now,
        updated_at: now,
        approved_by: "attacker",
        approved_at: now,
        approval_expires_at: now + 3_600_000,
      })
      .execute();
    const sessionKey = await insertSession(victim);
    const completion = (text: string) =>
      JSON.stringify({
        type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
        timestampMs: String(Date.now()),
        organizationId: victim.orgId,
        parameters: { activityId: heldId, note: text },
      });
    const body = () =>
      JSON.stringify({
        type: "ACTIVITY_TYPE_COMPLETE_ACTIVITY",
        timestampMs: String(Date.now() + Math.floor(Math.random() * 1000)),
        organizationId: victim.orgId,
        parameters: { activityId: heldId },
      });
    // A body the schema refuses never reaches the key (400 before anything).
    expect((await submitStamped(h.url, "complete_activity", completion("x"), sessionKey)).status).toBe(400);
    const noShare = await submitStamped(h.url, "complete_activity", body(), sessionKey);
    expect([noShare.status, noShare.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const opened = await openEverySealedSecret(victim.orgId);
    const serviceShare = opened.find((b) => b.length === victim.userShare.length) as Uint8Array;
    const forgedBody = body();
    const forged = await sealUserShare({
      userShare: new Uint8Array(serviceShare),
      shareKey: victim.shareKey,
      body: forgedBody,
    });
    const withForged = await submitStamped(h.url, "complete_activity", forgedBody, sessionKey, forged);
    expect([withForged.status, withForged.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const [captured] = capturedShares;
    const replayed = await submitStamped(h.url, "complete_activity", body(), sessionKey, captured?.share);
    expect([replayed.status, replayed.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const held = await stolen.db
      .selectFrom("activities")
      .select(["status", "result"])
      .where("id", "=", heldId)
      .executeTakeFirstOrThrow();
    expect([held.status, held.result]).toEqual(["ACTIVITY_STATUS_CONSENSUS_NEEDED", "{}"]);
  });

  it("(d) the recovery blob does not open with the master key, the data keys, the share key or the service share", async () => {
    const row = await stolen.db
      .selectFrom("recovery_shares")
      .select("blob")
      .where("wallet_id", "=", victim.walletId)
      .executeTakeFirstOrThrow();
    const blob = JSON.parse(row.blob) as RecoveryBlob;
    const wrapper = attackerWrapper();
    const dataKeys = await stolen.db.selectFrom("data_keys").selectAll().execute();
    const ikms: Uint8Array[] = [...(hsm ? [] : [masterKey]), ...(await openEverySealedSecret(victim.orgId))];
    for (const dk of dataKeys) {
      ikms.push(await wrapper.unwrap(Buffer.from(dk.wrapped_key, "base64"), `data_key:${dk.id}`));
    }
    await wrapper.close();
    ikms.push(keyring.deriveKey("otp"));
    for (const ikm of ikms) {
      await expect(
        decryptRecoveryShare({ blob, walletId: victim.walletId, ikm: new Uint8Array(ikm) }),
      ).rejects.toThrow();
    }
    // Only the code the user was shown opens it.
    const share = await decryptRecoveryShare({
      blob,
      walletId: victim.walletId,
      ikm: recoveryCodeBytes(recoveryCode),
    });
    expect(Buffer.from(share).equals(Buffer.from(victim.userShare))).toBe(true);
  });

  /** No needle (a share, in any spelling, or a sealed share as sent) in the victim's rows or the logs. */
  async function expectNowhere(needles: string[], who: { orgId: string; userId: string } = victim) {
    const activities = await stolen.db
      .selectFrom("activities")
      .select(["intent", "result", "failure"])
      .where("org_id", "=", who.orgId)
      .execute();
    const audits = await stolen.db
      .selectFrom("audit_log")
      .select(["event", "details"])
      .where("user_id", "=", who.userId)
      .execute();
    expect(logs.length).toBeGreaterThan(0);
    const haystacks = [
      ...activities.map((a) => `${a.intent} ${a.result} ${a.failure ?? ""}`),
      ...audits.map((a) => `${a.event} ${a.details ?? ""}`),
      logs.join("\n"),
    ];
    for (const needle of needles) {
      expect(needle.length).toBeGreaterThan(20);
      for (const haystack of haystacks) expect(haystack.includes(needle)).toBe(false);
    }
  }

  it("no share is in the activity rows, the audit rows or the logs", async () => {
    const opened = await openEverySealedSecret(victim.orgId);
    const serviceShare = opened.find((b) => b.length === victim.userShare.length) as Uint8Array;
    await expectNowhere([
      ...spellings(victim.userShare),
      ...spellings(serviceShare),
      ...capturedShares.map((c) => c.share),
    ]);
  });

  /** A grant operation stamped by `sessionKey` through the signer API, with `userShare` if given. */
  async function grantCall(
    sessionKey: Uint8Array,
    op: "create" | "revoke",
    parameters: Record<string, unknown>,
    userShare?: (body: string) => Promise<string>,
  ) {
    const body = JSON.stringify({
      type: op === "create" ? "OPERATION_TYPE_CREATE_GRANT" : "OPERATION_TYPE_REVOKE_GRANT",
      timestampMs: String(Date.now()),
      organizationId: victim.orgId,
      parameters,
    });
    const share = userShare ? await userShare(body) : undefined;
    const res = await post(
      h.url,
      `/signer/v1/grants/${op}`,
      {
        stampedRequest: {
          body,
          stamp: stampWithPrivateKey(body, sessionKey),
          url: "https://s.test/public/v1/query/whoami",
          ...(share ? { userShare: share } : {}),
        },
      },
      SPLIT,
    );
    return { ...res, share };
  }
  const permissions = () => ({ chainIds: [1], messages: true, expiresAt: Date.now() + 3_600_000 });

  it("(e) an inserted session makes no grant: 403 USER_SHARE_REQUIRED; a captured share replayed 400", async () => {
    const sessionKey = await insertSession(victim);
    const none = await grantCall(sessionKey, "create", { permissions: permissions() });
    expect([none.status, none.json.code]).toEqual([403, "USER_SHARE_REQUIRED"]);
    const replayed = await grantCall(sessionKey, "create", { permissions: permissions() }, async () =>
      String(capturedShares[0]?.share),
    );
    expect([replayed.status, replayed.json.code]).toEqual([400, "USER_SHARE_INVALID"]);
    const grants = await stolen.db
      .selectFrom("grants")
      .select("id")
      .where("org_id", "=", victim.orgId)
      .execute();
    expect(grants).toEqual([]);
  });

  it("(f) EXPECTED: with a live grant the attacker rebuilds the key from the grant's share; after revoking, nothing does", async () => {
    // The victim consents to a grant for the app's backend: their key holder hands over the share.
    const created = await grantCall(victimUser.sessionKey, "create", { permissions: permissions() }, (body) =>
      victim.sealFor(body),
    );
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const grantId = (created.json.grant as { grantId: string }).grantId;
    // While it lives, the database and the master key open both shares: the attacker signs anything,
    // offline, not only what the grant allows (its caps bind the service, not the attacker).
    const live = await candidateKeys(await openEverySealedSecret(victim.orgId));
    const key = live.find((k) => signsFor(k, victim.address));
    expect(key).toBeDefined();
    const digest = keccak256(viemHex("signed offline under a live grant"));
    const signature = await privateKeyToAccount(viemHex(key as Uint8Array)).sign({ hash: digest });
    expect(await recoverAddress({ hash: digest, signature })).toBe(victim.address);

    // The victim revokes it: the share is destroyed with the revocation, and nothing opens rebuilds a key.
    const revoked = await grantCall(victimUser.sessionKey, "revoke", { grantId });
    expect(revoked.status).toBe(200);
    const row = await stolen.db
      .selectFrom("grants")
      .select(["status", "sealed_user_share"])
      .where("id", "=", grantId)
      .executeTakeFirstOrThrow();
    expect([row.status, row.sealed_user_share]).toEqual(["revoked", null]);
    const after = await candidateKeys(await openEverySealedSecret(victim.orgId));
    expect(after.filter((k) => signsFor(k, victim.address, victim.solanaAddress))).toEqual([]);
    // And the consent's share went nowhere else.
    await expectNowhere([...spellings(victim.userShare), String(created.share)]);
  });
});
