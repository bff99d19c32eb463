import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ContractArtifact, compileSolidity } from "./solc.js";

/** The source of LatchkeySimpleAccount (SimpleAccount v0.8 with ERC-1271) and its factory. */
export const LATCHKEY_ACCOUNT_SOURCE_PATH = fileURLToPath(
  new URL("./contracts/LatchkeySimpleAccount.sol", import.meta.url),
);
/**
 * The committed artifacts, `compileLatchkeyAccount()`'s output (regenerate:
 * `node --import tsx test-support/chain/compileLatchkeyAccount.ts`). Their bytecode fixes the factory's
 * CREATE2 address and so every account's address: regenerating with another bytecode moves new users.
 */
export const LATCHKEY_ACCOUNT_ARTIFACT_PATH = fileURLToPath(
  new URL("./contracts/LatchkeySimpleAccount.json", import.meta.url),
);

/** No metadata hash in the bytecode: a comment in the sources (ours or OpenZeppelin's) does not move the address. */
const SETTINGS = { metadata: { bytecodeHash: "none", appendCBOR: false } };

/** The two contracts, by name. */
export interface LatchkeyAccountArtifacts {
  LatchkeySimpleAccount: ContractArtifact;
  LatchkeySimpleAccountFactory: ContractArtifact;
}

/** Compiles contracts/LatchkeySimpleAccount.sol with its imports from node_modules (test-support/chain/solc.ts). */
export function compileLatchkeyAccount(): LatchkeyAccountArtifacts {
  const [account, factory] = compileSolidity(
    LATCHKEY_ACCOUNT_SOURCE_PATH,
    ["LatchkeySimpleAccount", "LatchkeySimpleAccountFactory"],
    SETTINGS,
  ) as [ContractArtifact, ContractArtifact];
  return { LatchkeySimpleAccount: account, LatchkeySimpleAccountFactory: factory };
}

/** The committed artifacts (contracts/LatchkeySimpleAccount.json). */
export function readLatchkeyAccountArtifacts(): LatchkeyAccountArtifacts {
  return JSON.parse(readFileSync(LATCHKEY_ACCOUNT_ARTIFACT_PATH, "utf8")) as LatchkeyAccountArtifacts;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  const artifacts = compileLatchkeyAccount();
  writeFileSync(LATCHKEY_ACCOUNT_ARTIFACT_PATH, `${JSON.stringify(artifacts, null, 2)}\n`);
  console.log(`wrote ${LATCHKEY_ACCOUNT_ARTIFACT_PATH} in ${Math.round(performance.now() - started)} ms`);
}
