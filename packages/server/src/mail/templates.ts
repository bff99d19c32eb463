import { MAIL_TEXTS, type MailLocale } from "./locales";

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

function layout(locale: MailLocale, title: string, body: string): string {
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f7;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2330">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="padding:32px 12px"><tr><td align="center">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:440px;background:#ffffff;border-radius:16px;padding:32px;border:1px solid #e6e6ec">
<tr><td>${body}</td></tr></table>
<p style="font-size:12px;color:#8a8fa3;margin-top:16px">${escapeHtml(MAIL_TEXTS[locale].protectedBy)}</p></td></tr></table></body></html>`;
}

/** Who a mail is for and from which app, in the app's language (English by default). */
interface MailContext {
  to: string;
  appName: string;
  locale?: MailLocale;
}

const CODE_STYLE =
  "font-size:32px;letter-spacing:8px;font-weight:700;margin:0 0 20px;font-family:ui-monospace,Menlo,monospace";
const NOTE_STYLE = "margin:0;font-size:13px;color:#6b7085;line-height:1.5";

/** The sign-in code. */
export function otpMail(opts: MailContext & { code: string; ttlMinutes: number }): Mail {
  const { to, appName, code, ttlMinutes, locale = "en" } = opts;
  const t = MAIL_TEXTS[locale].otp;
  const app = escapeHtml(appName);
  return {
    to,
    subject: t.subject(code, appName),
    text: `${t.plainIntro(appName, code)}\n\n${t.expiry(ttlMinutes)}\n`,
    html: layout(
      locale,
      t.title(appName),
      `<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(t.heading)}</h1>
<p style="margin:0 0 20px;line-height:1.5">${t.intro(app)}</p>
<p style="${CODE_STYLE}" data-otp="${code}">${code}</p>
<p style="${NOTE_STYLE}">${escapeHtml(t.expiry(ttlMinutes))}</p>`,
    ),
  };
}

/** The magic link. */
export function magicLinkMail(opts: MailContext & { link: string; ttlMinutes: number }): Mail {
  const { to, appName, link, ttlMinutes, locale = "en" } = opts;
  const t = MAIL_TEXTS[locale].magicLink;
  return {
    to,
    subject: t.subject(appName),
    text: `${t.plainIntro(appName)}\n\n${link}\n\n${t.expiry(ttlMinutes)}\n`,
    html: layout(
      locale,
      t.subject(appName),
      `<h1 style="font-size:20px;margin:0 0 12px">${t.heading(escapeHtml(appName))}</h1>
<p style="margin:0 0 24px;line-height:1.5">${escapeHtml(t.intro)}</p>
<p style="margin:0 0 24px"><a href="${escapeHtml(link)}" data-magic-link style="display:inline-block;background:#363ff9;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:10px;font-weight:600">${escapeHtml(t.button)}</a></p>
<p style="${NOTE_STYLE}">${escapeHtml(t.expiry(ttlMinutes))}</p>`,
    ),
  };
}

/** The code that proves a new address before it becomes the account's email sign-in. */
export function contactCodeMail(opts: MailContext & { code: string; ttlMinutes: number }): Mail {
  const { to, appName, code, ttlMinutes, locale = "en" } = opts;
  const t = MAIL_TEXTS[locale].contactCode;
  return {
    to,
    subject: t.subject(code, appName),
    text: `${t.plainIntro(appName, code)}\n\n${t.plainUse} ${t.expiry(ttlMinutes)}\n`,
    html: layout(
      locale,
      t.title(appName),
      `<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(t.heading)}</h1>
<p style="margin:0 0 20px;line-height:1.5">${t.intro(escapeHtml(appName))}</p>
<p style="${CODE_STYLE}" data-otp="${code}">${code}</p>
<p style="${NOTE_STYLE}">${escapeHtml(t.expiry(ttlMinutes))}</p>`,
    ),
  };
}

/** A security notice to the address that stops being (or is replaced as) the account's email sign-in. */
export function emailChangedMail(opts: MailContext & { newEmail: string | null }): Mail {
  const { to, appName, newEmail, locale = "en" } = opts;
  const t = MAIL_TEXTS[locale].emailChanged;
  const what = newEmail ? t.changedTo(appName, newEmail) : t.removed(appName);
  return {
    to,
    subject: newEmail ? t.subjectChanged(appName) : t.subjectRemoved(appName),
    text: `${what}\n\n${t.advice}\n`,
    html: layout(
      locale,
      t.title(appName),
      `<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(t.heading)}</h1>
<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(what)}</p>
<p style="${NOTE_STYLE}">${escapeHtml(t.advice)}</p>`,
    ),
  };
}

/** A security notice to the account's email: what happened (`body`) and what to do if it was not them. */
function securityNotice(
  opts: MailContext,
  t: { subject(app: string): string; advice: string },
  body: string,
): Mail {
  const { to, appName, locale = "en" } = opts;
  const heading = MAIL_TEXTS[locale].emailChanged.heading;
  return {
    to,
    subject: t.subject(appName),
    text: `${body}\n\n${t.advice}\n`,
    html: layout(
      locale,
      t.subject(appName),
      `<h1 style="font-size:20px;margin:0 0 12px">${escapeHtml(heading)}</h1>
<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(body)}</p>
<p style="${NOTE_STYLE}">${escapeHtml(t.advice)}</p>`,
    ),
  };
}

/** A security notice to the account's email: the wallet's recovery phrase was exported. */
export function walletExportedMail(opts: MailContext): Mail {
  const t = MAIL_TEXTS[opts.locale ?? "en"].walletExported;
  return securityNotice(opts, t, t.body(opts.appName));
}

/** A security notice to the account's email: a wallet was imported and is now the one the app uses. */
export function walletImportedMail(opts: MailContext): Mail {
  const t = MAIL_TEXTS[opts.locale ?? "en"].walletImported;
  return securityNotice(opts, t, t.body(opts.appName));
}

/**
 * A security notice to the account's email: the user let the app's backend sign for them (a permission
 * grant) until `expiresAt`, shown in UTC in the mail's language. A grant made by a script of the app's page
 * without the user does not go unseen.
 */
export function grantCreatedMail(opts: MailContext & { expiresAt: number }): Mail {
  const locale = opts.locale ?? "en";
  const t = MAIL_TEXTS[locale].grantCreated;
  const until = `${new Intl.DateTimeFormat(locale, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }).format(opts.expiresAt)} UTC`;
  return securityNotice(opts, t, t.body(opts.appName, until));
}
