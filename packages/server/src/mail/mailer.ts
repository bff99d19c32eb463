import { addressOf, buildMessage } from "./mime";
import { SmtpClient } from "./smtp";
import { parseSmtpUrl, SmtpError } from "./smtpOptions";
import type { Mail } from "./templates";

export interface StoredMail extends Mail {
  sentAt: string;
}

interface Logger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Sends mail in the background so a sign-in answer never waits on SMTP; failed sends are retried
 * with backoff. In dev mode every mail is also kept in memory for the dev mailbox.
 */
export class Mailer {
  readonly #transport: SmtpClient | null;
  readonly #from: string;
  readonly #mailbox: StoredMail[] | null;
  readonly #pending = new Set<Promise<void>>();
  #log: Logger | null = null;

  constructor(opts: { smtpUrl?: string; from?: string; devMailbox: boolean }) {
    this.#transport = opts.smtpUrl ? new SmtpClient(parseSmtpUrl(opts.smtpUrl)) : null;
    this.#from = opts.from ?? "Latchkey <no-reply@localhost>";
    this.#mailbox = opts.devMailbox ? [] : null;
  }

  setLogger(log: Logger): void {
    this.#log = log;
  }

  get canDeliver(): boolean {
    return this.#transport !== null || this.#mailbox !== null;
  }

  send(mail: Mail): void {
    if (this.#mailbox) {
      this.#mailbox.push({ ...mail, sentAt: new Date().toISOString() });
      if (this.#mailbox.length > 500) this.#mailbox.shift();
    }
    if (!this.#transport) return;
    const p = this.#deliver(mail).finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  /**
   * Sends a mail that is still being built (e.g. once the user's app, its name and language, is read);
   * `null` sends nothing. A failure to build it is logged, never thrown: a notice must not fail the change
   * it tells of. `flush` waits for it.
   *
   * @example
   * ctx.mailer.sendOnceBuilt(ctx.apps.byId(appId).then((app) => app && walletExportedMail({ to, appName: app.name })));
   */
  sendOnceBuilt(mail: Promise<Mail | null>): void {
    const p = mail
      .then((built) => {
        if (built) this.send(built);
      })
      .catch((e) => this.#log?.error({ err: (e as Error).message }, "mail not sent: it could not be built"))
      .finally(() => this.#pending.delete(p));
    this.#pending.add(p);
  }

  async #deliver(mail: Mail): Promise<void> {
    const transport = this.#transport;
    if (!transport) return;
    // Built once: a retry sends the same message (same Message-ID, so a server that did take the first
    // try can tell the second is the same mail).
    const message = buildMessage({ from: this.#from, ...mail });
    const envelope = { from: addressOf(this.#from), to: [mail.to] };
    for (let attempt = 1; ; attempt++) {
      try {
        await transport.send(envelope, message);
        return;
      } catch (e) {
        // Never log the mail itself: it carries a code or a sign-in link.
        if (attempt >= 4 || (e instanceof SmtpError && e.permanent)) {
          this.#log?.error({ err: (e as Error).message, attempt }, "mail delivery failed");
          return;
        }
        this.#log?.warn({ err: (e as Error).message, attempt }, "mail delivery failed, retrying");
        await new Promise((r) => setTimeout(r, 250 * 4 ** attempt));
      }
    }
  }

  mailbox(): StoredMail[] {
    return this.#mailbox ? [...this.#mailbox] : [];
  }

  /** Waits for mail still being delivered (shutdown and tests). */
  async flush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  async close(): Promise<void> {
    await this.flush();
    this.#transport?.close();
  }
}
