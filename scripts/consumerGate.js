#!/usr/bin/env node
// Whether `npm run test:consumer` must run: it builds, packs and installs our packages outside the
// repository (5–9 minutes, from the npm registry), so CI (.ci/run) runs it only when what decides the
// tarballs and their install has changed since its last green run.
//
// That state is a content hash of the packaging files (below), committed in consumer/green.sha256: the
// consumer run writes it when it passes (`record`, run by `npm run test:consumer`), and CI, on a clean
// clone, compares it with the hash of the files as they are (`check`). So a change to a manifest, a tsup
// config, the lockfile or the consumer tests runs the consumer tests in CI until someone commits the hash
// of a green run; a change elsewhere does not run them.
//
//   node scripts/consumerGate.js check    exit 0: the hash matches (skip); 1: changed (run)
//   node scripts/consumerGate.js record   writes the hash (after a green consumer run)
//   node scripts/consumerGate.js hash     prints the hash and the files it covers
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const RECORD = "consumer/green.sha256";

/**
 * What decides the tarballs and how an app installs them: every manifest (dependencies, `exports`,
 * `files`, scripts), the lockfile, the build configs (tsup, the shared base, the build tsconfigs), the
 * manifest rewriting at pack time, and the consumer tests themselves (bar the hash file).
 */
export const PACKAGING_FILES = [
  "package.json",
  "package-lock.json",
  "packages/*/package.json",
  "packages/*/tsup.config.*",
  "packages/*/tsconfig.build.json",
  "tsconfig.build.json",
  "tsconfig.base.json",
  "scripts/tsupBase.ts",
  "scripts/packManifest.js",
  "consumer",
];

/** The tracked packaging files (as a clean clone has them), sorted. */
export function packagingFiles() {
  const out = execFileSync("git", ["ls-files", "-z", "--", ...PACKAGING_FILES.map((p) => `:(glob)${p}`)], {
    cwd: root,
    encoding: "utf8",
  });
  return out
    .split("\0")
    .filter((f) => f && f !== RECORD)
    .sort();
}

/** sha256 over each file's path and content. */
export function packagingHash(files = packagingFiles()) {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(
      createHash("sha256")
        .update(readFileSync(`${root}${file}`))
        .digest("hex"),
    );
    hash.update("\n");
  }
  return hash.digest("hex");
}

function recorded() {
  try {
    return readFileSync(`${root}${RECORD}`, "utf8").trim().split(/\s+/)[0] ?? "";
  } catch {
    return "";
  }
}

const command = process.argv[2];
if (command === "check") {
  const now = packagingHash();
  const last = recorded();
  if (now === last) {
    console.log(`consumer tests: packaging unchanged since their last green run (${now.slice(0, 12)})`);
    process.exit(0);
  }
  console.log(
    `consumer tests: packaging changed (${now.slice(0, 12)}; last green ${last.slice(0, 12) || "none"})`,
  );
  process.exit(1);
} else if (command === "record") {
  const now = packagingHash();
  writeFileSync(`${root}${RECORD}`, `${now}\n`);
  console.log(`${RECORD}: ${now} (commit it: CI skips the consumer tests while it matches)`);
} else if (command === "hash") {
  const files = packagingFiles();
  console.log(packagingHash(files));
  for (const f of files) console.log(`  ${f}`);
} else {
  console.error("usage: consumerGate.js check|record|hash");
  process.exit(2);
}
