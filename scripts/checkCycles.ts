/**
 * Fails on any import cycle among the source files of every package (`packages/*\/src`).
 *
 * Every import counts, `import type` included: a type-only cycle is still two modules that cannot be
 * understood (or moved to another package) one without the other. Relative specifiers resolve the way
 * TypeScript's bundler resolution does (`./x.js` → `./x.ts`, `./dir` → `./dir/index.ts`); `@latchkey/<pkg>`
 * and its subpaths resolve through that package's `exports` map, so a cycle through two packages is found too.
 *
 * Run: `npx tsx scripts/checkCycles.ts` (part of `npm test`). Exit status 1 and one line per cycle when any exists.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Strongly connected components with more than one file (or a file importing itself), each as one cycle path. */
export function findCycles(graph: ImportGraph): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowLinks = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];

  // Iterative Tarjan: the server alone has a few hundred files, and recursion depth follows import depth.
  for (const root of graph.keys()) {
    if (indices.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    indices.set(root, index);
    lowLinks.set(root, index);
    index += 1;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const target = edges[frame.next]!;
        frame.next += 1;
        if (!graph.has(target)) continue;
        if (!indices.has(target)) {
          indices.set(target, index);
          lowLinks.set(target, index);
          index += 1;
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowLinks.set(frame.node, Math.min(lowLinks.get(frame.node)!, indices.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) lowLinks.set(parent.node, Math.min(lowLinks.get(parent.node)!, lowLinks.get(frame.node)!));
      if (lowLinks.get(frame.node) === indices.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component);
      }
    }
  }
  return components.map((component) => cyclePath(graph, new Set(component)));
}

/** One concrete loop through a component, for a message a person can follow: a → b → c → a. */
function cyclePath(graph: ImportGraph, members: ReadonlySet<string>): string[] {
  const start = [...members].sort()[0]!;
  // Breadth-first from start back to start, inside the component only: the shortest loop through it.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const target of graph.get(node) ?? []) {
      if (!members.has(target)) continue;
      if (target === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.splice(1, 0, at);
        path.push(start);
        return path;
      }
      if (!previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

const SOURCE_EXTENSIONS = [".ts", ".tsx"];

function listSources(directory: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(directory)) {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) files.push(...listSources(path));
    else if (SOURCE_EXTENSIONS.some((extension) => name.endsWith(extension)) && !name.endsWith(".d.ts")) {
      files.push(path);
    }
  }
  return files;
}

function resolveFile(base: string): string | undefined {
  const withoutJs = base.replace(/\.(m?js|jsx)$/, "");
  const candidates = [
    base,
    ...SOURCE_EXTENSIONS.map((extension) => withoutJs + extension),
    ...SOURCE_EXTENSIONS.map((extension) => join(withoutJs, `index${extension}`)),
  ];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

type ExportTarget = string | { readonly [condition: string]: ExportTarget } | null;

/** The source file an `exports` entry points at: a `source` condition first, then the import/default path. */
function exportTargetFile(packageDir: string, target: ExportTarget): string | undefined {
  if (target === null) return undefined;
  if (typeof target === "string") {
    const direct = resolveFile(resolve(packageDir, target));
    if (direct?.startsWith(join(packageDir, "src"))) return direct;
    // A built path (dist/x.js) maps back to its source (src/x.ts) for this check.
    const fromDist = target.replace(/^\.\/dist\//, "./src/").replace(/\.d\.ts$/, ".ts");
    return resolveFile(resolve(packageDir, fromDist)) ?? direct;
  }
  for (const condition of ["source", "types", "import", "default"]) {
    const found = condition in target ? exportTargetFile(packageDir, target[condition] ?? null) : undefined;
    if (found) return found;
  }
  return undefined;
}

export function buildImportGraph(root: string): Map<string, string[]> {
  const packagesDir = join(root, "packages");
  const packageEntries = new Map<string, string>(); // "@latchkey/x/sub" → file
  const sources: string[] = [];
  for (const name of readdirSync(packagesDir)) {
    const packageDir = join(packagesDir, name);
    const manifestPath = join(packageDir, "package.json");
    if (!existsSync(manifestPath) || !existsSync(join(packageDir, "src"))) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as {
      name: string;
      exports?: string | Record<string, ExportTarget>;
    };
    const exportsMap: Record<string, ExportTarget> =
      typeof manifest.exports === "string" ? { ".": manifest.exports } : (manifest.exports ?? {});
    for (const [subpath, target] of Object.entries(exportsMap)) {
      const file = exportTargetFile(packageDir, target);
      if (file)
        packageEntries.set(subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`, file);
    }
    sources.push(...listSources(join(packageDir, "src")));
  }

  const graph = new Map<string, string[]>();
  for (const file of sources) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    const targets = new Set<string>();
    for (const { fileName: specifier } of importedFiles) {
      const target = specifier.startsWith(".")
        ? resolveFile(resolve(dirname(file), specifier))
        : packageEntries.get(specifier);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

function main(): void {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const graph = buildImportGraph(root);
  const cycles = findCycles(graph);
  if (cycles.length === 0) {
    console.log(`No import cycles in ${graph.size} source files.`);
    return;
  }
  console.error(`${cycles.length} import cycle(s):`);
  for (const cycle of cycles) console.error(`  ${cycle.map((file) => relative(root, file)).join(" → ")}`);
  process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
