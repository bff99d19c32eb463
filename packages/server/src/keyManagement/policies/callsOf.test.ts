import { toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { simpleAccountCallsAbi } from "../../userOperations/decodeCalls";
import { ACCOUNT_CALL_SELECTORS } from "./callsOf";

describe("callsOf", () => {
  it("knows execute's and executeBatch's selectors", () => {
    expect(ACCOUNT_CALL_SELECTORS).toEqual(simpleAccountCallsAbi.map((f) => toFunctionSelector(f)));
  });
});
