import { parseArgs } from "node:util";
import { migrate, openDatabase } from "../db";
import { type CliCommand, databaseOf, ENVIRONMENT } from "./command";

/** `latchkey migrate`: the database migrations, without starting the service. */
export const migrateCommand: CliCommand = {
  name: "migrate",
  summary: "Run database migrations",
  help: `Usage: latchkey migrate [--db <url|path>]

Run the database migrations (serve also runs them at start).

${ENVIRONMENT}`,
  async run(args) {
    const { values } = parseArgs({ args, options: { db: { type: "string" } } });
    const opened = openDatabase(databaseOf(values.db));
    const done = await migrate(opened.db);
    await opened.close();
    process.stdout.write(done.length ? `Applied: ${done.join(", ")}\n` : "Up to date\n");
    return 0;
  },
};
