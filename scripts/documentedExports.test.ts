/**
 * Every public export of @latchkey/core (each entry) and @latchkey/react is documented: a doc comment on each, and an
 * `@example` on each function and hook (types and constants need only the comment). Re-exports are
 * followed to their declaration, wherever it lives (protocol types included).
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

const ENTRIES = [
  "packages/core/src/index.ts",
  "packages/core/src/externalWallets/index.ts",
  "packages/core/src/externalWallets/walletConnect/index.ts",
  "packages/core/src/solana/index.ts",
  "packages/core/src/wagmi.ts",
  "packages/core/src/rainbowkit.ts",
  "packages/react/src/index.ts",
];

// One program for every entry (they share most of their graph: viem, wagmi, React): a program per entry
// type-checked the same modules seven times, 150 s of a loaded run for this file.
let program: ts.Program | undefined;

function undocumented(entry: string): string[] {
  const file = resolve(root, entry);
  program ??= ts.createProgram(
    ENTRIES.map((e) => resolve(root, e)),
    {
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      customConditions: ["source"],
      jsx: ts.JsxEmit.ReactJSX,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    },
  );
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`no module for ${entry}`);
  const problems: string[] = [];
  for (const symbol of checker.getExportsOfModule(module)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declaration = target.declarations?.[0];
    const where = declaration
      ? `${declaration.getSourceFile().fileName.replace(`${root}/`, "")}:${
          declaration.getSourceFile().getLineAndCharacterOfPosition(declaration.getStart()).line + 1
        }`
      : "?";
    if (!ts.displayPartsToString(target.getDocumentationComment(checker)).trim()) {
      problems.push(`${symbol.name} has no doc comment (${where})`);
      continue;
    }
    const isFunction =
      !!declaration &&
      (ts.isFunctionDeclaration(declaration) ||
        (ts.isVariableDeclaration(declaration) &&
          !!declaration.initializer &&
          (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))));
    if (isFunction && !target.getJsDocTags(checker).some((tag) => tag.name === "example"))
      problems.push(`${symbol.name} has no @example (${where})`);
  }
  return problems;
}

describe("documented exports", () => {
  for (const entry of ENTRIES) {
    it(`${entry}: every export has a doc comment, every function an @example`, () => {
      expect(undocumented(entry)).toEqual([]);
    });
  }
});
