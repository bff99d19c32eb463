import { describe, expect, it } from "vitest";
import { adminApi } from "./adminApi";
import { adminConsoleApi } from "./adminConsoleApi";
import { adminConsoleRoutes, adminRoutes, adminType } from "./adminRoutes";

describe("adminRoutes (plain data) and adminApi (schemas)", () => {
  it("name the same endpoints, paths and body types", () => {
    const fromSchemas = Object.fromEntries(
      Object.entries(adminApi).map(([name, e]) => [name, { path: e.path, type: e.type }]),
    );
    const fromRoutes = Object.fromEntries(
      Object.entries(adminRoutes).map(([name, path]) => [
        name,
        { path, type: adminType(name as keyof typeof adminRoutes) },
      ]),
    );
    expect(fromRoutes).toEqual(fromSchemas);
    expect(Object.fromEntries(Object.entries(adminConsoleApi).map(([n, e]) => [n, e.path]))).toEqual(
      adminConsoleRoutes,
    );
  });
});
