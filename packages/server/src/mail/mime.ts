/**
 * A mail as MIME (RFC 5322, 2045–2047): a plain-text and an HTML part in multipart/alternative, both
 * UTF-8 in quoted-printable, so the message is 7-bit and any SMTP server takes it as it is.
 */
import { randomBytes } from "node:crypto";

export interface MimeMail {
  /** `Name <address>` or a bare address. */
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** The address inside `Name <address>`, or the whole string. */
export function addressOf(mailbox: string): string {
  return (/<([^<>]*)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
}

// Header values never carry a line break: a name or a subject cannot add a header.
const oneLine = (s: string) => s.replace(/[\r\n]+/g, " ");

const ASCII_PRINTABLE = /^[\x20-\x7e]*$/;

/** RFC 2047 encoded words, each at most 75 characters, split between whole characters. */
function encodedWords(value: string): string {
  const words: string[] = [];
  let chunk = "";
  for (const char of value) {
    if (Buffer.byteLength(chunk + char, "utf8") > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += char;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, "utf8").toString("base64")}?=`).join("\r\n ");
}

/** An unstructured header value (Subject): as it is when short and ASCII, else encoded words. */
function headerText(value: string): string {
  const v = oneLine(value);
  return ASCII_PRINTABLE.test(v) && v.length <= 900 && !v.includes("=?") ? v : encodedWords(v);
}

function mailboxHeader(mailbox: string): string {
  const m = /^(.*?)\s*<([^<>]*)>\s*$/.exec(oneLine(mailbox));
  if (!m) return oneLine(mailbox).trim();
  const [, name = "", address = ""] = m;
  const display = name.trim().replace(/^"(.*)"$/, "$1");
  if (!display) return `<${address}>`;
  const shown = ASCII_PRINTABLE.test(display)
    ? `"${display.replace(/["\\]/g, "\\$&")}"`
    : encodedWords(display);
  return `${shown} <${address}>`;
}

// Characters a quoted-printable line carries as they are: printable ASCII but "=", and space and tab.
const NOT_LITERAL = /[^!-<>-~ \t]/gu;
const escapeChar = (c: string) => (c === "=" ? "=3D" : encodeURIComponent(c).replace(/%/g, "="));

/**
 * Quoted-printable (RFC 2045 §6.7): printable ASCII as it is except "=", a space or tab before a line
 * end and a "." starting a line; everything else as =XX of its UTF-8 bytes; lines of at most 76.
 */
export function quotedPrintable(text: string): string {
  return text
    .split(/\r\n|\r|\n/)
    .map(encodeLine)
    .join("\r\n");
}

function encodeLine(line: string): string {
  let e = line.replace(NOT_LITERAL, escapeChar);
  if (e.endsWith(" ") || e.endsWith("\t")) e = `${e.slice(0, -1)}=${e.endsWith(" ") ? "20" : "09"}`;
  if (e.startsWith(".")) e = `=2E${e.slice(1)}`;
  if (e.length <= 76) return e;
  // Soft breaks ("=" at the end) keep every line within 76, never inside an =XX.
  const lines: string[] = [];
  let at = 0;
  while (e.length - at > 76) {
    let cut = at + 75;
    if (e[cut - 1] === "=") cut -= 1;
    else if (e[cut - 2] === "=") cut -= 2;
    lines.push(`${e.slice(at, cut)}=`);
    at = cut;
    // A continuation line must not start with a "." either.
    if (e[at] === ".") e = `${e.slice(0, at)}=2E${e.slice(at + 1)}`;
  }
  lines.push(e.slice(at));
  return lines.join("\r\n");
}

/** The message, CRLF line ends, ready for SMTP DATA. */
export function buildMessage(mail: MimeMail, opts: { date?: Date; id?: string } = {}): string {
  const id = opts.id ?? randomBytes(12).toString("hex");
  const domain = addressOf(mail.from).split("@")[1] || "localhost";
  const boundary = `lk-${id}`;
  const date = (opts.date ?? new Date()).toUTCString().replace(/GMT$/, "+0000");
  return [
    `From: ${mailboxHeader(mail.from)}`,
    `To: ${mailboxHeader(mail.to)}`,
    `Subject: ${headerText(mail.subject)}`,
    `Date: ${date}`,
    `Message-ID: <${id}@${oneLine(domain)}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: quoted-printable",
    "",
    quotedPrintable(mail.text),
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "Content-Transfer-Encoding: quoted-printable",
    "",
    quotedPrintable(mail.html),
    `--${boundary}--`,
    "",
  ].join("\r\n");
}
