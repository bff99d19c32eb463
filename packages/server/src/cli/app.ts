import { parseArgs } from "node:util";
import { createAppApiKey, upsertApp } from "../apps/appDirectory";
import type { AppConfig } from "../config";
import { migrate, openDatabase } from "../db";
import { type CliCommand, databaseOf } from "./command";

/** `latchkey app create`: an app (or its update) and a new API key, shown once. */
export const appCreateCommand: CliCommand = {
  name: "app create",
  summary: "Create an app and print its API key",
  help: `Usage: latchkey app create --id <id> --name <name> [options]

Create an app (or update it) and print a new API key; the key is shown once and stored hashed.

Options:
  --db <url|path>          The database (as serve)
  --id <id>                The app's id: letters, digits, - and _ (up to 64)
  --name <name>            Its name, shown in mail
  --origin <url>           An origin allowed to use the app (repeatable)
  --email-mode <OTP|MAGIC_LINK>  How users sign in by email (default OTP)
  --redirect-url <url>     Where magic links may lead (repeatable)
  --custody <service|split>  How users' wallets are kept (default service): split makes each wallet in
                           the user's key holder and splits it 2-of-2, so every signature needs the user
  -h, --help               This help

Apps with social providers, passkey settings or sponsorship are written in the --config file of serve.
`,
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        db: { type: "string" },
        id: { type: "string" },
        name: { type: "string" },
        origin: { type: "string", multiple: true },
        "email-mode": { type: "string" },
        "redirect-url": { type: "string", multiple: true },
        custody: { type: "string" },
      },
    });
    if (!values.id || !values.name) throw new Error("app create needs --id and --name");
    const custody = values.custody ?? "service";
    if (custody !== "service" && custody !== "split") throw new Error("--custody takes service or split");
    const { appConfigSchema } = await import("../config");
    const cfg: AppConfig = appConfigSchema.parse({
      id: values.id,
      name: values.name,
      allowedOrigins: values.origin ?? [],
      emailMode: values["email-mode"] ?? "OTP",
      magicLinkRedirectUrls: values["redirect-url"] ?? [],
      custody,
    });
    const opened = openDatabase(databaseOf(values.db));
    await migrate(opened.db);
    const now = Date.now();
    const app = await upsertApp({ db: opened.db, now }, cfg);
    const key = await createAppApiKey({ db: opened.db, now }, app.id);
    await opened.close();
    process.stdout.write(
      `App ${app.id} (${app.name})${app.custody === "split" ? ", split custody" : ""}\nAPI key: ${key}\nThis key is shown once; it is stored hashed.\n`,
    );
    return 0;
  },
};
