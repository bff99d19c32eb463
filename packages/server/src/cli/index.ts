import { activityCommand } from "./activity";
import { adminCreateCommand, adminRemoveCommand } from "./admin";
import { adminKeyCreateCommand } from "./adminKey";
import { appCreateCommand } from "./app";
import { backupCommand, verifyBackupCommand } from "./backup";
import type { CliCommand } from "./command";
import { hsmCommand } from "./hsm";
import { migrateCommand } from "./migrate";
import { rotateMasterKeyCommand } from "./rotateMasterKey";
import { serveCommand } from "./serve";
import { serverKeyCreateCommand } from "./serverKey";
import { paymasterSignerCommand, solanaFeePayerCommand } from "./serviceKeys";
import { usersImportCommand } from "./usersImport";

/**
 * Every `latchkey` command, in the order `latchkey --help` lists them. A new command is a file in this
 * folder exporting a `CliCommand` (see ./command.ts) and one line here.
 */
const COMMANDS: readonly CliCommand[] = [
  serveCommand,
  migrateCommand,
  appCreateCommand,
  rotateMasterKeyCommand,
  hsmCommand,
  paymasterSignerCommand,
  solanaFeePayerCommand,
  activityCommand,
  adminKeyCreateCommand,
  serverKeyCreateCommand,
  adminCreateCommand,
  adminRemoveCommand,
  backupCommand,
  verifyBackupCommand,
  usersImportCommand,
];

const USAGE = `Usage: latchkey <command> [options]

Commands:
${COMMANDS.map((c) => `  ${(c.listedAs ?? c.name).padEnd(18)}  ${c.summary}\n`).join("")}
Run \`latchkey <command> --help\` for a command's options and environment.
`;

const byTopic = (topic: string) => COMMANDS.find((c) => (c.helpTopic ?? c.name) === topic);
const byName = (name: string) => COMMANDS.find((c) => c.name === name);

/** Runs `latchkey <argv>`: answers the exit code, or -1 while a server it started keeps running. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    const topic = command === "help" ? rest.join(" ") : "";
    process.stdout.write(byTopic(topic)?.help ?? USAGE);
    return command ? 0 : 1;
  }
  // A group's verb ("app create") before a command of one word ("serve", "activity list" reads its own).
  const withVerb = `${command} ${rest[0]}`;
  if (rest.includes("--help") || rest.includes("-h")) {
    const help = (byTopic(withVerb) ?? byTopic(command))?.help;
    if (help) {
      process.stdout.write(help);
      return 0;
    }
  }
  const grouped = byName(withVerb);
  if (grouped) return grouped.run(rest.slice(1));
  const single = byName(command);
  if (single) return single.run(rest);
  process.stderr.write(`Unknown command: ${command}\n\n${USAGE}`);
  return 1;
}
