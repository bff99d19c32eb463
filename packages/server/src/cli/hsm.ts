import { HSM_HELP, hsmCommand as hsm } from "../crypto/keyWrap/commands";
import type { CliCommand } from "./command";

/** `latchkey hsm init`: the master key made inside an HSM token (PKCS#11). */
export const hsmCommand: CliCommand = {
  name: "hsm",
  listedAs: "hsm init",
  summary: "Create the master key in an HSM token (PKCS#11)",
  help: HSM_HELP,
  async run(args) {
    // `latchkey hsm` alone answers its help, as a mistake.
    if (args.length === 0) {
      process.stdout.write(HSM_HELP);
      return 1;
    }
    return hsm(args, process.env);
  },
};
