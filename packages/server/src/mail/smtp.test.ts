import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from "smtp-server";
import { afterEach, describe, expect, it } from "vitest";
import { Mailer } from "./mailer";
import { buildMessage } from "./mime";
import { SmtpClient } from "./smtp";
import { parseSmtpUrl, SmtpError } from "./smtpOptions";

interface Caught {
  from: string;
  to: string[];
  raw: string;
  secure: boolean;
  user?: string;
}

const execFileAsync = promisify(execFile);
const servers: SMTPServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((r) => s.close(() => r()))));
});

/** A real SMTP server (smtp-server) on a free port that keeps what it receives. */
async function catcher(options: SMTPServerOptions = {}) {
  const mails: Caught[] = [];
  const sessions: SMTPServerSession[] = [];
  let refuseRecipient: string | null = null;
  let failNext: number | null = null;
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    ...options,
    onConnect(session, cb) {
      sessions.push(session);
      cb();
    },
    onRcptTo(address, _session, cb) {
      if (address.address === refuseRecipient) {
        const e = Object.assign(new Error("No such user here"), { responseCode: 550 });
        return cb(e);
      }
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        if (failNext) {
          const e = Object.assign(new Error("Try again later"), { responseCode: failNext });
          failNext = null;
          return cb(e);
        }
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString("utf8"),
          secure: session.secure,
          ...(session.user ? { user: String(session.user) } : {}),
        });
        cb();
      });
    },
  });
  server.on("error", () => {});
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    sessions,
    refuse(address: string) {
      refuseRecipient = address;
    },
    /** The next message gets this reply code instead of 250. */
    failNext(code: number) {
      failNext = code;
    },
  };
}

const message = (n: number, extra = "") =>
  buildMessage({
    from: "App <login@app.test>",
    to: `user${n}@example.test`,
    subject: `Mail ${n}`,
    text: `Hello ${n}\n.a line that starts with a dot${extra}\n`,
    html: `<p>Hello ${n}</p>`,
  });

