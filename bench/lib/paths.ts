/** Where the repository and the benchmarks' results are. */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
