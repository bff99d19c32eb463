import type { Service, ServiceOptions } from "@latchkey/server";
import { devMailbox, startTestService } from "../../../../test-support/service";

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

/** The service in dev mode (dev app, dev mailbox) on SQLite in memory, for the client's tests. */
export async function startService(
  opts: {
    now?: () => number;
    devOrigins?: string[];
    devMagicLinkUrls?: string[];
    /** A Solana node: the dev app's Solana fee payer policy `dev-solana` comes with it. */
    solana?: { rpcUrl: string };
    apps?: ServiceOptions["apps"];
    /** How the dev app keeps wallets (split: every signature needs the user's share). */
    devCustody?: "service" | "split";
  } = {},
): Promise<TestService> {
  const t = await startTestService({
    dev: true,
    devOrigins: opts.devOrigins ?? ["http://127.0.0.1:1"],
    devMagicLinkUrls: opts.devMagicLinkUrls ?? ["http://127.0.0.1:1/app"],
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.solana ? { solana: opts.solana } : {}),
    ...(opts.apps ? { apps: opts.apps } : {}),
    ...(opts.devCustody ? { devCustody: opts.devCustody } : {}),
  });
  const mailbox = devMailbox(t.service);
  return {
    service: t.service,
    baseUrl: t.url,
    apiKey: t.devApiKey as string,
    lastMail: mailbox.mail,
    otpCode: mailbox.otpCode,
    magicLink: async (to, after) => new URL(await mailbox.magicLink(to, after)),
    close: t.close,
  };
}

export function mailCount(s: TestService, to: string): number {
  return devMailbox(s.service).count(to);
}
