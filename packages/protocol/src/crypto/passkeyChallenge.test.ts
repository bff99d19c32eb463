import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { passkeyStampChallenge, passkeyStampChallengeBytes } from "./passkeyChallenge";

describe("the passkey stamp's challenge (DESIGN §3.2)", () => {
  it("is the UTF-8 of hex(sha256(body)); the service compares its base64url", () => {
    const bytes = passkeyStampChallengeBytes('{"a":1}');
    expect(new TextDecoder().decode(bytes)).toBe(
      "015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862",
    );
    expect(passkeyStampChallenge('{"a":1}')).toBe(Buffer.from(bytes).toString("base64url"));
  });

  it("hashes the body's UTF-8, whatever it holds", () => {
    const body = JSON.stringify({ name: "Zoë 🔑", n: 1 });
    const hex = createHash("sha256").update(body, "utf8").digest("hex");
    expect(new TextDecoder().decode(passkeyStampChallengeBytes(body))).toBe(hex);
  });
});
