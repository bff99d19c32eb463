import { Buffer } from "node:buffer";
import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { SmtpError, type SmtpOptions } from "./smtpOptions";

export interface Envelope {
  from: string;
  to: string[];
}

interface Reply {
  code: number;
  lines: string[];
}

const replyError = (what: string, reply: Reply) =>
  new SmtpError(`${what}: ${reply.code} ${reply.lines.join(" ")}`.trim(), reply.code >= 500, reply.code);

/** One SMTP session: greeting, EHLO, TLS, AUTH, then one message after another. */
export class SmtpConnection {
  #socket: Socket;
  #opts: SmtpOptions;
  #buffer = "";
  #lines: string[] = [];
  #replies: Reply[] = [];
  #waiters: { resolve(r: Reply): void; reject(e: Error): void }[] = [];
  #failure: Error | null = null;
  #idleTimer: NodeJS.Timeout | null = null;
  #extensions = new Map<string, string>();
  usable = true;

  private constructor(socket: Socket, opts: SmtpOptions) {
    this.#opts = opts;
    this.#socket = socket;
    this.#listen(socket);
  }

  static async open(opts: SmtpOptions): Promise<SmtpConnection> {
    const socket = await connectSocket(opts);
    const connection = new SmtpConnection(socket, opts);
    try {
      await connection.#handshake();
      return connection;
    } catch (e) {
      connection.#destroy();
      throw e;
    }
  }

