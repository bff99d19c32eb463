/**
 * Mail delivery from one service process: how many sign-in mails per second its SMTP client hands to a
 * server, and the CPU each costs the sending process (what a sign-up pays for its mail). The SMTP server
 * (smtp-server, which counts and drops what it receives) runs in a child process, so its CPU is not
 * counted. Each mail is the real sign-in code mail (template, MIME, quoted-printable) sent through the
 * Mailer, as the service sends it, with every mail queued at once as a burst of sign-ups would.
 *
 *   npm run bench:mail [-- --scale=0.2]
 */
import { fork } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Mailer } from "../packages/server/src/mail/mailer";
import { otpMail } from "../packages/server/src/mail/templates";
import { scaleArg } from "./lib/args";
import { describeMachine, finishBench, machineInfo, round, runBench, table } from "./lib/report";

const RUNS = [{ mails: 3_000 }, { mails: 10_000 }];
const WARMUP = 500;

const CATCHER = `
const { SMTPServer } = require(${JSON.stringify(createRequire(import.meta.url).resolve("smtp-server"))});
let received = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ["STARTTLS"], logger: false,
  onData(stream, _session, cb) { stream.on("data", () => {}); stream.on("end", () => { received++; cb(); }); },
});
server.on("error", () => {});
server.listen(0, "127.0.0.1", () => process.send({ port: server.server.address().port }));
process.on("message", (m) => { if (m === "count") process.send({ received }); });
`;

async function main() {
  const machine = machineInfo();
  const scale = scaleArg();
  process.stdout.write(`mail benchmark — ${describeMachine(machine)}\n`);
  const script = join(tmpdir(), `latchkey-mail-catcher-${process.pid}.cjs`);
  writeFileSync(script, CATCHER);
  const catcher = fork(script, [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const ask = <T>(message?: string) =>
    new Promise<T>((resolve) => {
      catcher.once("message", (m) => resolve(m as T));
      if (message) catcher.send(message);
    });
  const { port } = await ask<{ port: number }>();
  const mailer = new Mailer({
    smtpUrl: `smtp://127.0.0.1:${port}`,
    from: "Shop <login@shop.example>",
    devMailbox: false,
  });
  const burst = async (n: number, prefix: string) => {
    for (let i = 0; i < n; i++)
      mailer.send(
        otpMail({
          to: `${prefix}-${i}@bench.test`,
          appName: "Shop",
          code: String(100000 + (i % 900000)),
          ttlMinutes: 10,
        }),
      );
    await mailer.flush();
  };
  await burst(WARMUP, "warm");
  const runs: { mails: number; ms: number; mailsPerSec: number; cpuUsPerMail: number }[] = [];
  for (const run of RUNS) {
    const mails = Math.round(run.mails * scale);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await burst(mails, `m${mails}`);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const r = {
      mails,
      ms: round(ms, 0),
      mailsPerSec: round((mails / ms) * 1000, 0),
      cpuUsPerMail: round((used.user + used.system) / mails, 0),
    };
    process.stdout.write(
      `${mails} mails in ${r.ms} ms: ${r.mailsPerSec} mails/s, sender CPU ${r.cpuUsPerMail} µs/mail\n`,
    );
    runs.push(r);
  }
  const { received } = await ask<{ received: number }>("count");
  const sent = WARMUP + runs.reduce((a, r) => a + r.mails, 0);
  if (received !== sent) throw new Error(`The server received ${received} mails of ${sent}`);
  await mailer.close();
  catcher.kill();
  process.stdout.write(`\n${table(runs, ["mails", "ms", "mailsPerSec", "cpuUsPerMail"])}\n`);
  finishBench(
    "mail.json",
    {
      date: new Date().toISOString(),
      machine,
      client: "latchkey SmtpClient (3 connections, PIPELINING)",
      earlier:
        "nodemailer 10 pool (5 connections): ~660 mails/s, 800–1,100 µs CPU per mail (session 2026-11-26 (3))",
      runs,
    },
    undefined,
  );
}

runBench(main);
