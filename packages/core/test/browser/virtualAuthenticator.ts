import type { BrowserContext, CDPSession, Page } from "playwright-core";

/** A passkey as Chrome's virtual authenticator reports it (CDP `WebAuthn.Credential`). */
export type VirtualCredential = {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
};

/** A platform authenticator that holds resident keys and verifies the user without asking. */
export const VIRTUAL_AUTHENTICATOR = {
  protocol: "ctap2",
  ctap2Version: "ctap2_1",
  transport: "internal",
  hasResidentKey: true,
  hasUserVerification: true,
  isUserVerified: true,
  automaticPresenceSimulation: true,
} as const;

export interface VirtualAuthenticator {
  cdp: CDPSession;
  authenticatorId: string;
  credentials(): Promise<VirtualCredential[]>;
  /** navigator.credentials.create / get calls the page made: one call is one prompt. */
  prompts(): Promise<{ create: number; get: number }>;
}

/**
 * Gives `page` a virtual authenticator (holding `holding`, if any) and counts its WebAuthn prompts. Call it
 * before the page navigates: the counter is an init script.
 */
export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: Page,
  holding: VirtualCredential[] = [],
  /** More of CDP's authenticator options, e.g. `{ hasPrf: true }` (WebAuthn's PRF, split custody). */
  options: { hasPrf?: boolean } = {},
): Promise<VirtualAuthenticator> {
  await page.addInitScript(() => {
    const counts = { create: 0, get: 0 };
    (window as unknown as { prompts: typeof counts }).prompts = counts;
    const container = navigator.credentials;
    const create = container.create.bind(container);
    const get = container.get.bind(container);
    container.create = (options) => {
      counts.create++;
      return create(options);
    };
    container.get = (options) => {
      counts.get++;
      return get(options);
    };
  });
  const cdp = await context.newCDPSession(page);
  await cdp.send("WebAuthn.enable", { enableUI: false });
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { ...VIRTUAL_AUTHENTICATOR, ...options },
  });
  for (const credential of holding) await cdp.send("WebAuthn.addCredential", { authenticatorId, credential });
  return {
    cdp,
    authenticatorId,
    credentials: async () =>
      (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials as VirtualCredential[],
    prompts: () =>
      page.evaluate(() => ({
        ...(window as unknown as { prompts: { create: number; get: number } }).prompts,
      })),
  };
}
