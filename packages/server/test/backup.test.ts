import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import SQLite from "better-sqlite3";
import { hashMessage, recoverAddress } from "viem";
import { describe, expect, it } from "vitest";
import { startTestService } from "../../../test-support/service";
import { openDatabase } from "../src/db";
import {
  codeFrom,
  type EmailUser,
  freshDatabase,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startSmtp,
  TEST_APP,
  targetKey,
} from "./helpers";
import { LATCHKEY_BIN as BIN, latchkey as latchkeyHere } from "./helpers/latchkey";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}`, origin: "http://app.test" };
const RATE_LIMITS = { signupsPerIp: 10_000, mailsPerIp: 10_000, otpAttemptsPerIp: 10_000 };

const envWith = (masterKey: string) => ({
  ...process.env,
  LATCHKEY_MASTER_KEY: masterKey,
  LATCHKEY_MASTER_KEY_FILE: "",
});

/** `latchkey <args>` in this process: its exit code and output, without throwing on a failure. */
async function latchkey(args: string[], masterKey: string) {
  const { code, stdout, stderr } = await latchkeyHere(args, { env: envWith(masterKey) });
  return { code, out: stdout + stderr };
}

/** `latchkey <args>` in a process of its own (the built CLI): its exit code and output. */
async function latchkeyProcess(args: string[], masterKey: string) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: envWith(masterKey),
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe.each(["sqlite", "postgres"] as const)("backup drill on %s", (kind) => {
  it("a backup taken during sign-ups restores whole: it verifies, and every user signs with the same address", async () => {
    const masterKey = randomBytes(32);
    const masterHex = masterKey.toString("hex");
    const smtp = await startSmtp();
    const live = await freshDatabase(kind);
    const restored = kind === "postgres" ? await freshDatabase(kind) : undefined;
    const dir = mkdtempSync(join(tmpdir(), "latchkey-backup-"));
    const out = join(dir, kind === "sqlite" ? "backup.db" : "backup.dump");
    const first = await startTestService({
      db: live.url,
      masterKey,
      smtpUrl: smtp.url,
      apps: [TEST_APP],
      rateLimits: RATE_LIMITS,
      logLevel: "silent",
    });
    const signedUp = new Map<string, EmailUser>();
    try {
      const h = { url: first.url, smtp };
      let n = 0;
      const signUp = async () => {
        const email = `drill-${kind}-${n++}@example.com`;
        signedUp.set(email, await signUpByEmail(h as never, email, KEY));
      };
      for (let i = 0; i < 4; i++) await signUp();
      // Sign-ups go on, three at a time, while the backup runs in its own process.
      let backingUp = true;
      const load = Promise.all(
        Array.from({ length: 3 }, async () => {
          while (backingUp) await signUp();
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      const backup = await latchkeyProcess(["backup", "--db", live.url, "--out", out], masterHex);
      // A few more after it, which the backup must not have.
      await new Promise((r) => setTimeout(r, 300));
      backingUp = false;
      await load;
      // And two after it that the backup cannot hold: the copy is of one moment, not of the end.
      await signUp();
      await signUp();
      expect(backup.out).toContain(`Backup written to ${out}`);
      expect(backup.code).toBe(0);
    } finally {
      await first.close();
    }

    // Restore into a fresh database: the SQLite copy is one; a dump goes through pg_restore.
    let restoredUrl = out;
    if (restored) {
      await promisify(execFile)("pg_restore", ["--no-owner", "--dbname", restored.url, out]);
      restoredUrl = restored.url;
    }
    const verified = await latchkey(["verify-backup", "--db", restoredUrl], masterHex);
    expect(verified.out).toContain("Backup OK");
    expect(verified.code).toBe(0);

    const opened = openDatabase(restoredUrl);
    const users = await opened.db.selectFrom("users").select(["id", "email"]).execute();
    const accounts = await opened.db
      .selectFrom("wallet_accounts")
      .innerJoin("wallets", "wallets.id", "wallet_accounts.wallet_id")
      .select(["wallets.user_id", "wallet_accounts.address_format", "wallet_accounts.address"])
      .execute();
    await opened.close();
    expect(users.length).toBeGreaterThanOrEqual(4);
    expect(users.length).toBeLessThan(signedUp.size);

    const second = await startTestService({
      db: restoredUrl,
      masterKey,
      smtpUrl: smtp.url,
      apps: [TEST_APP],
      rateLimits: RATE_LIMITS,
      logLevel: "silent",
    });
    try {
      // Four users at a time: each signs in again by a mailed code.
      const checkUser = async (u: (typeof users)[number]) => {
        const before = signedUp.get(u.email as string);
        expect(before, `${u.email} was signed up`).toBeDefined();
        if (!before) return;
        // Whole: the user's wallet has both its accounts, the ones the sign-up answered.
        const mine = accounts.filter((a) => a.user_id === u.id);
        expect(mine.map((a) => a.address_format).sort()).toEqual([
          "ADDRESS_FORMAT_ETHEREUM",
          "ADDRESS_FORMAT_SOLANA",
        ]);
        expect(mine.find((a) => a.address_format === "ADDRESS_FORMAT_SOLANA")?.address).toBe(
          before.solanaAddress,
        );
        // Signs in again by email code on the restored service, and signs with the same EVM address.
        const t = targetKey();
        const since = smtp.mails.length;
        const auth = await post(
          second.url,
          "/signer/v1/auth",
          { email: u.email, targetPublicKey: t.publicKey },
          KEY,
        );
        expect(auth.status).toBe(200);
        const code = codeFrom((await smtp.waitFor(u.email as string, since)).raw);
        const otp = await post(
          second.url,
          "/signer/v1/otp",
          { orgId: auth.json.orgId, otpId: auth.json.otpId, otpCode: code, targetPublicKey: t.publicKey },
          KEY,
        );
        expect(otp.status).toBe(200);
        const sessionKey = await t.open(otp.json.credentialBundle as string);
        const digest = hashMessage(`restored ${u.email}`);
        const signed = await post(
          second.url,
          "/signer/v1/sign-payload",
          stamped(
            "/public/v1/submit/sign_raw_payload",
            signBody(before.orgId, before.address, digest, "HASH_FUNCTION_NO_OP"),
            sessionKey,
          ),
          KEY,
        );
        expect(signed.status).toBe(200);
        expect(
          await recoverAddress({ hash: digest, signature: signed.json.signature as `0x${string}` }),
        ).toBe(before.address);
      };
      for (let i = 0; i < users.length; i += 4) await Promise.all(users.slice(i, i + 4).map(checkUser));
    } finally {
      await second.close();
      await smtp.close();
      await live.drop();
      await restored?.drop();
    }
  }, 240_000);
});

describe("verify-backup", () => {
  it("names a tampered sealed secret by its row id, never printing a secret, and refuses a wrong master key", async () => {
    const masterKey = randomBytes(32);
    const masterHex = masterKey.toString("hex");
    const smtp = await startSmtp();
    const live = await freshDatabase("sqlite");
    const service = await startTestService({
      db: live.url,
      masterKey,
      smtpUrl: smtp.url,
      apps: [TEST_APP],
      logLevel: "silent",
    });
    try {
      await signUpByEmail({ url: service.url, smtp } as never, "tamper-a@example.com", KEY);
      await signUpByEmail({ url: service.url, smtp } as never, "tamper-b@example.com", KEY);
    } finally {
      await service.close();
      await smtp.close();
    }
    const dir = mkdtempSync(join(tmpdir(), "latchkey-backup-"));
    const good = join(dir, "good.db");
    expect((await latchkey(["backup", "--db", live.url, "--out", good], masterHex)).code).toBe(0);
    expect((await latchkey(["verify-backup", "--db", good], masterHex)).code).toBe(0);

    // One byte of one account's sealed private key flipped, in a copy.
    const tampered = join(dir, "tampered.db");
    copyFileSync(good, tampered);
    const db = new SQLite(tampered);
    const row = db.prepare("SELECT id, sealed_private_key FROM wallet_accounts LIMIT 1").get() as {
      id: string;
      sealed_private_key: string;
    };
    const [v, keyId, data] = row.sealed_private_key.split(".");
    const bytes = Buffer.from(data as string, "base64url");
    bytes[20] = (bytes[20] as number) ^ 1;
    db.prepare("UPDATE wallet_accounts SET sealed_private_key = ? WHERE id = ?").run(
      `${v}.${keyId}.${bytes.toString("base64url")}`,
      row.id,
    );
    const mnemonics = db.prepare("SELECT sealed_mnemonic FROM wallets").all() as {
      sealed_mnemonic: string;
    }[];
    db.close();
    const bad = await latchkey(["verify-backup", "--db", tampered], masterHex);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain(`FAILED wallet_account ${row.id}: the private key does not open`);
    expect(bad.out).toContain("1 failure(s)");
    // Nothing secret: no mnemonic word list, no key material, no sealed value.
    expect(bad.out).not.toContain(row.sealed_private_key.slice(-20));
    for (const m of mnemonics) expect(bad.out).not.toContain(m.sealed_mnemonic.slice(-20));
    expect(bad.out).not.toMatch(/\b[0-9a-f]{64}\b/);
    expect(bad.out.split("\n").filter((l) => /^([a-z]+ ){11}[a-z]+$/.test(l.trim()))).toEqual([]);

    const wrong = await latchkey(["verify-backup", "--db", good], randomBytes(32).toString("hex"));
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain("Wrong master key");
  }, 120_000);
});
