import type { StoredMail } from "../../mail/mailer";

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/** The dev mailbox: every mail the service would have sent, newest first, with codes and links clickable. */
export function mailboxPage(mails: StoredMail[]): string {
  const items = [...mails]
    .reverse()
    .map((m) => {
      const code = /\b(\d{6})\b/.exec(m.subject)?.[1];
      const link = /(https?:\/\/\S+)/.exec(m.text)?.[1];
      return `<article class="mail">
  <header><strong>${esc(m.subject)}</strong><span>to ${esc(m.to)} · <time datetime="${esc(m.sentAt)}">${esc(new Date(m.sentAt).toLocaleTimeString())}</time></span></header>
  ${code ? `<p class="code" data-code="${code}">${code}</p>` : ""}
  ${link ? `<p><a class="link" href="${esc(link)}">Open sign-in link</a></p>` : ""}
  <details><summary>Text version</summary><pre>${esc(m.text)}</pre></details>
</article>`;
    })
    .join("\n");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Latchkey dev mailbox</title><meta http-equiv="refresh" content="5">
<style>
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;background:#f4f4f7;color:#1f2330;margin:0;padding:32px}
main{max-width:640px;margin:0 auto}h1{font-size:22px}p.lead{color:#6b7085}
.mail{background:#fff;border:1px solid #e6e6ec;border-radius:14px;padding:16px 20px;margin:12px 0}
.mail header{display:flex;justify-content:space-between;gap:12px;flex-wrap:wrap}.mail header span{color:#6b7085;font-size:13px}
.code{font:700 28px ui-monospace,Menlo,monospace;letter-spacing:6px;margin:12px 0}
.link{display:inline-block;background:#363ff9;color:#fff;padding:8px 14px;border-radius:8px;text-decoration:none}
pre{white-space:pre-wrap;font-size:13px;color:#444}
</style></head><body><main>
<h1>Dev mailbox</h1><p class="lead">Mail the service would have sent. This page refreshes every 5 seconds. Only in <code>--dev</code>.</p>
${items || "<p>No mail yet. Sign in with any email address and the code or link shows up here.</p>"}
</main></body></html>`;
}
