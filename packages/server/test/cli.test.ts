import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { seedBackend } from "../src/crypto/pbkdf2";
import { secp256k1Impl } from "../src/crypto/secp256k1";
import { openDatabase } from "../src/db";
import { freshDatabase } from "./helpers";
import { LATCHKEY_BIN as BIN, type LatchkeyIo, latchkey } from "./helpers/latchkey";
import { waitForLine } from "./helpers/waitForLine";

// What the service must report: it runs with this process's environment on this machine, so it makes the
// same choice. Under `npm run test:fallback` (both forced off) that is noble and node:crypto.
const secp256k1 = secp256k1Impl().backend;
const pbkdf2 = seedBackend().name;

const run = promisify(execFile);

/** `latchkey <args>` in this process, which must exit 0 (as `run` of the process would): its stdout. */
async function stdoutOf(args: string[], io?: LatchkeyIo): Promise<string> {
  const { code, stdout, stderr } = await latchkey(args, io);
  expect(code, stderr).toBe(0);
  return stdout;
}

describe("latchkey CLI", () => {
  it("documents every command's flags and environment in --help", async () => {
    const serve = await stdoutOf(["serve", "--help"]);
    const source = readFileSync(resolve(__dirname, "../src/cli/serve.ts"), "utf8");
    // Every option serve parses is in its help.
    const serveOptions = /async function serve[\s\S]*?options: \{([\s\S]*?)\n {4}\},/.exec(source)?.[1] ?? "";
    const flags = [...serveOptions.matchAll(/^\s+"?([a-z-]+)"?: \{ type/gm)].map((m) => `--${m[1]}`);
    expect(flags.length).toBeGreaterThan(8);
    for (const flag of flags) expect(serve, flag).toContain(flag);
    // Every environment variable the service reads is in some command's help.
    const envs = new Set<string>();
    const cliFiles = readdirSync(resolve(__dirname, "../src/cli")).map((name) => `cli/${name}`);
    expect(cliFiles).toContain("cli/serve.ts");
    for (const file of [
      ...cliFiles,
      "createService.ts",
      "crypto/keyring.ts",
      "crypto/secp256k1.ts",
      "crypto/keyWrap/loadKeyWrapper.ts",
      "crypto/keyWrap/pkcs11.ts",
      "crypto/keyWrap/commands.ts",
    ])
      for (const m of readFileSync(resolve(__dirname, `../src/${file}`), "utf8").matchAll(
        /env\.(LATCHKEY_[A-Z_]+|PORT)\b/g,
      ))
        envs.add(m[1] as string);
    expect(envs.size).toBeGreaterThan(5);
    const commands = [
      ["app", "create"],
      ["migrate"],
      ["rotate-master-key"],
      ["paymaster-signer"],
      ["solana-fee-payer"],
      ["activity"],
      ["admin-key", "create"],
      ["backup"],
      ["verify-backup"],
      ["hsm", "init"],
    ];
    const outs = await Promise.all(commands.map((command) => stdoutOf([...command, "--help"])));
    let all = serve;
    for (const [i, command] of commands.entries()) {
      expect(outs[i]).toContain(`Usage: latchkey ${command.join(" ")}`);
      all += outs[i];
    }
    for (const name of envs) expect(all, name).toContain(name);
    const usage = await stdoutOf(["--help"]);
    expect(usage).toContain("latchkey <command> --help");
  });

  let child: ChildProcess | undefined;
  afterEach(() => {
    child?.kill("SIGTERM");
    child = undefined;
  });

  it("serve --dev starts on SQLite with a dev app, a 0600 master key and the dev mailbox", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
    child = spawn(process.execPath, [BIN, "serve", "--dev", "--port", "0", "--log-level", "warn"], {
      cwd: dir,
      env: { ...process.env, LATCHKEY_MASTER_KEY: "" },
    });
    const out = await waitForLine(child, /Dev mailbox:\s+(\S+)/);
    const base = /on (http:\/\/\S+)/.exec(out)?.[1] as string;
    const apiKey = /Dev app API key: (\S+)/.exec(out)?.[1] as string;
    // An app on any local port works beside it, and the URL printed is on the app's site (localhost).
    expect(base).toMatch(/^http:\/\/localhost:\d+$/);
    expect(out).toContain("Dev app origins: http://localhost:*, http://127.0.0.1:*");
    // What the dev app's signing policy does with bare hashes (its config says allow) is said at start.
    expect(out).toContain(
      "Signing policy of app dev: 1 rule (default allow); bare hashes (raw payloads): allow; EIP-7702 delegates: Simple7702Account",
    );
    expect(apiKey).toBe(readFileSync(join(dir, ".latchkey/dev-api-key"), "utf8").trim());
    expect(statSync(join(dir, ".latchkey/master.key")).mode & 0o777).toBe(0o600);
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({
      status: "ok",
      service: "latchkey",
      database: "sqlite",
      secp256k1,
      pbkdf2,
    });
    expect(out).toContain(
      secp256k1 === "libsecp256k1"
        ? "Signing: secp256k1 by libsecp256k1 (native)"
        : "Signing: secp256k1 by @noble/curves (the native secp256k1 addon is not loaded)",
    );
    expect(out).toMatch(
      pbkdf2 === "native"
        ? /Wallet seeds: PBKDF2 by the native addon \([148] at once(, AVX2|, AVX-512)?\)/
        : /Wallet seeds: PBKDF2 by node:crypto \(the native PBKDF2 addon is not loaded\)/,
    );
    const cfg = await fetch(`${base}/signer/v1/signer-config`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        origin: "http://localhost:4321",
      },
      body: "{}",
    });
    expect(await cfg.json()).toMatchObject({ email: { mode: "OTP" } });
    expect((await fetch(`${base}/dev/mailbox`)).headers.get("content-type")).toMatch(/text\/html/);
    expect(await (await fetch(`${base}/dev/mailbox.json`)).json()).toEqual([]);
  });

  it("serve runs on PostgreSQL by URL, with two worker processes", async () => {
    const database = await freshDatabase("postgres");
    try {
      const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
      const config = join(dir, "config.json");
      writeFileSync(
        config,
        JSON.stringify({
          apps: [{ id: "pg", name: "PG", apiKeys: ["lk_pg_key_0123456789abcdef"], emailMode: "OTP" }],
        }),
      );
      child = spawn(
        process.execPath,
        [
          BIN,
          "serve",
          "--db",
          database.url,
          "--port",
          "0",
          "--workers",
          "2",
          "--config",
          config,
          "--log-level",
          "warn",
        ],
        {
          cwd: dir,
          env: {
            ...process.env,
            LATCHKEY_MASTER_KEY: "22".repeat(32),
            LATCHKEY_SMTP_URL: "smtp://127.0.0.1:2525",
          },
        },
      );
      const out = await waitForLine(child, /signer service on (\S+) \(postgres, 2 workers\)/);
      const base = /on (http:\/\/\S+)/.exec(out)?.[1] as string;
      expect(await (await fetch(`${base}/healthz`)).json()).toEqual({
        status: "ok",
        service: "latchkey",
        database: "postgres",
        secp256k1,
        pbkdf2,
      });
      const cfg = await fetch(`${base}/signer/v1/signer-config`, {
        method: "POST",
        headers: { authorization: "Bearer lk_pg_key_0123456789abcdef", "content-type": "application/json" },
        body: "{}",
      });
      expect(await cfg.json()).toMatchObject({ email: { mode: "OTP" } });
    } finally {
      child?.kill("SIGTERM");
      await new Promise((r) => setTimeout(r, 500));
      await database.drop();
    }
  });

  it("solana-fee-payer prints the Solana fee payer's address: the one serve prints, beside the dev app's Solana policy", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
    const config = join(dir, "config.json");
    writeFileSync(config, JSON.stringify({ solana: { rpcUrl: "http://127.0.0.1:9" } }));
    const env = { ...process.env, LATCHKEY_MASTER_KEY: "" };
    const printed = await stdoutOf(["solana-fee-payer", "--dev"], { cwd: dir, env });
    expect(printed).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}\n$/);
    const again = await stdoutOf(["solana-fee-payer", "--dev"], { cwd: dir, env });
    expect(again).toBe(printed);
    child = spawn(
      process.execPath,
      [BIN, "serve", "--dev", "--port", "0", "--config", config, "--log-level", "warn"],
      { cwd: dir, env },
    );
    const out = await waitForLine(child, /Solana fee payer: \S+\n/);
    expect(out).toContain(`Solana fee payer: ${printed}`);
    expect(out).toContain("Dev Solana sponsorship: policy dev-solana\n");
  });

  it("refuses to start without a master key outside dev mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
    const env: NodeJS.ProcessEnv = { ...process.env, LATCHKEY_SMTP_URL: "smtp://127.0.0.1:2525" };
    delete env.LATCHKEY_MASTER_KEY;
    await expect(
      run(process.execPath, [BIN, "serve", "--port", "0"], { cwd: dir, env }),
    ).rejects.toMatchObject({
      stderr: expect.stringMatching(/No master key/),
    });
  });

  it("app create --custody split makes a split-custody app; another value is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
    const db = join(dir, "app.db");
    const stdout = await stdoutOf(
      ["app", "create", "--db", db, "--id", "vault", "--name", "Vault", "--custody", "split"],
      { cwd: dir },
    );
    expect(stdout).toContain("App vault (Vault), split custody");
    const opened = openDatabase(db);
    const row = await opened.db
      .selectFrom("apps")
      .select("custody")
      .where("id", "=", "vault")
      .executeTakeFirst();
    await opened.close();
    expect(row?.custody).toBe("split");
    const refused = await latchkey(
      ["app", "create", "--db", db, "--id", "x", "--name", "X", "--custody", "mpc"],
      {
        cwd: dir,
      },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--custody takes service or split/);
  });

  it("app create prints a key that the service then accepts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "latchkey-cli-"));
    const db = join(dir, "app.db");
    const stdout = await stdoutOf(
      [
        "app",
        "create",
        "--db",
        db,
        "--id",
        "shop",
        "--name",
        "Shop",
        "--origin",
        "https://shop.example",
        "--email-mode",
        "MAGIC_LINK",
        "--redirect-url",
        "https://shop.example/auth",
      ],
      { cwd: dir },
    );
    const apiKey = /API key: (\S+)/.exec(stdout)?.[1] as string;
    expect(apiKey).toMatch(/^lk_/);
    child = spawn(process.execPath, [BIN, "serve", "--db", db, "--port", "0", "--log-level", "warn"], {
      cwd: dir,
      env: {
        ...process.env,
        LATCHKEY_MASTER_KEY: "11".repeat(32),
        LATCHKEY_SMTP_URL: "smtp://127.0.0.1:2525",
      },
    });
    const out = await waitForLine(child, /signer service on (\S+)/);
    const base = /on (http:\/\/\S+)/.exec(out)?.[1] as string;
    const cfg = await fetch(`${base}/signer/v1/signer-config`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${apiKey}`,
        "content-type": "application/json",
        origin: "https://shop.example",
      },
      body: "{}",
    });
    expect(cfg.status).toBe(200);
    expect(cfg.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(await cfg.json()).toMatchObject({ email: { mode: "MAGIC_LINK" } });
  });
});
