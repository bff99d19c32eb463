/**
 * Folds Stryker's JSON reports (reports/mutation/*.json, one per run of `npm run test:mutation`) into
 * bench/results/mutation.json: per module the score and counts. A module's equivalent mutants (judged by
 * hand, each with why) are kept from the file as it was.
 *
 * @example
 * npx tsx scripts/mutationScores.ts reports/mutation/mutation.json
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Mutant {
  status: string;
}
interface Report {
  files: Record<string, { mutants: Mutant[] }>;
}
interface ModuleScore {
  score: number | null;
  killed: number;
  survived: number;
  noCoverage: number;
  timeout: number;
  equivalent: { mutant: string; why: string }[];
}

const OUT = "bench/results/mutation.json";
const given = process.argv.slice(2);
const reports = given.length
  ? given
  : readdirSync("reports/mutation")
      .filter((f) => f.endsWith(".json"))
      .map((f) => join("reports/mutation", f));
const version = JSON.parse(readFileSync("node_modules/@stryker-mutator/core/package.json", "utf8")).version;
const previous = existsSync(OUT) ? JSON.parse(readFileSync(OUT, "utf8")) : { modules: {} };
const modules: Record<string, ModuleScore> = { ...previous.modules };

for (const file of reports) {
  const report = JSON.parse(readFileSync(file, "utf8")) as Report;
  for (const [path, { mutants }] of Object.entries(report.files)) {
    const n = (status: string) => mutants.filter((m) => m.status === status).length;
    const killed = n("Killed");
    const timeout = n("Timeout");
    const survived = n("Survived");
    const noCoverage = n("NoCoverage");
    // Stryker's mutation score: detected over valid mutants (compile errors and ignored ones left out).
    const valid = killed + timeout + survived + noCoverage;
    const score = valid === 0 ? 100 : Math.round(((killed + timeout) / valid) * 10_000) / 100;
    modules[path] = {
      ...modules[path],
      score,
      killed,
      survived,
      noCoverage,
      timeout,
      equivalent: modules[path]?.equivalent ?? [],
    };
  }
}

writeFileSync(
  OUT,
  `${JSON.stringify({ measuredAt: new Date().toISOString(), tool: `StrykerJS ${version}`, modules }, null, 2)}\n`,
);
console.log(
  Object.entries(modules)
    .map(([p, m]) => `${m.score === null ? "   n/a" : m.score.toFixed(2).padStart(6)}  ${p}`)
    .join("\n"),
);
