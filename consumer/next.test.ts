/**
 * (b) A Next.js 15 App Router app with no `transpilePackages` builds with `next build` (type-checking our
 * .d.ts) and renders the page on the server: the provider and the modal are safe in server rendering.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { unusedPort } from "../test-support/chromium";
import { APP_TSX, PEERS } from "./appSource";
import { installWithTarballs, run } from "./helpers";

describe("a Next.js 15 App Router app", () => {
  let app: string;
  beforeAll(async () => {
    app = join(inject("workDir"), "next-app");
    mkdirSync(join(app, "app"), { recursive: true });
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "next-app",
        private: true,
        scripts: { build: "next build", start: "next start" },
      }),
    );
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["dom", "dom.iterable", "esnext"],
          strict: true,
          noEmit: true,
          esModuleInterop: true,
          module: "esnext",
          moduleResolution: "bundler",
          resolveJsonModule: true,
          isolatedModules: true,
          jsx: "preserve",
          skipLibCheck: false,
          plugins: [{ name: "next" }],
          incremental: true,
        },
        include: ["next-env.d.ts", "**/*.ts", "**/*.tsx", ".next/types/**/*.ts"],
        exclude: ["node_modules"],
      }),
    );
    writeFileSync(
      join(app, "app/layout.tsx"),
      `export const metadata = { title: "Consumer" };
export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (<html lang="en"><body>{children}</body></html>);
}
`,
    );
    writeFileSync(join(app, "app/wallet.tsx"), `"use client";\n${APP_TSX}`);
    writeFileSync(
      join(app, "app/page.tsx"),
      `import Wallet from "./wallet";
export default function Page() {
  return (<main><p>Rendered on the server</p><Wallet /></main>);
}
`,
    );
    await installWithTarballs(app, [
      ...PEERS,
      "next@15",
      "react@19",
      "react-dom@19",
      "typescript@5.8",
      "@types/react@19",
      "@types/react-dom@19",
      "@types/node@20",
    ]);
  });

  let server: import("node:child_process").ChildProcess | undefined;
  afterAll(() => {
    server?.kill("SIGTERM");
  });

  it("next build passes (no transpilePackages) and the page renders on the server", async () => {
    const { stdout } = await run("npx", ["next", "build"], app, { NEXT_TELEMETRY_DISABLED: "1" });
    expect(stdout).toMatch(/Compiled successfully|Generating static pages/);
    const port = await unusedPort();
    const { spawn } = await import("node:child_process");
    server = spawn("npx", ["next", "start", "-p", String(port), "-H", "127.0.0.1"], {
      cwd: app,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
      detached: true,
    });
    let html = "";
    for (let i = 0; i < 120 && !html; i++) {
      await new Promise((r) => setTimeout(r, 500));
      html = await fetch(`http://127.0.0.1:${port}/`).then(
        (r) => (r.ok ? r.text() : ""),
        () => "",
      );
    }
    // Server-rendered: the page and the provider's children are in the HTML before any script runs.
    expect(html).toContain("Rendered on the server");
    expect(html).toContain("Consumer app");
    expect(html).toContain("Sign in with Latchkey");
    if (server.pid) process.kill(-server.pid, "SIGTERM");
    server = undefined;
  });
});
