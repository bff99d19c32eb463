import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createService, type Service, type ServiceOptions } from "@latchkey/server/dev";

/**
 * The one way tests start the real service in-process: a fresh master key, its own data folder, a free
 * loopback port, quiet logs; `close()` stops it and deletes what it made. Every suite's helper (service,
 * core, e2e) is a thin layer over this.
 */
export interface TestService {
  service: Service;
  /** e.g. http://127.0.0.1:43121 */
  url: string;
  /** The dev app's API key (with `dev: true`). */
  devApiKey: string | undefined;
  dataDir: string;
  close(): Promise<void>;
}

export async function startTestService(
  options: Partial<ServiceOptions> & { db?: string } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "latchkey-test-"));
  const service = await createService({
    db: ":memory:",
    masterKey: randomBytes(32),
    logLevel: "warn",
    ...options,
    dataDir,
  });
  let url: string;
  try {
    url = await service.listen({ port: 0 });
  } catch (e) {
    await service.close();
    throw e;
  }
  return {
    service,
    url,
    devApiKey: service.devApp?.apiKey,
    dataDir,
    async close() {
      await service.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface DevMail {
  subject: string;
  text: string;
}

/**
 * Reads the dev mailbox (`dev: true`): what the service would have mailed. Mail is sent without blocking
 * the answer, so reading waits for it.
 */
export function devMailbox(service: Service) {
  const mails = (to: string) => service.ctx.mailer.mailbox().filter((m) => m.to === to);
  async function mail(to: string, after = 0): Promise<DevMail> {
    for (let i = 0; i < 500; i++) {
      const list = mails(to);
      if (list.length > after) return list[list.length - 1] as DevMail;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no mail to ${to}`);
  }
  return {
    mail,
    count: (to: string) => mails(to).length,
    /** The 6-digit code of the newest code mail to `to` (after the first `after`). */
    async otpCode(to: string, after?: number): Promise<string> {
      const m = await mail(to, after);
      const code = /\b(\d{6})\b/.exec(m.subject)?.[1];
      if (!code) throw new Error(`no code in "${m.subject}"`);
      return code;
    },
    /** The link of the newest magic-link mail to `to`. */
    async magicLink(to: string, after?: number): Promise<string> {
      const m = await mail(to, after);
      const link = /(https?:\/\/\S+)/.exec(m.text)?.[1];
      if (!link) throw new Error("no link in the mail");
      return link;
    },
  };
}
