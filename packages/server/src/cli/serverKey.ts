import { parseArgs } from "node:util";
import { createAdminKeyFile } from "../keyManagement/policies/adminCli";
import type { CliCommand } from "./command";

/** `latchkey server-key create`: a P-256 key for an app's backend (the backend API, grants). */
export const serverKeyCreateCommand: CliCommand = {
  name: "server-key create",
  summary: "Make a server key for an app's backend (signing within users' grants)",
  helpTopic: "server-key",
  help: `Usage: latchkey server-key create --out <file> [--name <name>]

Make a P-256 server key for an app's backend: the private key is written to <file> (64 hex digits,
mode 0600, never overwritten) and the public key is printed. Put it in the app's serverKeys
([{"name": "bot", "publicKey": "02…"}]) in the --config file of serve; the backend then signs for users
within the grants they made (POST /backend/v1/*, @latchkey/backend's createBackendClient({ serverKey })).
Keep the file on the backend only.

Options:
  --out <file>    Where the private key goes
  --name <name>   The key's name in the printed entry (default "backend")
  -h, --help      This help
`,
  async run(args) {
    const { values } = parseArgs({ args, options: { out: { type: "string" }, name: { type: "string" } } });
    if (!values.out) throw new Error("server-key create needs --out <file>");
    const publicKey = createAdminKeyFile(values.out);
    const entry = JSON.stringify({ name: values.name ?? "backend", publicKey });
    process.stdout.write(
      `Server key written to ${values.out} (keep it secret, on the backend).\nPublic key: ${publicKey}\nFor the app's serverKeys: ${entry}\n`,
    );
    return 0;
  },
};
