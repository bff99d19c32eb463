/**
 * A small SMTP client: a few long-lived connections that each send one message after another, with
 * PIPELINING (MAIL, RCPT and DATA in one write), STARTTLS or implicit TLS, and AUTH PLAIN or LOGIN.
 *
 * Why not nodemailer: its pool spent ~1 ms of CPU per message in the sending process (streams, a
 * transform per message, logging hooks), as much as the rest of a sign-up's request handling. This
 * client writes each message with two socket writes and reads two replies: ~0.1 ms.
 */
import { type Envelope, SmtpConnection } from "./smtpConnection";
import { SmtpError, type SmtpOptions } from "./smtpOptions";

interface Job {
  envelope: Envelope;
  /** The whole message, CRLF line ends, 7-bit (see mime.ts). */
  message: string;
  resolve(): void;
  reject(e: unknown): void;
}

/** Sends messages over up to `maxConnections` connections, opening them when there is work. */
export class SmtpClient {
  readonly #opts: SmtpOptions;
  readonly #queue: Job[] = [];
  readonly #idle: SmtpConnection[] = [];
  #open = 0;
  #opening = 0;
  #closed = false;

  constructor(opts: SmtpOptions) {
    this.#opts = opts;
  }

  send(envelope: Envelope, message: string): Promise<void> {
    if (this.#closed) return Promise.reject(new SmtpError("The SMTP client is closed", false));
    for (const address of [envelope.from, ...envelope.to])
      if (!address || /[\s<>]/.test(address))
        return Promise.reject(new SmtpError(`Not a mail address: ${JSON.stringify(address)}`, true));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ envelope, message, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch(): void {
    while (this.#queue.length > 0 && this.#idle.length > 0) {
      const idle = this.#idle.pop() as SmtpConnection;
      if (idle.usable) void this.#work(idle);
      else this.#open--;
    }
    while (this.#queue.length > this.#opening && this.#open < this.#opts.maxConnections) {
      this.#open++;
      this.#opening++;
      SmtpConnection.open(this.#opts).then(
        (connection) => {
          this.#opening--;
          void this.#work(connection);
        },
        (e: unknown) => {
          this.#opening--;
          this.#open--;
          // The connection failed before it could take a message: the oldest waiting one fails with
          // it (the caller retries), so a server that is down does not hold the queue forever.
          this.#queue.shift()?.reject(e);
          this.#dispatch();
        },
      );
    }
  }

  async #work(connection: SmtpConnection): Promise<void> {
    connection.cancelIdle();
    for (let job = this.#queue.shift(); job; job = this.#queue.shift()) {
      try {
        await connection.sendMail(job.envelope, job.message);
        job.resolve();
      } catch (e) {
        job.reject(e);
        if (!connection.usable) break;
      }
    }
    if (connection.usable && !this.#closed) {
      this.#idle.push(connection);
      connection.idleFor(this.#opts.idleMs, () => {
        const at = this.#idle.indexOf(connection);
        if (at === -1) return;
        this.#idle.splice(at, 1);
        this.#open--;
      });
    } else {
      this.#open--;
      connection.quit();
      this.#dispatch();
    }
  }

  /** Stops taking messages and says QUIT on idle connections (busy ones finish their message first). */
  close(): void {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new SmtpError("The SMTP client is closed", false));
    for (const connection of this.#idle.splice(0)) connection.quit();
  }
}
