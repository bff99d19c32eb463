import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Hex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const example = fileURLToPath(new URL("./fixtures/use-from-node.ts", import.meta.url));

let svc: TestService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

describe("README: Use from Node", () => {
  it("the README shows the example verbatim", () => {
    const readme = fileURLToPath(new URL("../../../README.md", import.meta.url));
    if (!existsSync(readme)) return;
    expect(readFileSync(readme, "utf8")).toContain(readFileSync(example, "utf8"));
  });

  it("signs a user in from Node and signs a message", async () => {
    const email = "readme@example.com";
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", example], {
      cwd: root,
      env: { ...process.env, LATCHKEY_URL: svc.baseUrl, LATCHKEY_API_KEY: svc.apiKey, EMAIL: email },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d) => {
        stdout += d;
        if (stdout.includes("Code mailed to")) resolve();
      });
      child.on("exit", () => reject(new Error(`example exited early: ${stderr}`)));
    });
    child.stdin.write(`${await svc.otpCode(email)}\n`);
    expect(await exited).toBe(0);
    const { address, signature } = JSON.parse(stdout.slice(stdout.lastIndexOf('{"address"'))) as {
      address: Hex;
      signature: Hex;
    };
    expect(await verifyMessage({ address, message: "hello from Node", signature })).toBe(true);
  });
});
