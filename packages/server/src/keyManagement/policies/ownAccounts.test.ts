import { describe, expect, it } from "vitest";
import { ownAccounts, simpleAccountAddress } from "./ownAccounts";

// BIP-39 "abandon … about"'s EVM address. Its accounts of salt 0 are the addresses both factories'
// `getAddress(owner, 0)` answer on the local chain (grants.test.ts checks the function against them for
// another owner); pinned here so a unit test sees a change to either factory's bytecode or to the CREATE2.
const OWNER = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const OWNER_LOWER = "0x9858effd232b4033e47d90003d41ec34ecaeda94";
const SIMPLE = "0xf69e5094a3eec379aac1d35d353d8d043df5762f";
const LATCHKEY_SIMPLE = "0x7c57ea08fce3f90d7359b835ce6188184f0649fd";

describe("ownAccounts", () => {
  it("is the EOA and its SimpleAccount and LatchkeySimpleAccount of salt 0, lower-case", () => {
    expect([...ownAccounts(OWNER)]).toEqual([OWNER_LOWER, SIMPLE, LATCHKEY_SIMPLE]);
    expect([...ownAccounts(OWNER_LOWER)]).toEqual([OWNER_LOWER, SIMPLE, LATCHKEY_SIMPLE]);
  });

  it("answers the same set for the same owner however it is spelled (cached)", () => {
    expect(ownAccounts(OWNER)).toBe(ownAccounts(OWNER_LOWER));
  });

  it("is empty for no signer, a Solana address or anything that is not a 20-byte hex address", () => {
    for (const signer of [
      undefined,
      "",
      "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
      "0x9858effd232b4033e47d90003d41ec34ecaeda9",
      "0x9858effd232b4033e47d90003d41ec34ecaeda944",
      "9858effd232b4033e47d90003d41ec34ecaeda94",
      "0x9858effd232b4033e47d90003d41ec34ecaedag4",
      ` ${OWNER}`,
      `${OWNER}\n`,
    ]) {
      expect(ownAccounts(signer).size, String(signer)).toBe(0);
    }
  });

  it("an account of another salt is another address, not one of the signer's own", () => {
    const owner = OWNER_LOWER as `0x${string}`;
    expect(simpleAccountAddress({ factory: "SimpleAccountFactory", owner })).toBe(SIMPLE);
    expect(simpleAccountAddress({ factory: "SimpleAccountFactory", owner, salt: 0n })).toBe(SIMPLE);
    const salt1 = simpleAccountAddress({ factory: "SimpleAccountFactory", owner, salt: 1n });
    expect(salt1).toBe("0xbd30af81cd0e15650633bf3f3a3f6183da43feb0");
    expect(simpleAccountAddress({ factory: "LatchkeySimpleAccountFactory", owner, salt: 258n })).toBe(
      "0x75ec2c1b5bf3a2c54ed22e8c60945af3eddb75ea",
    );
    expect(ownAccounts(OWNER).has(salt1)).toBe(false);
  });

  it("keeps answering correctly past its cache's size", () => {
    for (let i = 0; i < 1100; i++) ownAccounts(`0x${i.toString(16).padStart(40, "0")}`);
    expect([...ownAccounts(OWNER)]).toEqual([OWNER_LOWER, SIMPLE, LATCHKEY_SIMPLE]);
  });
});
