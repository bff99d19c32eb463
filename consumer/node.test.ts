/**
 * (c) A plain Node ESM script — no TypeScript, no loader — imports @latchkey/core from its tarball and
 * signs a user in by email code against the service installed from its own tarball, then signs a message
 * that verifies. And every package passes `npm publish --dry-run`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { installWithTarballs, type RunningService, run, startService } from "./helpers";

const SCRIPT = `import { createSigner, toViemAccount } from "@latchkey/core";
import { verifyMessage } from "viem";

const [url, apiKey, email] = process.argv.slice(2);
const signer = createSigner({ baseUrl: url, apiKey });
await signer.authenticate({ type: "email", email, emailMode: "otp" });
process.stdout.write("CODE?\\n");
const code = await new Promise((r) => process.stdin.once("data", (d) => r(String(d).trim())));
await signer.authenticate({ type: "otp", otpCode: code });
const account = toViemAccount(signer);
const signature = await account.signMessage({ message: "from a plain script" });
const valid = await verifyMessage({ address: account.address, message: "from a plain script", signature });
process.stdout.write(JSON.stringify({ status: signer.status, address: account.address, valid }) + "\\n");
`;

describe("a plain Node script", () => {
  let dir: string;
  let service: RunningService;
  beforeAll(async () => {
    dir = join(inject("workDir"), "node-app");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "node-app", private: true, type: "module" }),
    );
    writeFileSync(join(dir, "sign-in.mjs"), SCRIPT);
    await installWithTarballs(dir, ["viem@2"]);
    service = await startService(dir);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it("signs in by email code and signs a message, then exits on its own", async () => {
    const { spawn } = await import("node:child_process");
    const email = "plain-node@example.com";
    const child = spawn(process.execPath, ["sign-in.mjs", service.url, service.apiKey, email], { cwd: dir });
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    const exited = new Promise<number | null>((r) => child.once("exit", r));
    let asked = false;
    await new Promise<void>((resolvePrompt, reject) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("CODE?") && !asked) {
          asked = true;
          void service.code(email).then((code) => child.stdin.end(`${code}\n`), reject);
          resolvePrompt();
        }
      });
      child.once("exit", () => reject(new Error(`exited early: ${out}\n${err}`)));
    });
    // The script ends by itself: nothing the client started keeps Node running.
    const code = await Promise.race([
      exited,
      new Promise((r) => setTimeout(() => r("still running"), 20_000)),
    ]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    const result = JSON.parse(out.split("\n").find((l) => l.startsWith("{")) ?? "{}");
    expect(result).toMatchObject({ status: "CONNECTED", valid: true });
    expect(result.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it("every package passes npm publish --dry-run", async () => {
    for (const name of ["protocol", "decoder", "keystore", "frames", "core", "react", "console", "server"]) {
      const { stdout, stderr } = await run(
        "npm",
        ["publish", "--dry-run", "--access", "public", "--ignore-scripts"],
        resolve(import.meta.dirname, "../packages", name),
      );
      const listing = stdout + stderr;
      expect(listing, name).toContain(`@latchkey/${name}@0.1.0`);
      expect(listing, name).toContain("LICENSE");
      expect(listing, name).not.toMatch(/\.test\.|\/src\//);
    }
  });
});
