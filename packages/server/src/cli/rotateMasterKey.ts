import { ROTATE_HELP, rotateMasterKeyCommand as rotateMasterKey } from "../crypto/keyWrap/commands";
import { type CliCommand, DEFAULT_DB } from "./command";

/** `latchkey rotate-master-key`: every data key re-wrapped under another master key (or into an HSM). */
export const rotateMasterKeyCommand: CliCommand = {
  name: "rotate-master-key",
  summary: "Re-wrap data keys under a new master key (or move them into or out of an HSM)",
  help: ROTATE_HELP,
  run: (args) => rotateMasterKey(args, process.env, DEFAULT_DB),
};