  #listen(socket: Socket): void {
    socket.setNoDelay(true);
    socket.setTimeout(this.#opts.timeoutMs);
    socket.on("data", this.#onData);
    socket.on("timeout", () => {
      if (this.#waiters.length > 0)
        this.#fail(new SmtpError(`The SMTP server did not answer in ${this.#opts.timeoutMs} ms`, false));
    });
    socket.on("error", (e) => this.#fail(new SmtpError(`SMTP connection failed: ${e.message}`, false)));
    socket.on("close", () => this.#fail(new SmtpError("The SMTP server closed the connection", false)));
  }

  #onData = (chunk: Buffer): void => {
    this.#buffer += chunk.toString("utf8");
    let end = this.#buffer.indexOf("\n");
    while (end !== -1) {
      const line = this.#buffer.slice(0, end).replace(/\r$/, "");
      this.#buffer = this.#buffer.slice(end + 1);
      this.#line(line);
      end = this.#buffer.indexOf("\n");
    }
    if (this.#buffer.length > 64 * 1024)
      this.#fail(new SmtpError("The SMTP server sent a line too long", false));
  };

  #line(line: string): void {
    const code = Number(line.slice(0, 3));
    this.#lines.push(line.slice(4));
    // "250-…" continues a reply; "250 …" (or a bare "250") ends it.
    if (line[3] === "-") return;
    const reply = { code: Number.isInteger(code) && code >= 200 ? code : 0, lines: this.#lines };
    this.#lines = [];
    const waiter = this.#waiters.shift();
    if (waiter) waiter.resolve(reply);
    else this.#replies.push(reply);
  }

  #fail(e: Error): void {
    this.usable = false;
    this.#failure ??= e;
    for (const w of this.#waiters.splice(0)) w.reject(this.#failure);
    if (!this.#socket.destroyed) this.#socket.destroy();
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
  }

  #destroy(): void {
    this.#fail(new SmtpError("The SMTP connection was closed", false));
  }

  #reply(): Promise<Reply> {
    const ready = this.#replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #write(data: string): void {
    if (this.#failure) throw this.#failure;
    this.#socket.write(data);
  }

  async #command(line: string): Promise<Reply> {
    this.#write(`${line}\r\n`);
    return this.#reply();
  }

  async #expect(line: string, what: string, ok: (code: number) => boolean): Promise<Reply> {
    const reply = await this.#command(line);
    if (!ok(reply.code)) throw replyError(what, reply);
    return reply;
  }

  async #hello(): Promise<void> {
    const reply = await this.#command(`EHLO ${this.#opts.name}`);
    this.#extensions.clear();
    if (reply.code === 250) {
      for (const line of reply.lines.slice(1)) {
        // "AUTH PLAIN LOGIN", or the older "AUTH=PLAIN LOGIN" some servers still send.
        const [keyword = "", ...rest] = line
          .trim()
          .replace(/^AUTH=/i, "AUTH ")
          .split(/\s+/);
        const key = keyword.toUpperCase();
        const value = rest.join(" ").toUpperCase();
        this.#extensions.set(key, [this.#extensions.get(key), value].filter(Boolean).join(" "));
      }
      return;
    }
    // A server without ESMTP: HELO, and none of the extensions.
    await this.#expect(`HELO ${this.#opts.name}`, "The SMTP server refused HELO", (c) => c === 250);
  }

  async #handshake(): Promise<void> {
    const greeting = await this.#reply();
    if (greeting.code !== 220) throw replyError("The SMTP server refused the connection", greeting);
    await this.#hello();
    const encrypted = this.#opts.secure;
    if (!encrypted && !this.#opts.ignoreTLS && this.#extensions.has("STARTTLS")) {
      await this.#expect("STARTTLS", "The SMTP server refused STARTTLS", (c) => c === 220);
      await this.#upgrade();
      await this.#hello();
    } else if (!encrypted && this.#opts.requireTLS) {
      throw new SmtpError("The SMTP server does not offer STARTTLS, and requireTLS is set", true);
    }
    if (this.#opts.auth) await this.#login(this.#opts.auth);
  }

  async #upgrade(): Promise<void> {
    const plain = this.#socket;
    for (const event of ["data", "timeout", "error", "close"]) plain.removeAllListeners(event);
    plain.setTimeout(0);
    const secure = tlsConnect({ ...serverName(this.#opts.host), ...this.#opts.tls, socket: plain });
    this.#socket = secure;
    await new Promise<void>((resolve, reject) => {
      const failed = (e: Error) => reject(new SmtpError(`SMTP TLS failed: ${e.message}`, false));
      secure.on("error", failed);
      secure.setTimeout(this.#opts.timeoutMs, () => secure.destroy(new Error("no TLS handshake")));
      secure.once("secureConnect", () => {
        secure.removeListener("error", failed);
        secure.removeAllListeners("timeout");
        resolve();
      });
    });
    this.#listen(secure);
  }

  async #login(auth: { user: string; pass: string }): Promise<void> {
    const methods = (this.#extensions.get("AUTH") ?? "").split(" ");
    const refused = (reply: Reply) => {
      const e = replyError("The SMTP server refused the login", reply);
      return new SmtpError(e.message, reply.code >= 500 || reply.code === 0, reply.code);
    };
    const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
    if (methods.includes("PLAIN") || !methods.includes("LOGIN")) {
      const reply = await this.#command(`AUTH PLAIN ${b64(`\0${auth.user}\0${auth.pass}`)}`);
      if (reply.code !== 235) throw refused(reply);
      return;
    }
    for (const [line, expected] of [
      ["AUTH LOGIN", 334],
      [b64(auth.user), 334],
      [b64(auth.pass), 235],
    ] as const) {
      const reply = await this.#command(line);
      if (reply.code !== expected) throw refused(reply);
    }
  }

  async sendMail(envelope: Envelope, message: string): Promise<void> {
    const utf8 = !isAscii(envelope.from + envelope.to.join(""));
    if (utf8 && !this.#extensions.has("SMTPUTF8"))
      throw new SmtpError("The SMTP server cannot take addresses with non-ASCII characters", true);
    const commands = [
      `MAIL FROM:<${envelope.from}>${utf8 ? " SMTPUTF8" : ""}`,
      ...envelope.to.map((to) => `RCPT TO:<${to}>`),
      "DATA",
    ];
    const replies: Reply[] = [];
    if (this.#extensions.has("PIPELINING")) {
      this.#write(`${commands.join("\r\n")}\r\n`);
      for (const _ of commands) replies.push(await this.#reply());
    } else {
      for (const command of commands) {
        const reply = await this.#command(command);
        replies.push(reply);
        if (reply.code >= 400) break;
      }
    }
    const data = replies[commands.length - 1];
    const refusal = replies.find((r, i) => (i === commands.length - 1 ? r.code !== 354 : r.code !== 250));
    if (refusal || !data) {
      // A server that said 354 despite a refused recipient gets an empty message, then RSET.
      if (data?.code === 354) await this.#command(".");
      await this.#reset();
      const what =
        refusal === replies[0] ? "The SMTP server refused the sender" : "The SMTP server refused the message";
      throw refusal ? replyError(what, refusal) : new SmtpError(what, false);
    }
    this.#write(`${dotStuff(message)}${message.endsWith("\r\n") ? "" : "\r\n"}.\r\n`);
    const done = await this.#reply();
    if (done.code !== 250) throw replyError("The SMTP server refused the message", done);
  }

  async #reset(): Promise<void> {
    const reply = await this.#command("RSET").catch(() => null);
    if (reply?.code !== 250) this.#destroy();
  }

  cancelIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
    this.#socket.ref();
  }

  /** Idle, the connection does not keep the process alive; it says QUIT after `ms`. */
  idleFor(ms: number, onClose: () => void): void {
    this.cancelIdle();
    this.#socket.unref();
    this.#idleTimer = setTimeout(() => {
      onClose();
      this.quit();
    }, ms);
    this.#idleTimer.unref();
  }

  /** QUIT, politely; the socket closes whether or not the server answers. */
  quit(): void {
    this.cancelIdle();
    this.usable = false;
    if (this.#failure) return;
    this.#failure = new SmtpError("The SMTP connection was closed", false);
    this.#socket.end("QUIT\r\n");
    setTimeout(() => this.#socket.destroy(), 1_000).unref();
  }
}

function connectSocket(opts: SmtpOptions): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = opts.secure
      ? tlsConnect({ host: opts.host, port: opts.port, ...serverName(opts.host), ...opts.tls })
      : netConnect({ host: opts.host, port: opts.port });
    const fail = (e: Error) => {
      socket.destroy();
      reject(
        new SmtpError(`Could not connect to the SMTP server ${opts.host}:${opts.port}: ${e.message}`, false),
      );
    };
    socket.setTimeout(opts.timeoutMs, () => fail(new Error(`no answer in ${opts.timeoutMs} ms`)));
    socket.once("error", fail);
    socket.once(opts.secure ? "secureConnect" : "connect", () => {
      socket.removeAllListeners("timeout");
      socket.removeListener("error", fail);
      socket.setTimeout(0);
      resolve(socket);
    });
  });
}

/** A line that starts with "." gets another, so the server does not read it as the end (RFC 5321 §4.5.2). */
function dotStuff(message: string): string {
  return message.includes("\n.") || message.startsWith(".")
    ? message.replace(/^\./, "..").replace(/\n\./g, "\n..")
    : message;
}

const isAscii = (s: string) => Buffer.byteLength(s, "utf8") === s.length;

// SNI carries a host name, never an IP address (RFC 6066 §3).
const serverName = (host: string) => (isIP(host) ? {} : { servername: host });
