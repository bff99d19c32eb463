import { parseArgs } from "node:util";
import { type FileConfig, readConfigFile } from "../config";
import type { Service } from "../createService";
import { migrate, openDatabase } from "../db";
import {
  createEnrolmentLink,
  ENROLMENT_LINK_TTL_MS,
  enrolmentUrl,
  removeConsoleAdmin,
} from "../features/admin/console/consoleAdmins";
import { holdsForApproval } from "../keyManagement/policies/policySchema";
import { type CliCommand, databaseOf } from "./command";

const HELP = `Usage: latchkey admin create --app <appId> --name <name> [options]
       latchkey admin remove --app <appId> --name <name> [options]

The admin console (/admin on the service) is for an app's admins: people, each signing in with a passkey.

  create    Add an admin to an app (or take an existing one) and print a one-time enrolment link. Opened
            in a browser, it enrols a passkey for that admin; it works once, for 15 minutes unless
            --expires says otherwise, and the service keeps only its hash. Run it again for a new link
            (another passkey, or a lost one).
  remove    Remove an admin: their console sessions end at once, their passkeys and links are deleted.

Options:
  --app <appId>         The app the admin administers (only that app's users, activities and settings)
  --name <name>         The admin's name (1–64 letters, digits, spaces, . _ @ + -), shown in the security log
  --url <serviceUrl>    The service's public URL, for the link (default: the config file's publicUrl,
                        LATCHKEY_PUBLIC_URL, else http://localhost:8787)
  --expires <minutes>   How long the link works (create; default 15, at most 10080)
  --db <url|path>       The database (as serve)
  --config <file>       Take the database and publicUrl from this config file
  -h, --help            This help
`;

function readArgs(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      app: { type: "string" },
      name: { type: "string" },
      url: { type: "string" },
      expires: { type: "string" },
      db: { type: "string" },
      config: { type: "string" },
    },
  });
  if (!values.app || !values.name) throw new Error("admin commands need --app <appId> and --name <name>");
  const file: Partial<FileConfig> = values.config ? readConfigFile(values.config) : {};
  return { values: { ...values, app: values.app, name: values.name }, file };
}

/** `latchkey admin create`: a console admin of an app and a one-time link that enrols their passkey. */
export const adminCreateCommand: CliCommand = {
  name: "admin create",
  summary: "Add an admin to the console and print a one-time enrolment link",
  helpTopic: "admin",
  help: HELP,
  async run(args) {
    const { values, file } = readArgs(args);
    let ttlMs = ENROLMENT_LINK_TTL_MS;
    if (values.expires !== undefined) {
      const minutes = Number(values.expires);
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > 10_080)
        throw new Error("--expires takes whole minutes from 1 to 10080");
      ttlMs = minutes * 60_000;
    }
    const serviceUrl =
      values.url ?? file.publicUrl ?? process.env.LATCHKEY_PUBLIC_URL ?? "http://localhost:8787";
    if (!/^https?:\/\/[^/?#]+/.test(serviceUrl)) throw new Error("--url is the service's http(s) URL");
    const opened = openDatabase(databaseOf(values.db, file.db));
    try {
      await migrate(opened.db);
      const link = await createEnrolmentLink(
        { db: opened.db, now: Date.now() },
        { appId: values.app, name: values.name, ttlMs },
      );
      process.stdout.write(
        `${link.created ? "New admin" : "Admin"} ${values.name.trim()} of app ${values.app}\n` +
          `Enrolment link (single use, until ${new Date(link.expiresAt).toISOString()}):\n` +
          `${enrolmentUrl(serviceUrl, link.token)}\n`,
      );
    } finally {
      await opened.close();
    }
    return 0;
  },
};

/** `latchkey admin remove`: an admin's sessions end, their passkeys go. */
export const adminRemoveCommand: CliCommand = {
  name: "admin remove",
  summary: "Remove an admin from the console (their sessions end at once)",
  helpTopic: "admin",
  help: HELP,
  async run(args) {
    const { values, file } = readArgs(args);
    const opened = openDatabase(databaseOf(values.db, file.db));
    try {
      await migrate(opened.db);
      const removed = await removeConsoleAdmin(
        { db: opened.db, now: Date.now() },
        { appId: values.app, name: values.name },
      );
      process.stdout.write(
        removed
          ? `Removed admin ${values.name.trim()} of app ${values.app}\n`
          : `No admin ${values.name.trim()} in app ${values.app}\n`,
      );
      return removed ? 0 : 1;
    } finally {
      await opened.close();
    }
  },
};

/** How long the enrolment link `serve --dev` prints works: a day (dev only). */
const DEV_LINK_TTL_MS = 24 * 3600_000;

/**
 * What `latchkey serve` prints about the console: where it is, and in dev mode a fresh enrolment link for
 * the dev app's admin "dev" (`npm start` shows both).
 */
export async function consoleLines(
  service: Pick<Service, "ctx" | "devApp">,
  shown: string,
): Promise<string[]> {
  const base = service.ctx.publicUrl ?? shown;
  const lines = [`Admin console:   ${base}/admin`];
  // An app whose policy holds signatures needs someone to approve them: an admin key or a console admin.
  const { db } = service.ctx;
  const apps = await db.selectFrom("apps").select("id").orderBy("id").execute();
  for (const { id } of apps) {
    const policy = await service.ctx.apps.signingPolicyOf(id);
    if (!policy || !holdsForApproval(policy) || policy.adminKeys.length > 0) continue;
    const admin = await db
      .selectFrom("console_admins")
      .innerJoin("console_passkeys", "console_passkeys.admin_id", "console_admins.id")
      .select("console_admins.id")
      .where("console_admins.app_id", "=", id)
      .where("console_admins.revoked_at", "is", null)
      .executeTakeFirst();
    if (!admin)
      lines.push(
        `Warning: app ${id} holds signatures for approval, but has no admin key and no console admin to approve them (held signatures wait until one does): latchkey admin create --app ${id} --name <you>`,
      );
  }
  if (service.devApp) {
    const link = await createEnrolmentLink(
      { db: service.ctx.db, now: service.ctx.now() },
      { appId: service.devApp.app.id, name: "dev", ttlMs: DEV_LINK_TTL_MS },
    );
    lines.push(
      `Dev admin enrolment: ${enrolmentUrl(base, link.token)} (admin "dev" of the dev app; once, 24 h)`,
    );
  }
  return lines;
}
