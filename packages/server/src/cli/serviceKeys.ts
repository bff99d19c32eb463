import { parseArgs } from "node:util";
import { type FileConfig, readConfigFile } from "../config";
import { Keyring } from "../crypto/keyring";
import { loadKeyWrapper } from "../crypto/keyWrap/loadKeyWrapper";
import { migrate, openDatabase } from "../db";
import { ServiceKeys } from "../serviceKeys/serviceKeys";
import { type CliCommand, databaseOf, ENVIRONMENT } from "./command";

const OPTIONS = `Options:
  --db <url|path>    The database (as serve)
  --config <file>    Take the database and master key file from this config file
  --dev              Use the dev master key file (.latchkey/master.key), as serve --dev does
  -h, --help         This help

${ENVIRONMENT}`;

/** `latchkey paymaster-signer`: the address of the key that signs sponsored user operations. */
export const paymasterSignerCommand: CliCommand = {
  name: "paymaster-signer",
  summary: "Print the paymaster signer's address (to register on-chain)",
  help: `Usage: latchkey paymaster-signer [options]

Print the address of the key the service signs sponsored user operations with (ERC-7677 paymaster at
/rpc/v1). Add it to the verifying paymaster's signers (SingletonPaymasterV8: addSigner) on every chain
in the config's "chains". The key is made on first use (here or by serve), sealed at rest under the
master key; it is never printed.

${OPTIONS}`,
  run: (args) => printServiceKey(args, (keys) => keys.address("paymaster")),
};

/** `latchkey solana-fee-payer`: the Solana address that pays sponsored transactions' fees. */
export const solanaFeePayerCommand: CliCommand = {
  name: "solana-fee-payer",
  summary: "Print the Solana fee payer's address (to fund with SOL)",
  help: `Usage: latchkey solana-fee-payer [options]

Print the Solana address (base58) of the key that pays the fees of sponsored Solana transactions
(latchkey_requestFeePayer at /rpc/v1, the apps' "solanaPolicies"). Fund it with SOL on the cluster your
users send to; it pays fees only. The key is made on first use (here or by serve), sealed at rest under
the master key; it is never printed.

${OPTIONS}`,
  run: (args) => printServiceKey(args, (keys) => keys.solanaAddress("solanaFeePayer")),
};

/** Prints the public part of one of the service's keys (making the key on first use). */
async function printServiceKey(
  args: string[],
  publicPart: (keys: ServiceKeys) => Promise<string>,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { db: { type: "string" }, config: { type: "string" }, dev: { type: "boolean", default: false } },
  });
  const file: Partial<FileConfig> = values.config ? readConfigFile(values.config) : {};
  const env = process.env;
  const keyFile =
    file.masterKeyFile ?? env.LATCHKEY_MASTER_KEY_FILE ?? (values.dev ? ".latchkey/master.key" : undefined);
  const wrapper = await loadKeyWrapper({ env, dev: values.dev, ...(keyFile ? { keyFile } : {}) });
  const opened = openDatabase(databaseOf(values.db, file.db));
  const keyring = new Keyring(opened.db, wrapper);
  try {
    await migrate(opened.db);
    await keyring.init();
    const { randomBytes, randomUUID } = await import("node:crypto");
    const keys = new ServiceKeys({
      db: opened.db,
      keyring,
      now: Date.now,
      random: { uuid: randomUUID, bytes: randomBytes },
    });
    process.stdout.write(`${await publicPart(keys)}\n`);
  } finally {
    await opened.close();
    await keyring.close();
  }
  return 0;
}
