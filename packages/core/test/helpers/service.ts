import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createService, type Service } from "@latchkey/server";

export interface TestService {
  service: Service;
  baseUrl: string;
  apiKey: string;
  /** The newest mail to `to` (waits for it: mails are sent without blocking the answer). */
  lastMail(to: string, after?: number): Promise<{ subject: string; text: string }>;
  otpCode(to: string, after?: number): Promise<string>;
  magicLink(to: string, after?: number): Promise<URL>;
  close(): Promise<void>;
}

export async function startService(
  opts: { now?: () => number; devOrigins?: string[]; devMagicLinkUrls?: string[] } = {},
): Promise<TestService> {
  const dataDir = mkdtempSync(join(tmpdir(), "latchkey-core-"));
  const service = await createService({
    db: ":memory:",
    dev: true,
    masterKey: randomBytes(32),
    dataDir,
    devOrigins: opts.devOrigins ?? ["http://127.0.0.1:1"],
    devMagicLinkUrls: opts.devMagicLinkUrls ?? ["http://127.0.0.1:1/app"],
    logLevel: "warn",
    ...(opts.now ? { now: opts.now } : {}),
  });
  const baseUrl = await service.listen({ port: 0 });
  const apiKey = service.devApp?.apiKey as string;
  async function lastMail(to: string, after = 0) {
    for (let i = 0; i < 200; i++) {
      const mails = service.ctx.mailer.mailbox().filter((m) => m.to === to);
      if (mails.length > after) return mails[mails.length - 1] as { subject: string; text: string };
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no mail to ${to}`);
  }
  return {
    service,
    baseUrl,
    apiKey,
    lastMail,
    async otpCode(to, after) {
      const mail = await lastMail(to, after);
      const code = /\b(\d{6})\b/.exec(mail.subject)?.[1];
      if (!code) throw new Error(`no code in "${mail.subject}"`);
      return code;
    },
    async magicLink(to, after) {
      const mail = await lastMail(to, after);
      const link = /(https?:\/\/\S+)/.exec(mail.text)?.[1];
      if (!link) throw new Error("no link in the mail");
      return new URL(link);
    },
    async close() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function mailCount(s: TestService, to: string): number {
  return s.service.ctx.mailer.mailbox().filter((m) => m.to === to).length;
}
