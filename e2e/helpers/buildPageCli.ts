// `node --import tsx e2e/helpers/buildPageCli.ts <page> <outDir>`: one e2e page's build (pages.ts), in a
// process of its own, as the global setup (pageServer.ts) starts it.
import { buildPage, PAGE_NAMES, type PageName } from "./pages";

const [name, outDir] = process.argv.slice(2);
if (!PAGE_NAMES.includes(name as PageName) || !outDir) {
  console.error("usage: buildPageCli.ts <page> <outDir>");
  process.exit(2);
}
await buildPage(name as PageName, outDir);
