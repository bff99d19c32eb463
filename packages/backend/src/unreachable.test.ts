import { describe, expect, it } from "vitest";
import { unusedPort } from "../../../test-support/ports";
import { createBackendClient } from "./client";

describe("a service that is not running", () => {
  it('the backend client\'s error names the URL and the cause (not a bare "fetch failed")', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}`;
    const backend = createBackendClient({ url, appId: "shop", serverKey: "11".repeat(32) });
    const error = await backend
      .signMessage({ userId: "u", grantId: "g", message: "hi" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^Could not reach the Latchkey service at ${url}/\\S+ \\(ECONNREFUSED\\): is it running there\\?$`,
      ),
    );
  });
});
