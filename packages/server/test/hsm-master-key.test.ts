import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { hashMessage, recoverAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService } from "../../../test-support/service";
import { Pkcs11KeyWrapper, pkcs11SettingsFromEnv } from "../src/crypto/keyWrap/pkcs11";
import { openDatabase } from "../src/db";
import {
  type EmailUser,
  freshDatabase,
  post,
  type Smtp,
  signBody,
  signUpByEmail,
  stamped,
  startSmtp,
  TEST_APP,
} from "./helpers";
import { LATCHKEY_BIN as BIN, latchkey as latchkeyHere } from "./helpers/latchkey";
import { waitForLine } from "./helpers/waitForLine";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}`, origin: "http://app.test" };
const MODULE = "/usr/lib/softhsm/libsofthsm2.so";
const TOKEN = "latchkey-test";
const PIN = "246810";

// A SoftHSM2 token of its own, in a temp folder: SOFTHSM2_CONF points the library (in this process and
// in the CLI's) at it.
const hsmDir = mkdtempSync(join(tmpdir(), "latchkey-softhsm-"));
const HSM_ENV = {
  LATCHKEY_KEY_BACKEND: "pkcs11",
  LATCHKEY_PKCS11_MODULE: MODULE,
  LATCHKEY_PKCS11_TOKEN_LABEL: TOKEN,
  LATCHKEY_PKCS11_PIN: PIN,
};

const envWith = (env: Record<string, string>) => ({
  ...process.env,
  LATCHKEY_MASTER_KEY: "",
  LATCHKEY_MASTER_KEY_FILE: "",
  ...env,
});

/** `latchkey <args>` in this process with `env` over this process's: exit code and output, never throwing. */
async function latchkey(args: string[], env: Record<string, string>) {
  const { code, stdout, stderr } = await latchkeyHere(args, { env: envWith(env) });
  return { code, out: stdout + stderr };
}

/** `latchkey <args>` in a process of its own (the built CLI), with `env` over this process's. */
async function latchkeyProcess(args: string[], env: Record<string, string>) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], {
      env: envWith(env),
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

/** Starts the service in this process on `db` with the HSM (or `masterKey`). */
function startOn(db: string, smtp: Smtp, key: { masterKey: Buffer } | { env: Record<string, string> }) {
  return startTestService({
    db,
    // No key of the helper's own: the given one, or the HSM that `env` names.
    masterKey: "masterKey" in key ? key.masterKey : undefined,
    env: "masterKey" in key ? {} : key.env,
    smtpUrl: smtp.url,
    apps: [TEST_APP],
    rateLimits: { signupsPerIp: 1000, mailsPerIp: 1000, otpAttemptsPerIp: 1000 },
    logLevel: "silent",
  });
}

/** The user's session signs a message on `url`; returns the recovered address. */
async function signs(url: string, user: EmailUser, text: string): Promise<string> {
  const digest = hashMessage(text);
  const res = await post(
    url,
    "/signer/v1/sign-payload",
    stamped(
      "/public/v1/submit/sign_raw_payload",
      signBody(user.orgId, user.address, digest, "HASH_FUNCTION_NO_OP"),
      user.sessionKey,
    ),
    KEY,
  );
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return recoverAddress({ hash: digest, signature: res.json.signature as `0x${string}` });
}

/** What is stored: the SQLite file's bytes (and its folder), or PostgreSQL's rows that matter. */
async function snapshot(kind: "sqlite" | "postgres", url: string): Promise<string> {
  if (kind === "sqlite") {
    const dir = resolve(url, "..");
    const files = readdirSync(dir).sort();
    return `${files.join(",")}:${files
      .map((f) =>
        createHash("sha256")
          .update(readFileSync(join(dir, f)))
          .digest("hex"),
      )
      .join(",")}`;
  }
  const opened = openDatabase(url);
  try {
    const keys = await opened.db.selectFrom("data_keys").selectAll().orderBy("id").execute();
    const users = await opened.db.selectFrom("users").select(["id", "email"]).orderBy("id").execute();
    const wallets = await opened.db
      .selectFrom("wallets")
      .select(["id", "sealed_mnemonic"])
      .orderBy("id")
      .execute();
    return JSON.stringify({ keys, users, wallets });
  } finally {
    await opened.close();
  }
}

async function dataKeys(url: string) {
  const opened = openDatabase(url);
  try {
    return await opened.db.selectFrom("data_keys").selectAll().orderBy("id").execute();
  } finally {
    await opened.close();
  }
}

let hsmKeyId = "";
beforeAll(async () => {
  mkdirSync(join(hsmDir, "tokens"));
  const conf = join(hsmDir, "softhsm2.conf");
  writeFileSync(
    conf,
    `directories.tokendir = ${join(hsmDir, "tokens")}\nobjectstore.backend = file\nlog.level = ERROR\n`,
  );
  process.env.SOFTHSM2_CONF = conf;
  execFileSync("softhsm2-util", [
    "--init-token",
    "--free",
    "--label",
    TOKEN,
    "--so-pin",
    "13579111",
    "--pin",
    PIN,
  ]);
  // `hsm init` makes the key; a second time it refuses and changes nothing.
  const made = await latchkey(["hsm", "init"], HSM_ENV);
  expect(made.out).toContain(`Created the AES-256 master key "latchkey-master-key"`);
  expect(made.code).toBe(0);
  hsmKeyId = /\((p11-[0-9a-f]{16})\)/.exec(made.out)?.[1] as string;
  expect(hsmKeyId).toMatch(/^p11-/);
  const again = await latchkey(["hsm", "init"], HSM_ENV);
  expect(again.code).toBe(1);
  expect(again.out).toContain(`already has a key labelled "latchkey-master-key"; nothing was changed`);
  // The key is in the token as made: not extractable, sensitive, AES, and this process opens it by label.
  const wrapper = Pkcs11KeyWrapper.open(pkcs11SettingsFromEnv(HSM_ENV));
  expect(wrapper.id).toBe(hsmKeyId);
  const dataKey = randomBytes(32);
  const wrapped = await wrapper.wrap(dataKey, "data_key:x");
  expect(wrapped.includes(dataKey)).toBe(false);
  expect((await wrapper.unwrap(wrapped, "data_key:x")).equals(dataKey)).toBe(true);
  await expect(wrapper.unwrap(wrapped, "data_key:y")).rejects.toThrow(/does not open/);
  await wrapper.close();
}, 240_000);

afterAll(() => {
  rmSync(hsmDir, { recursive: true, force: true });
});

describe.each(["sqlite", "postgres"] as const)("the master key in an HSM (SoftHSM2) on %s", (kind) => {
  let smtp: Smtp;
  let database: { url: string; drop(): Promise<void> };
  let user: EmailUser;
  beforeAll(async () => {
    smtp = await startSmtp();
    database = await freshDatabase(kind);
  });
  afterAll(async () => {
    await smtp.close();
    await database.drop();
  });

  it("signs up on the HSM's key, restarts and signs with the same address; two instances (two processes) share the token; backup verifies", async () => {
    const first = await startOn(database.url, smtp, { env: HSM_ENV });
    try {
      user = await signUpByEmail({ url: first.url, smtp } as never, `hsm-${kind}@example.com`, KEY);
      expect(await signs(first.url, user, "before restart")).toBe(user.address);
    } finally {
      await first.close();
    }
    // Only the HSM's key wraps the data keys: nothing in the database opens without the token.
    const keys = await dataKeys(database.url);
    expect(keys.map((k) => k.kek_id)).toEqual([hsmKeyId]);

    const again = await startOn(database.url, smtp, { env: HSM_ENV });
    const config = join(mkdtempSync(join(tmpdir(), "latchkey-hsm-")), "config.json");
    writeFileSync(config, JSON.stringify({ apps: [TEST_APP] }));
    const other = spawn(
      process.execPath,
      [BIN, "serve", "--db", database.url, "--port", "0", "--config", config],
      {
        env: { ...process.env, ...HSM_ENV, LATCHKEY_MASTER_KEY: "", LATCHKEY_SMTP_URL: smtp.url },
      },
    );
    try {
      const out = await waitForLine(other, /on (http:\/\/\S+)/, 90_000);
      const otherUrl = /on (http:\/\/\S+)/.exec(out)?.[1] as string;
      expect(await signs(again.url, user, "after restart")).toBe(user.address);
      expect(await signs(otherUrl, user, "from the other process")).toBe(user.address);
      // A user signed up on one instance signs on the other.
      const second = await signUpByEmail({ url: otherUrl, smtp } as never, `hsm2-${kind}@example.com`, KEY);
      expect(await signs(again.url, second, "across instances")).toBe(second.address);
    } finally {
      if (other.exitCode === null) {
        const exited = new Promise((r) => other.once("exit", r));
        other.kill("SIGTERM");
        await exited;
      }
      await again.close();
    }

    // backup / verify-backup in HSM mode: verify-backup opens the copy with the HSM's key.
    const dir = mkdtempSync(join(tmpdir(), "latchkey-hsm-backup-"));
    const out = join(dir, kind === "sqlite" ? "backup.db" : "backup.dump");
    const backup = await latchkey(["backup", "--db", database.url, "--out", out], HSM_ENV);
    expect(backup.code, backup.out).toBe(0);
    const restored = kind === "postgres" ? await freshDatabase(kind) : undefined;
    try {
      if (restored) await promisify(execFile)("pg_restore", ["--no-owner", "--dbname", restored.url, out]);
      const backupUrl = restored?.url ?? out;
      const verified = await latchkey(["verify-backup", "--db", backupUrl], HSM_ENV);
      expect(verified.out).toContain("Backup OK");
      expect(verified.out).toMatch(/wallet_account: [1-9]/);
      expect(verified.code).toBe(0);
      // With the env key instead, the same backup is refused.
      const wrong = await latchkey(["verify-backup", "--db", backupUrl], {
        LATCHKEY_KEY_BACKEND: "env",
        LATCHKEY_MASTER_KEY: randomBytes(32).toString("hex"),
      });
      expect(wrong.code).toBe(1);
      expect(wrong.out).toContain("Wrong master key");
    } finally {
      await restored?.drop();
    }
  }, 300_000);

  it("a wrong PIN, a missing token or a missing key refuses to start with a clear message, touching nothing", async () => {
    const before = await snapshot(kind, database.url);
    const refusals: [Record<string, string>, string][] = [
      [{ LATCHKEY_PKCS11_PIN: "999999" }, `PKCS#11: the PIN for token "${TOKEN}" is wrong`],
      [{ LATCHKEY_PKCS11_TOKEN_LABEL: "no-such-token" }, `PKCS#11: no token labelled "no-such-token"`],
      [
        { LATCHKEY_PKCS11_KEY_LABEL: "no-such-key" },
        `PKCS#11: no key labelled "no-such-key" in token "${TOKEN}"`,
      ],
      [
        { LATCHKEY_PKCS11_MODULE: "/nonexistent/libpkcs11.so" },
        "PKCS#11: no module at /nonexistent/libpkcs11.so",
      ],
    ];
    for (const [change, message] of refusals) {
      await expect(startOn(database.url, smtp, { env: { ...HSM_ENV, ...change } })).rejects.toThrow(message);
    }
    // The command says it and exits non-zero.
    const cli = await latchkeyProcess(["serve", "--db", database.url, "--port", "0"], {
      ...HSM_ENV,
      LATCHKEY_PKCS11_PIN: "999999",
    });
    expect(cli.code).toBe(1);
    expect(cli.out).toContain(
      `latchkey: PKCS#11: the PIN for token "${TOKEN}" is wrong (LATCHKEY_PKCS11_PIN)`,
    );
    expect(await snapshot(kind, database.url)).toBe(before);
    // And a right configuration still starts on it.
    const ok = await startOn(database.url, smtp, { env: HSM_ENV });
    try {
      expect(await signs(ok.url, user, "still fine")).toBe(user.address);
    } finally {
      await ok.close();
    }
  }, 300_000);

  it("rotates from the env key into the HSM and back out; users sign throughout; a half-rotated database is refused, then finished", async () => {
    const db = await freshDatabase(kind);
    const envKey = randomBytes(32);
    const newKey = randomBytes(32);
    try {
      const onEnv = await startOn(db.url, smtp, { masterKey: envKey });
      let u: EmailUser;
      try {
        u = await signUpByEmail({ url: onEnv.url, smtp } as never, `rotate-${kind}@example.com`, KEY);
      } finally {
        await onEnv.close();
      }

      // env → HSM
      const intoHsm = await latchkey(["rotate-master-key", "--db", db.url, "--to", "pkcs11"], {
        ...HSM_ENV,
        LATCHKEY_MASTER_KEY: envKey.toString("hex"),
      });
      expect(intoHsm.out).toContain("Re-wrapped 1 data key(s)");
      expect(intoHsm.code).toBe(0);
      expect((await dataKeys(db.url)).map((k) => k.kek_id)).toEqual([hsmKeyId]);
      await expect(startOn(db.url, smtp, { masterKey: envKey })).rejects.toThrow(
        "This database's data keys were wrapped by a different master key",
      );
      const onHsm = await startOn(db.url, smtp, { env: HSM_ENV });
      try {
        expect(await signs(onHsm.url, u, "on the HSM")).toBe(u.address);
      } finally {
        await onHsm.close();
      }

      // HSM → env (a new key)
      const outOfHsm = await latchkey(["rotate-master-key", "--db", db.url, "--to", "env"], {
        ...HSM_ENV,
        LATCHKEY_NEW_MASTER_KEY: newKey.toString("hex"),
      });
      expect(outOfHsm.out).toContain("Re-wrapped 1 data key(s)");
      expect(outOfHsm.code).toBe(0);
      await expect(startOn(db.url, smtp, { env: HSM_ENV })).rejects.toThrow(
        "This database's data keys were wrapped by a different master key",
      );
      const back = await startOn(db.url, smtp, { masterKey: newKey });
      try {
        expect(await signs(back.url, u, "back on env")).toBe(u.address);
      } finally {
        await back.close();
      }

      // A second data key still wrapped by the HSM (as a rotation left half-way would leave it): the
      // service refuses, touching nothing; rotating again finishes it.
      const hsm = Pkcs11KeyWrapper.open(pkcs11SettingsFromEnv(HSM_ENV));
      const extra = await hsm.wrap(randomBytes(32), "data_key:dk-extra");
      await hsm.close();
      const opened = openDatabase(db.url);
      await opened.db
        .insertInto("data_keys")
        .values({
          id: "dk-extra",
          wrapped_key: extra.toString("base64"),
          kek_id: hsmKeyId,
          active: 0,
          created_at: Date.now(),
        })
        .execute();
      await opened.close();
      const mixed = await snapshot(kind, db.url);
      await expect(startOn(db.url, smtp, { masterKey: newKey })).rejects.toThrow(
        "This database is half-rotated: 1 of 2 data keys are wrapped by another master key",
      );
      expect(await snapshot(kind, db.url)).toBe(mixed);

      // A rotation that cannot open every key (one wrapped by a key nobody has) changes nothing at all.
      const stray = openDatabase(db.url);
      await stray.db
        .insertInto("data_keys")
        .values({
          id: "dk-stray",
          wrapped_key: randomBytes(60).toString("base64"),
          kek_id: "0123456789abcdef",
          active: 0,
          created_at: Date.now(),
        })
        .execute();
      await stray.close();
      const withStray = await snapshot(kind, db.url);
      const failed = await latchkey(["rotate-master-key", "--db", db.url, "--to", "env"], {
        ...HSM_ENV,
        LATCHKEY_MASTER_KEY: newKey.toString("hex"),
      });
      expect(failed.code).toBe(1);
      expect(failed.out).toContain("Data key dk-stray is wrapped by master key 0123456789abcdef");
      expect(await snapshot(kind, db.url)).toBe(withStray);
      const cleanup = openDatabase(db.url);
      await cleanup.db.deleteFrom("data_keys").where("id", "=", "dk-stray").execute();
      await cleanup.close();

      const finish = await latchkey(["rotate-master-key", "--db", db.url, "--to", "env"], {
        ...HSM_ENV,
        LATCHKEY_MASTER_KEY: newKey.toString("hex"),
      });
      expect(finish.out).toContain("Re-wrapped 1 data key(s)");
      expect(finish.code).toBe(0);
      const finished = await startOn(db.url, smtp, { masterKey: newKey });
      try {
        expect(await signs(finished.url, u, "finished")).toBe(u.address);
      } finally {
        await finished.close();
      }
    } finally {
      await db.drop();
    }
  }, 400_000);
});
