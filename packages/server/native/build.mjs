#!/usr/bin/env node
// Compiles the optional PBKDF2-SHA512 addon (pbkdf2_sha512.c) into native/build/pbkdf2_sha512.node with
// the machine's C compiler and node's own headers. It never fails an install: where there is no compiler
// or no headers, it says so and the service computes BIP-39 seeds with node:crypto instead
// (src/crypto/pbkdf2.ts). Run again by hand after changing node versions: `node native/build.mjs`.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const source = join(here, "pbkdf2_sha512.c");
const lanes = join(here, "pbkdf2_lanes.h");
const out = join(here, "build", "pbkdf2_sha512.node");

function say(line) {
  process.stdout.write(`latchkey: ${line}\n`);
}

function headersDir() {
  // Official and distribution builds put node_api.h and the OpenSSL headers node was built with here.
  const candidates = [
    process.env.LATCHKEY_NODE_HEADERS,
    join(dirname(process.execPath), "..", "include", "node"),
    "/usr/include/node",
    "/usr/local/include/node",
  ].filter(Boolean);
  return candidates.find((d) => existsSync(join(d, "node_api.h")) && existsSync(join(d, "openssl", "sha.h")));
}

function main() {
  if (process.env.LATCHKEY_NATIVE_BUILD === "0")
    return say("native PBKDF2 addon not built (LATCHKEY_NATIVE_BUILD=0)");
  if (process.platform === "win32")
    return say("native PBKDF2 addon not built on Windows; node:crypto computes seeds");
  const include = headersDir();
  if (!include)
    return say(
      "native PBKDF2 addon not built: node's headers (node_api.h) not found; node:crypto computes seeds",
    );
  const fresh =
    existsSync(out) && statSync(out).mtimeMs > Math.max(statSync(source).mtimeMs, statSync(lanes).mtimeMs);
  if (fresh && process.env.LATCHKEY_NATIVE_BUILD !== "force") return;
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const compiler = process.env.CC || "cc";
  const flags = ["-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-I", include, source, "-o", tmp];
  // The OpenSSL and N-API functions come from the node binary at load time. Bind them all then (-z now):
  // a node without one fails to load the addon, and seeds fall back to node:crypto, instead of failing
  // at the first sign-up. macOS needs to be told to leave them for load time.
  if (process.platform === "darwin") flags.push("-undefined", "dynamic_lookup");
  else flags.push("-Wl,-z,now");
  try {
    execFileSync(compiler, flags, { stdio: ["ignore", "ignore", "pipe"] });
    renameSync(tmp, out);
    say(`native PBKDF2 addon built (${out})`);
  } catch (e) {
    rmSync(tmp, { force: true });
    const stderr = e && typeof e === "object" && "stderr" in e && e.stderr ? String(e.stderr) : "";
    const detail = (stderr || (e instanceof Error ? e.message : String(e))).split("\n")[0];
    say(`native PBKDF2 addon not built (${compiler}: ${detail || "failed"}); node:crypto computes seeds`);
  }
}

main();
