import { KEY_ENVIRONMENT } from "../crypto/keyWrap/commands";

/**
 * One `latchkey` command. A command is one file exporting one of these and one line in the table of
 * `cli/index.ts`; the index dispatches, prints `latchkey --help` from the table and answers `--help`.
 */
export interface CliCommand {
  /** The words that run it: a command ("serve") or a group and its verb ("app create"). */
  readonly name: string;
  /** How `latchkey --help` lists it, when not as `name` (`hsm` is listed as "hsm init"). */
  readonly listedAs?: string;
  /** Its line in `latchkey --help`. */
  readonly summary: string;
  /** `latchkey <name> --help`, and `latchkey help <topic>`. */
  readonly help: string;
  /** The topic its help goes by, when not `name` (`admin-key create` answers `latchkey help admin-key`). */
  readonly helpTopic?: string;
  /** Runs it with the arguments after its name; answers the exit code, or -1 for a server that keeps running. */
  run(args: string[]): Promise<number>;
}

export const DEFAULT_DB = ".latchkey/latchkey.db";

/** The database a command opens: its --db, else LATCHKEY_DB, else the config file's, else the default. */
export function databaseOf(arg: string | undefined, fromFile?: string): string {
  return arg ?? process.env.LATCHKEY_DB ?? fromFile ?? DEFAULT_DB;
}

/** The environment the service reads, for the help of the commands that open its keys and database. */
export const ENVIRONMENT = `Environment:
  LATCHKEY_MASTER_KEY       The master key (64 hex characters or base64 of 32 bytes) that wraps every
                            data key. Required outside --dev; keep it in your secret store.
  LATCHKEY_MASTER_KEY_FILE  Or a file holding it (mode 0600). --dev makes .latchkey/master.key.
${KEY_ENVIRONMENT}  LATCHKEY_DB               SQLite path or postgres:// URL (as --db)
  LATCHKEY_SMTP_URL         smtp(s)://user:pass@host:port for mail (dev: the mailbox page instead)
  LATCHKEY_MAIL_FROM        The From address of mail
  LATCHKEY_PUBLIC_URL       The service's public URL (OAuth callbacks), e.g. https://auth.example.com
  LATCHKEY_WORKERS          As --workers
  LATCHKEY_DEV_ORIGINS      As --dev-origin, comma-separated
  LATCHKEY_DEV_API_KEY      The dev app's API key (--dev; default: made once, in .latchkey/dev-api-key)
  LATCHKEY_WALLET_RESERVE   Wallets to keep derived ahead of sign-ups for bursts (default 0; the config
                            file's walletReserve); refilled while the service is mostly idle
  LATCHKEY_SECP256K1        "noble" signs with @noble/curves even where the native libsecp256k1 addon
                            (the optional secp256k1 package) loads; /healthz says which one signs
  LATCHKEY_PBKDF2           "node" computes wallet seeds with node:crypto even where the native PBKDF2
                            addon (built by the install script) loads; /healthz says which one runs
  PORT                      As --port
`;
