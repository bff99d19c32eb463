import { describe, expect, it } from "vitest";
import { unusedPort } from "../../../../test-support/ports";
import { createMemoryKeyHolder } from "../keyHolders/memory";
import { SignerClient } from "./signerClient";

describe("a service that is not running", () => {
  it("the client's error names the URL and the cause, and stays a TypeError (the modal's 'Connection failed')", async () => {
    const baseUrl = `http://127.0.0.1:${await unusedPort()}`;
    const client = new SignerClient({ baseUrl, apiKey: "lk_test", keyHolder: createMemoryKeyHolder() });
    const error = await client.call({ path: "/lookup" } as never, {} as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `Could not reach the Latchkey service at ${baseUrl}/signer/lookup (ECONNREFUSED): is it running there?`,
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError); // undici's own "fetch failed"
  });

  it("an error that is not a network failure passes as it was", async () => {
    const aborted = new DOMException("The operation was aborted.", "AbortError");
    const client = new SignerClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "lk_test",
      keyHolder: createMemoryKeyHolder(),
      fetch: () => Promise.reject(aborted),
    });
    await expect(client.call({ path: "/lookup" } as never, {} as never)).rejects.toBe(aborted);
  });
});