describe("parseSmtpUrl", () => {
  it("reads host, port, TLS mode, login and options", () => {
    const o = parseSmtpUrl(
      "smtp://lo%40gin:s%3Acret@mail.example:2525?requireTLS=true&tls.rejectUnauthorized=false&name=box&maxConnections=5&pool=true",
    );
    expect(o).toMatchObject({
      host: "mail.example",
      port: 2525,
      secure: false,
      requireTLS: true,
      auth: { user: "lo@gin", pass: "s:cret" },
      name: "box",
      maxConnections: 5,
      tls: { rejectUnauthorized: false },
    });
    expect(parseSmtpUrl("smtps://mail.example")).toMatchObject({ secure: true, port: 465 });
    expect(parseSmtpUrl("smtp://mail.example")).toMatchObject({ secure: false, port: 587 });
    expect(parseSmtpUrl("smtp://mail.example").auth).toBeUndefined();
  });

  it("refuses what it cannot honour, with a message that says what", () => {
    expect(() => parseSmtpUrl("http://mail.example")).toThrow(/smtp:\/\/ or smtps:\/\//);
    expect(() => parseSmtpUrl("not a url")).toThrow(/not a URL/);
    expect(() => parseSmtpUrl("smtp://mail.example?secrue=true")).toThrow("Unknown SMTP URL option: secrue");
    expect(() => parseSmtpUrl("smtp://mail.example?secure=yes")).toThrow(/true or false/);
    expect(() => parseSmtpUrl("smtp://mail.example?maxConnections=0")).toThrow(/1 to 100/);
  });
});

describe("SmtpClient", () => {
  it("sends many messages over few connections, pipelined, with dot-stuffing", async () => {
    const server = await catcher();
    const client = new SmtpClient({
      ...parseSmtpUrl(`smtp://127.0.0.1:${server.port}?ignoreTLS=true`),
      maxConnections: 2,
    });
    await Promise.all(
      Array.from({ length: 40 }, (_, n) =>
        client.send({ from: "login@app.test", to: [`user${n}@example.test`] }, message(n)),
      ),
    );
    client.close();
    expect(server.mails).toHaveLength(40);
    expect(server.sessions.length).toBeLessThanOrEqual(2);
    const third = server.mails.find((m) => m.to[0] === "user3@example.test");
    expect(third?.from).toBe("login@app.test");
    // The server undoes the stuffing: the line that starts with a dot arrives as it was sent.
    expect(third?.raw).toContain("\r\n=2Ea line that starts with a dot");
    expect(third?.raw).toContain("Subject: Mail 3\r\n");
    expect(third?.raw.endsWith("\r\n")).toBe(true);
  });

  it("stuffs lines that start with a dot, so the message arrives as written", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    const client = new SmtpClient(parseSmtpUrl(`smtp://127.0.0.1:${server.port}`));
    const raw = "Subject: dots\r\n\r\n.\r\n.hidden\r\n..two\r\nlast";
    await client.send({ from: "login@app.test", to: ["a@example.test"] }, raw);
    client.close();
    expect(server.mails[0]?.raw).toBe(`${raw}\r\n`);
  });

  it("upgrades with STARTTLS and logs in with PLAIN or LOGIN", async () => {
    for (const method of ["PLAIN", "LOGIN"]) {
      const server = await catcher({
        authMethods: [method],
        authOptional: false,
        onAuth(auth, _session, cb) {
          if (auth.username === "app" && auth.password === "pa:ss wörd")
            return cb(null, { user: auth.username });
          cb(new Error("Invalid username or password"));
        },
      });
      const client = new SmtpClient(
        parseSmtpUrl(
          `smtp://app:pa%3Ass%20w%C3%B6rd@127.0.0.1:${server.port}?requireTLS=true&tls.rejectUnauthorized=false`,
        ),
      );
      await client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1));
      client.close();
      expect(server.mails).toEqual([
        expect.objectContaining({ secure: true, user: "app", to: ["a@example.test"] }),
      ]);
    }
  });

  it("speaks TLS from the first byte with smtps://", async () => {
    const server = await catcher({ secure: true });
    const client = new SmtpClient(
      parseSmtpUrl(`smtps://127.0.0.1:${server.port}?tls.rejectUnauthorized=false`),
    );
    await client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1));
    client.close();
    expect(server.mails[0]?.secure).toBe(true);
  });

  it("checks the server's certificate by default", async () => {
    const server = await catcher({ secure: true });
    const client = new SmtpClient(parseSmtpUrl(`smtps://127.0.0.1:${server.port}`));
    await expect(client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1))).rejects.toThrow(
      /self.signed|certificate/,
    );
    client.close();
    expect(server.mails).toHaveLength(0);
  });

  it("refuses to send in the clear when requireTLS is set and STARTTLS is not offered", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    const client = new SmtpClient(parseSmtpUrl(`smtp://127.0.0.1:${server.port}?requireTLS=true`));
    const sent = client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1));
    await expect(sent).rejects.toMatchObject({ permanent: true, message: expect.stringMatching(/STARTTLS/) });
    client.close();
    expect(server.mails).toHaveLength(0);
  });

  it("a wrong password is a permanent failure", async () => {
    const server = await catcher({
      authOptional: false,
      disabledCommands: ["STARTTLS"],
      allowInsecureAuth: true,
      onAuth(_auth, _session, cb) {
        cb(new Error("Invalid username or password"));
      },
    });
    const client = new SmtpClient(parseSmtpUrl(`smtp://app:wrong@127.0.0.1:${server.port}`));
    const sent = client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1));
    await expect(sent).rejects.toMatchObject({ permanent: true, replyCode: 535 });
    client.close();
  });

  it("a refused recipient fails that mail only; the connection carries the next", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    server.refuse("nobody@example.test");
    const client = new SmtpClient({ ...parseSmtpUrl(`smtp://127.0.0.1:${server.port}`), maxConnections: 1 });
    const bad = client.send({ from: "login@app.test", to: ["nobody@example.test"] }, message(1));
    const good = client.send({ from: "login@app.test", to: ["a@example.test"] }, message(2));
    await expect(bad).rejects.toMatchObject({ permanent: true, replyCode: 550 });
    await good;
    client.close();
    expect(server.mails.map((m) => m.to)).toEqual([["a@example.test"]]);
    expect(server.sessions).toHaveLength(1);
  });

  it("a server that is down fails the send (not permanent), and a bad address is refused before any connection", async () => {
    const server = await catcher();
    const port = server.port;
    await new Promise<void>((r) => (servers.pop() as SMTPServer).close(() => r()));
    const client = new SmtpClient(parseSmtpUrl(`smtp://127.0.0.1:${port}`));
    await expect(
      client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1)),
    ).rejects.toMatchObject({
      permanent: false,
      message: expect.stringMatching(/Could not connect/),
    });
    await expect(
      client.send({ from: "login@app.test", to: ["a@b>\r\nRCPT TO:<x@y"] }, message(1)),
    ).rejects.toBeInstanceOf(SmtpError);
    client.close();
  });

  it("reconnects when the server closes an idle connection", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"], socketTimeout: 200 });
    const client = new SmtpClient(parseSmtpUrl(`smtp://127.0.0.1:${server.port}`));
    await client.send({ from: "login@app.test", to: ["a@example.test"] }, message(1));
    await new Promise((r) => setTimeout(r, 600));
    await client.send({ from: "login@app.test", to: ["b@example.test"] }, message(2));
    client.close();
    expect(server.mails.map((m) => m.to[0])).toEqual(["a@example.test", "b@example.test"]);
    expect(server.sessions).toHaveLength(2);
  });

  it("an idle connection does not keep the process alive", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    const here = (file: string) => JSON.stringify(new URL(file, import.meta.url).pathname);
    const script = `import { SmtpClient } from ${here("./smtp.ts")};
import { parseSmtpUrl } from ${here("./smtpOptions.ts")};
const client = new SmtpClient(parseSmtpUrl("smtp://127.0.0.1:${server.port}"));
await client.send({ from: "a@app.test", to: ["b@example.test"] }, "Subject: x\\r\\n\\r\\nbody\\r\\n");
console.log("sent");`;
    const started = Date.now();
    // Not spawnSync: the SMTP server runs in this process and must answer meanwhile.
    const child = await execFileAsync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("sent");
    // The idle timeout is 30 s: the process ended well before it.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(server.mails).toHaveLength(1);
  });
});

