import { describe, expect, it } from "vitest";
import { compileCounter, readCounterArtifact } from "./compileCounter.js";
import { counterAbi } from "./counter.js";

describe("the committed Counter artifact", () => {
  it("is what solc 0.8.28 makes of contracts/Counter.sol (regenerate: node --import tsx test-support/chain/compileCounter.ts)", () => {
    const compiled = compileCounter();
    const committed = readCounterArtifact();
    expect(committed.bytecode).toBe(compiled.bytecode);
    expect(committed.abi).toEqual(compiled.abi);
  });

  it("has the ABI that counterAbi types", () => {
    expect(counterAbi).toEqual(readCounterArtifact().abi);
  });
});
