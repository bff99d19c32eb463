import { describe, expect, it } from "vitest";
import * as decoder from "./index";

describe("@latchkey/decoder", () => {
  it("exports exactly its public API", () => {
    expect(Object.keys(decoder).sort()).toMatchInlineSnapshot(`
      [
        "MAX_CALL_DEPTH",
        "createTokenInfoReader",
        "de",
        "decodeAuthorization",
        "decodeMessage",
        "decodeSolanaTransaction",
        "decodeTransaction",
        "decodeTypedData",
        "decodeUserOperation",
        "en",
        "es",
        "fr",
        "locales",
        "summarize",
      ]
    `);
  });
});
