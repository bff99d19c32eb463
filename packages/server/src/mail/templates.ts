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

function layout(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:0;background:#f4f4f7;font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2330">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="padding:32px 12px"><tr><td align="center">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:440px;background:#ffffff;border-radius:16px;padding:32px;border:1px solid #e6e6ec">
<tr><td>${body}</td></tr></table>
<p style="font-size:12px;color:#8a8fa3;margin-top:16px">Protected by Latchkey</p></td></tr></table></body></html>`;
}

export function otpMail(opts: { to: string; appName: string; code: string; ttlMinutes: number }): Mail {
  const { to, appName, code, ttlMinutes } = opts;
  return {
    to,
    subject: `${code} is your ${appName} sign-in code`,
    text: `Your ${appName} sign-in code is ${code}\n\nIt expires in ${ttlMinutes} minutes and works once. If you did not try to sign in, you can ignore this email.\n`,
    html: layout(
      `Your ${appName} sign-in code`,
      `<h1 style="font-size:20px;margin:0 0 12px">Your sign-in code</h1>
<p style="margin:0 0 20px;line-height:1.5">Enter this code to sign in to ${escapeHtml(appName)}.</p>
<p style="font-size:32px;letter-spacing:8px;font-weight:700;margin:0 0 20px;font-family:ui-monospace,Menlo,monospace" data-otp="${code}">${code}</p>
<p style="margin:0;font-size:13px;color:#6b7085;line-height:1.5">It expires in ${ttlMinutes} minutes and works once. If you did not try to sign in, you can ignore this email.</p>`,
    ),
  };
}

export function magicLinkMail(opts: { to: string; appName: string; link: string; ttlMinutes: number }): Mail {
  const { to, appName, link, ttlMinutes } = opts;
  return {
    to,
    subject: `Sign in to ${appName}`,
    text: `Open this link to sign in to ${appName}:\n\n${link}\n\nIt works in the browser where you asked for it and expires in ${ttlMinutes} minutes. If you did not try to sign in, you can ignore this email.\n`,
    html: layout(
      `Sign in to ${appName}`,
      `<h1 style="font-size:20px;margin:0 0 12px">Sign in to ${escapeHtml(appName)}</h1>
<p style="margin:0 0 24px;line-height:1.5">Click the button to finish signing in.</p>
<p style="margin:0 0 24px"><a href="${escapeHtml(link)}" data-magic-link style="display:inline-block;background:#363ff9;color:#ffffff;text-decoration:none;padding:12px 20px;border-radius:10px;font-weight:600">Sign in</a></p>
<p style="margin:0;font-size:13px;color:#6b7085;line-height:1.5">It works in the browser where you asked for it and expires in ${ttlMinutes} minutes. If you did not try to sign in, you can ignore this email.</p>`,
    ),
  };
}

/** The code that proves a new address before it becomes the account's email sign-in. */
export function contactCodeMail(opts: {
  to: string;
  appName: string;
  code: string;
  ttlMinutes: number;
}): Mail {
  const { to, appName, code, ttlMinutes } = opts;
  return {
    to,
    subject: `${code} is your ${appName} verification code`,
    text: `Your ${appName} verification code is ${code}\n\nEnter it to use this address to sign in. It expires in ${ttlMinutes} minutes and works once. If you did not ask for it, you can ignore this email.\n`,
    html: layout(
      `Your ${appName} verification code`,
      `<h1 style="font-size:20px;margin:0 0 12px">Confirm this address</h1>
<p style="margin:0 0 20px;line-height:1.5">Enter this code in ${escapeHtml(appName)} to sign in with this address.</p>
<p style="font-size:32px;letter-spacing:8px;font-weight:700;margin:0 0 20px;font-family:ui-monospace,Menlo,monospace" data-otp="${code}">${code}</p>
<p style="margin:0;font-size:13px;color:#6b7085;line-height:1.5">It expires in ${ttlMinutes} minutes and works once. If you did not ask for it, you can ignore this email.</p>`,
    ),
  };
}

/** A security notice to the address that stops being (or is replaced as) the account's email sign-in. */
export function emailChangedMail(opts: { to: string; appName: string; newEmail: string | null }): Mail {
  const { to, appName, newEmail } = opts;
  const what = newEmail
    ? `The email you sign in to ${appName} with was changed to ${newEmail}.`
    : `Signing in to ${appName} with this email was turned off.`;
  const advice =
    "If this was not you, sign in another way and secure your account, or contact the app's support.";
  return {
    to,
    subject: `Your ${appName} sign-in email was ${newEmail ? "changed" : "removed"}`,
    text: `${what}\n\n${advice}\n`,
    html: layout(
      `Your ${appName} sign-in email`,
      `<h1 style="font-size:20px;margin:0 0 12px">Security notice</h1>
<p style="margin:0 0 12px;line-height:1.5">${escapeHtml(what)}</p>
<p style="margin:0;font-size:13px;color:#6b7085;line-height:1.5">${escapeHtml(advice)}</p>`,
    ),
  };
}
