import type { Abi, Hex } from "viem";
import { readCounterArtifact } from "./compileCounter.js";

/**
 * The Counter contract's ABI (contracts/Counter.sol), `as const` for viem's typing: `number()`, `increment()`,
 * `add(uint256)`, `fail()` (always reverts with "Counter: fail") and the `Changed(by, number)` event.
 * counter.test.ts checks it equals the compiled ABI.
 */
export const counterAbi = [
  {
    anonymous: false,
    inputs: [
      { indexed: true, internalType: "address", name: "by", type: "address" },
      { indexed: false, internalType: "uint256", name: "number", type: "uint256" },
    ],
    name: "Changed",
    type: "event",
  },
  {
    inputs: [{ internalType: "uint256", name: "amount", type: "uint256" }],
    name: "add",
    outputs: [],
    stateMutability: "nonpayable",
    type: "function",
  },
  { inputs: [], name: "fail", outputs: [], stateMutability: "pure", type: "function" },
  { inputs: [], name: "increment", outputs: [], stateMutability: "nonpayable", type: "function" },
  {
    inputs: [],
    name: "number",
    outputs: [{ internalType: "uint256", name: "", type: "uint256" }],
    stateMutability: "view",
    type: "function",
  },
] as const satisfies Abi;

/** The Counter's creation bytecode, from the committed artifact contracts/Counter.json. */
export function counterBytecode(): Hex {
  return readCounterArtifact().bytecode;
}
