/**
 * Summarises V8 .cpuprofile files (from `--cpu-prof`): top functions by self time, and top files.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile | directory> [--top=25]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./lib/paths";
import { table } from "./lib/report";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function shortUrl(url: string): string {
  const path = url.replace(/^file:\/\//, "");
  if (!path) return "(native)";
  const nm = path.lastIndexOf("node_modules/");
  if (nm >= 0) return path.slice(nm + "node_modules/".length);
  return path.startsWith("/") ? relative(REPO_ROOT, path) : path;
}

function summarise(file: string, top: number): void {
  const prof = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < prof.samples.length; i++) {
    const id = prof.samples[i] as number;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  }
  const wall = prof.endTime - prof.startTime;
  let idle = 0;
  for (const [id, us] of selfUs) if (byId.get(id)?.callFrame.functionName === "(idle)") idle += us;
  // Percentages are of busy time: the service idles while the bench stamps bodies between runs.
  const total = Math.max(1, wall - idle);
  const fnSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n || n.callFrame.functionName === "(idle)") continue;
    const f = n.callFrame;
    const where = shortUrl(f.url);
    const key = `${f.functionName || "(anonymous)"}  ${where}${f.url ? `:${f.lineNumber + 1}` : ""}`;
    fnSelf.set(key, (fnSelf.get(key) ?? 0) + us);
    const pkg = where.includes("/")
      ? where
          .split("/")
          .slice(0, where.startsWith("@") ? 2 : 1)
          .join("/")
      : where;
    const fileKey = where.startsWith("packages/") ? where : pkg;
    fileSelf.set(fileKey, (fileSelf.get(fileKey) ?? 0) + us);
  }
  const rows = (m: Map<string, number>, label: string) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([k, us]) => ({
        selfMs: (us / 1000).toFixed(0),
        pct: `${((100 * us) / total).toFixed(1)}%`,
        [label]: k,
      }));
  process.stdout.write(
    `\n${file}\nwall ${(wall / 1e6).toFixed(1)} s, busy ${(total / 1e6).toFixed(1)} s (percentages are of busy time)\n\nTop functions by self time:\n`,
  );
  process.stdout.write(`${table(rows(fnSelf, "function"), ["selfMs", "pct", "function"])}\n`);
  process.stdout.write("\nSelf time by package / file:\n");
  process.stdout.write(`${table(rows(fileSelf, "where"), ["selfMs", "pct", "where"])}\n`);
}

const args = process.argv.slice(2);
const topArg = args.find((a) => a.startsWith("--top="));
const top = topArg ? Number(topArg.slice(6)) : 25;
const target = args.find((a) => !a.startsWith("--"));
if (!target) {
  process.stderr.write("usage: tsx bench/profile-summary.ts <file.cpuprofile | dir> [--top=25]\n");
  process.exit(1);
}
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => join(target, f))
  : [target];
for (const f of files) summarise(f, top);
