import { parseArgs } from "node:util";
import { createAdminKeyFile } from "../keyManagement/policies/adminCli";
import type { CliCommand } from "./command";

/** `latchkey admin-key create`: a P-256 admin key for an app's signing policy. */
export const adminKeyCreateCommand: CliCommand = {
  name: "admin-key create",
  summary: "Make an admin key for an app's signing policy",
  helpTopic: "admin-key",
  help: `Usage: latchkey admin-key create --out <file>

Make a P-256 admin key for an app's signing policy: the private key is written to <file> (mode 0600,
never overwritten) and the public key is printed. Put the public key in the app's
signingPolicy.adminKeys ({"name": "ops", "publicKey": "02…"}); keep the file where approvals are made
(latchkey activity approve, or the app's backend).

Options:
  --out <file>   Where the private key goes
  -h, --help     This help
`,
  async run(args) {
    const { values } = parseArgs({ args, options: { out: { type: "string" } } });
    if (!values.out) throw new Error("admin-key create needs --out <file>");
    const publicKey = createAdminKeyFile(values.out);
    process.stdout.write(
      `Admin key written to ${values.out} (keep it secret).\nPublic key (for signingPolicy.adminKeys): ${publicKey}\n`,
    );
    return 0;
  },
};