describe("Mailer over SMTP", () => {
  it("delivers in the background and retries a mail the server deferred", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    server.failNext(451);
    const mailer = new Mailer({
      smtpUrl: `smtp://127.0.0.1:${server.port}`,
      from: "Shop <login@shop.test>",
      devMailbox: false,
    });
    mailer.send({ to: "a@example.test", subject: "Hi", text: "Hello", html: "<p>Hello</p>" });
    await mailer.flush();
    expect(server.mails).toEqual([
      expect.objectContaining({ from: "login@shop.test", to: ["a@example.test"] }),
    ]);
    expect(server.mails[0]?.raw).toMatch(/^From: "Shop" <login@shop\.test>\r\n/);
    await mailer.close();
  });

  it("does not retry a mail the server refused for good", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    server.failNext(554);
    const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${server.port}`, devMailbox: false });
    const errors: object[] = [];
    mailer.setLogger({ warn: (o) => errors.push({ warn: o }), error: (o) => errors.push({ error: o }) });
    mailer.send({ to: "a@example.test", subject: "Hi", text: "Hello", html: "<p>Hello</p>" });
    await mailer.flush();
    expect(server.mails).toHaveLength(0);
    expect(errors).toEqual([
      { error: expect.objectContaining({ attempt: 1, err: expect.stringMatching(/554/) }) },
    ]);
    await mailer.close();
  });

  it("sends a mail once it is built; one that could not be built is logged, not thrown", async () => {
    const server = await catcher({ disabledCommands: ["STARTTLS"] });
    const mailer = new Mailer({ smtpUrl: `smtp://127.0.0.1:${server.port}`, devMailbox: true });
    const errors: object[] = [];
    mailer.setLogger({ warn: (o) => errors.push({ warn: o }), error: (o) => errors.push({ error: o }) });
    const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
    mailer.sendOnceBuilt(
      later(20).then(() => ({ to: "a@example.test", subject: "Hi", text: "Hello", html: "<p>Hello</p>" })),
    );
    mailer.sendOnceBuilt(Promise.resolve(null));
    mailer.sendOnceBuilt(later(10).then(() => Promise.reject(new Error("no such app"))));
    await mailer.flush();
    expect(server.mails.map((m) => m.to)).toEqual([["a@example.test"]]);
    expect(mailer.mailbox().map((m) => m.subject)).toEqual(["Hi"]);
    expect(errors).toEqual([{ error: { err: "no such app" } }]);
    await mailer.close();
  });

  it("refuses a URL it cannot honour when the service starts", () => {
    expect(() => new Mailer({ smtpUrl: "smtp://mail.example?tls=1", devMailbox: false })).toThrow(
      "Unknown SMTP URL option: tls",
    );
  });
});
