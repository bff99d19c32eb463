import {
  type ImportSecret,
  ImportSecretError,
  type ImportSecretKind,
  parseImportSecret,
} from "@latchkey/protocol";
import { emailSchema } from "@latchkey/protocol/schemas";
import { z } from "zod";
import { isBip39Mnemonic } from "./importedWallet";

/**
 * One line of a `latchkey users import` file (JSON Lines), e.g.
 * `{"email":"ada@example.com","emailVerified":true,"externalId":"u_1","wallet":{"mnemonic":"…"}}`.
 * `email` needs `emailVerified`: a verified email is the user's sign-in address (their first sign-in with
 * it claims the user); an unverified one is contact data only, as a passkey sign-up's email is. The
 * wallet is optional: without one the user gets a new wallet; with a phrase, that wallet; with an EVM
 * and/or a Solana key, a new wallet whose account of that chain the key replaces (as an import does).
 */
const recordSchema = z
  .object({
    email: emailSchema.optional(),
    emailVerified: z.boolean().optional(),
    externalId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[\x21-\x7e]+$/, "is printable ASCII without spaces")
      .optional(),
    wallet: z
      .object({
        mnemonic: z.string().max(1000).optional(),
        evmPrivateKey: z.string().max(200).optional(),
        solanaPrivateKey: z.string().max(1000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** A line read and checked: who the user is, and what key material they bring (already canonical). */
export interface ImportRecord {
  /** 1-based line number in the file. */
  line: number;
  email: string | null;
  emailVerified: boolean;
  externalId: string | null;
  /** A phrase, or up to one key per chain. */
  secrets: ImportSecret[];
  /** What makes two lines the same user: the external id, else the email. */
  key: string;
}

/** A line that cannot be imported, and why (never quoting the line: it may hold a key). */
export interface RejectedLine {
  line: number;
  error: string;
}

const KEY_FIELDS: [keyof NonNullable<z.infer<typeof recordSchema>["wallet"]>, ImportSecretKind][] = [
  ["mnemonic", "mnemonic"],
  ["evmPrivateKey", "evm_private_key"],
  ["solanaPrivateKey", "solana_private_key"],
];

/**
 * Reads one line of the file. Answers the record, or why it is refused: not JSON, an unknown field, no
 * email and no external id, an email without `emailVerified`, a phrase beside keys, or key material that
 * is not what its field says. Key material is parsed here, once, and the line's text is not kept.
 *
 * @example
 * const read = readImportLine(text, 12); // { record } or { rejected: { line: 12, error } }
 */
export function readImportLine(
  text: string,
  line: number,
): { record: ImportRecord } | { rejected: RejectedLine } | null {
  if (text.trim() === "") return null;
  const reject = (error: string) => ({ rejected: { line, error } });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return reject("not a JSON object");
  }
  const parsed = recordSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return reject(`${issue?.path.join(".") || "line"}: ${issue?.message ?? "invalid"}`);
  }
  const r = parsed.data;
  if (!r.email && !r.externalId) return reject("needs an email or an externalId");
  if (r.email && r.emailVerified === undefined)
    return reject("email: say whether it is verified (emailVerified: true or false)");
  const secrets: ImportSecret[] = [];
  for (const [field, kind] of KEY_FIELDS) {
    const value = r.wallet?.[field];
    if (value === undefined) continue;
    try {
      secrets.push(parseImportSecret(kind, value, isBip39Mnemonic));
    } catch (e) {
      if (!(e instanceof ImportSecretError)) throw e;
      return reject(`wallet.${field}: ${e.message}`);
    }
  }
  if (secrets.some((s) => s.kind === "mnemonic") && secrets.length > 1)
    return reject("wallet: a mnemonic, or keys, not both");
  const email = r.email ?? null;
  const emailVerified = r.emailVerified ?? false;
  const key = r.externalId ? `id:${r.externalId}` : emailVerified ? `email:${email}` : `contact:${email}`;
  return { record: { line, email, emailVerified, externalId: r.externalId ?? null, secrets, key } };
}
