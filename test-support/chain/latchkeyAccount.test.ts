import { describe, expect, it } from "vitest";
import { LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08 as CORE_FACTORY } from "../../packages/core/src/smartAccounts/latchkeySimpleAccount";
import { LATCHKEY_SIMPLE_ACCOUNT_FACTORY_V08 as SERVICE_FACTORY } from "../../packages/server/src/features/sponsorship/evm/config";
import { compileLatchkeyAccount, readLatchkeyAccountArtifacts } from "./compileLatchkeyAccount.js";
import { LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08 } from "./deploy.js";

describe("the committed LatchkeySimpleAccount artifacts", () => {
  it("are what solc 0.8.28 makes of contracts/LatchkeySimpleAccount.sol (regenerate: node --import tsx test-support/chain/compileLatchkeyAccount.ts)", () => {
    const compiled = compileLatchkeyAccount();
    const committed = readLatchkeyAccountArtifacts();
    for (const name of ["LatchkeySimpleAccount", "LatchkeySimpleAccountFactory"] as const) {
      expect(committed[name].bytecode).toBe(compiled[name].bytecode);
      expect(committed[name].abi).toEqual(compiled[name].abi);
    }
  }, 300_000); // solc's JS build: ~12 s alone, minutes on a busy machine

  it("the client and the service name the factory where the dev chain deploys it", () => {
    expect(CORE_FACTORY).toBe(LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08);
    expect(SERVICE_FACTORY).toBe(LATCHKEY_SIMPLE_ACCOUNT_FACTORY_08);
  });
});
