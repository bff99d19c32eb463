import { parseArgs } from "node:util";
import { migrate, openDatabase } from "../db";
import { listSignedActivities } from "../keyManagement/confirmation/signedLog";
import {
  decideThroughService,
  describeHeld,
  listHeldActivities,
  readAdminKey,
  readAdminKeyFile,
} from "../keyManagement/policies/adminCli";
import { type CliCommand, databaseOf } from "./command";

const HELP = `Usage: latchkey activity list --app <id> [--db <url|path>]
       latchkey activity signed --app <id> [--db <url|path>] [--limit <n>]
       latchkey activity approve <activityId> --org <organizationId> --url <serviceUrl> [--admin-key-file <file>]
       latchkey activity reject <activityId> --org <organizationId> --url <serviceUrl> [--admin-key-file <file>]

Signatures an app's signing policy holds for approval ("needs_approval" rules, or rawPayloads:
"needs_approval") wait in ACTIVITY_STATUS_CONSENSUS_NEEDED until one of the app's admin keys
(signingPolicy.adminKeys in the --config file of serve) approves or rejects them.

  list      The app's waiting activities (from the database), with the app's organization id and the
            command that decides each
  approve   Sign it: the service signs and completes the activity (once, whoever approves first); a
            split-custody wallet's signature is approved and completed by the user's device, which
            holds its share, within 24 h (it stays CONSENSUS_NEEDED until then)
  reject    Refuse it: the activity ends REJECTED, never signed
  signed    The app's latest signatures (the security log's signing.completed), newest first, each
            with what it does (the decoded summary the user was shown) and whether the user confirmed
            it in the auth frame

Options:
  --app <id>                The app (list, signed)
  --db <url|path>           The database (as serve; list, signed)
  --limit <n>               How many signatures (signed; default 20, at most 500)
  --org <organizationId>    The app's organization id, as list prints it (approve, reject)
  --url <serviceUrl>        The service, e.g. https://auth.example.com (approve, reject)
  --admin-key-file <file>   The admin key's private key, 64 hex digits (from latchkey admin-key create);
                            or LATCHKEY_ADMIN_KEY
  -h, --help                This help

Environment:
  LATCHKEY_ADMIN_KEY        An admin key's private key (64 hex digits), instead of --admin-key-file
  LATCHKEY_DB               As --db
`;

/**
 * `latchkey activity list|approve|reject|signed`: what an app's signing policy holds, an admin's decision,
 * and the signatures made (with what they do).
 */
export const activityCommand: CliCommand = {
  name: "activity",
  summary: "List, approve or reject signatures an app's signing policy holds; list those it made",
  help: HELP,
  run: activity,
};

async function activity(args: string[]): Promise<number> {
  const [verb, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      app: { type: "string" },
      db: { type: "string" },
      org: { type: "string" },
      url: { type: "string" },
      "admin-key-file": { type: "string" },
      limit: { type: "string" },
    },
  });
  if (verb === "signed") {
    if (!values.app) throw new Error("activity signed needs --app <id>");
    const limit = values.limit === undefined ? 20 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new Error("--limit must be a whole number from 1");
    const opened = openDatabase(databaseOf(values.db));
    try {
      await migrate(opened.db);
      const signed = await listSignedActivities(opened.db, values.app, limit);
      if (signed.length === 0) process.stdout.write(`App ${values.app} has signed nothing yet.\n`);
      for (const e of signed) {
        const how = e.confirmedInFrame ? "confirmed in the frame" : "not confirmed in the frame";
        process.stdout.write(
          `\n${e.activityId}  ${e.type}  ${e.createdAt}  ${e.userId ?? ""}  (${how})\n${e.summary
            .map((l) => `  ${l}\n`)
            .join("")}`,
        );
      }
    } finally {
      await opened.close();
    }
    return 0;
  }
  if (verb === "list") {
    if (!values.app) throw new Error("activity list needs --app <id>");
    const opened = openDatabase(databaseOf(values.db));
    try {
      await migrate(opened.db);
      const { appOrganizationId, held } = await listHeldActivities(opened.db, values.app);
      process.stdout.write(`App ${values.app}: organization ${appOrganizationId}\n`);
      if (held.length === 0) process.stdout.write("Nothing is waiting for approval.\n");
      for (const a of held) {
        const next = a.approvedUntil
          ? `approved; waiting for the user's device to complete it until ${a.approvedUntil}`
          : `latchkey activity approve ${a.activityId} --org ${appOrganizationId} --url <serviceUrl>`;
        process.stdout.write(
          `\n${a.activityId}  ${a.type}  ${a.createdAt}  ${a.email ?? a.userId}\n  ${a.reason}\n${describeHeld(
            a,
          )
            .map((l) => `  ${l}\n`)
            .join("")}  ${JSON.stringify(a.intent)}\n  ${next}\n`,
        );
      }
    } finally {
      await opened.close();
    }
    return 0;
  }
  if (verb !== "approve" && verb !== "reject") {
    process.stderr.write(HELP);
    return 1;
  }
  const activityId = positionals[0];
  if (!activityId || !values.org || !values.url)
    throw new Error(`activity ${verb} needs <activityId>, --org and --url`);
  const keyFile = values["admin-key-file"];
  const envKey = process.env.LATCHKEY_ADMIN_KEY;
  if (!keyFile && !envKey)
    throw new Error("Give the admin key: --admin-key-file <file> or LATCHKEY_ADMIN_KEY");
  const adminKey = keyFile ? readAdminKeyFile(keyFile) : readAdminKey(envKey as string);
  const answer = await decideThroughService({
    serviceUrl: values.url,
    decision: verb,
    organizationId: values.org,
    activityId,
    adminKey,
  });
  if (!answer.ok) {
    process.stderr.write(`The service refused (${answer.status}): ${String(answer.body.message ?? "")}\n`);
    return 1;
  }
  const activity = answer.body.activity as
    | {
        result?: Record<
          string,
          { status?: string; approvals?: { approved: number; required: number; duplicate: boolean } }
        >;
      }
    | undefined;
  const outcome = Object.values(activity?.result ?? {})[0];
  const decided = outcome?.status ?? "";
  const approvals = outcome?.approvals;
  // An app that needs one approval (the default) reads as before; N approvals show their count.
  const count =
    approvals && approvals.required > 1 ? ` (${approvals.approved} of ${approvals.required} approvals)` : "";
  process.stdout.write(
    approvals?.duplicate && decided === "ACTIVITY_STATUS_CONSENSUS_NEEDED"
      ? `Activity ${activityId}: this admin approved it already; counted once${count}\n`
      : approvals && approvals.approved < approvals.required
        ? `Activity ${activityId}: approved${count}; waiting for ${approvals.required - approvals.approved} more admin(s)\n`
        : decided === "ACTIVITY_STATUS_CONSENSUS_NEEDED"
          ? `Activity ${activityId}: approved${count}; the user's device completes the signature (split custody)\n`
          : `Activity ${activityId}: ${decided}${count}\n`,
  );
  return 0;
}
