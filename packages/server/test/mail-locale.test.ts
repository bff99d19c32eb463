import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppConfig } from "../src/config";
import {
  type Harness,
  mailSubject,
  mailText,
  post,
  SCENARIO_DATABASES,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";

// Mails go out in the app's configured language (issue 10: "Mails (codes, magic links) use the app's
// configured locale"); English stays the default, word for word.
const GERMAN_APP = {
  id: "de-app",
  name: "Laden",
  apiKeys: ["lk_de_key_0123456789abcdef"],
  allowedOrigins: ["http://de.test"],
  emailMode: "OTP",
  locale: "de",
} satisfies AppConfig;
const FRENCH_LINK_APP = {
  id: "fr-app",
  name: "Boutique",
  apiKeys: ["lk_fr_key_0123456789abcdef"],
  allowedOrigins: ["http://fr.test"],
  emailMode: "MAGIC_LINK",
  magicLinkRedirectUrls: ["http://fr.test/auth/callback"],
  locale: "fr",
} satisfies AppConfig;

describe.each(SCENARIO_DATABASES)("mails in the app's language (%s)", (kind) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(kind, { apps: [TEST_APP, GERMAN_APP, FRENCH_LINK_APP] });
  });
  afterAll(async () => {
    await h?.close();
  });

  async function signUp(app: { apiKeys: string[] }, email: string) {
    const before = h.smtp.mails.length;
    const res = await post(
      h.url,
      "/signer/v1/signup",
      { email, targetPublicKey: targetKey().publicKey },
      { authorization: `Bearer ${app.apiKeys[0]}` },
    );
    expect(res.status).toBe(200);
    return (await h.smtp.waitFor(email, before)).raw;
  }

  it("a German app's sign-in code is mailed in German", async () => {
    const raw = await signUp(GERMAN_APP, `de-${kind}@example.com`);
    const code = /data-otp="(\d{6})"/.exec(mailText(raw))?.[1];
    expect(code).toMatch(/^\d{6}$/);
    expect(mailSubject(raw)).toBe(`${code} ist dein Anmeldecode für Laden`);
    const text = mailText(raw);
    expect(text).toContain(`Dein Anmeldecode für Laden lautet ${code}`);
    expect(text).toContain("Er läuft in 10 Minuten ab und funktioniert nur einmal.");
    expect(text).toContain('<html lang="de">');
    expect(text).toContain("Geschützt durch Latchkey");
    expect(text).not.toContain("sign-in code");
  });

  it("a French app's magic link is mailed in French", async () => {
    const raw = await signUp(FRENCH_LINK_APP, `fr-${kind}@example.com`);
    expect(mailSubject(raw)).toBe("Connexion à Boutique");
    const text = mailText(raw);
    expect(text).toContain("Ouvrez ce lien pour vous connecter à Boutique :");
    expect(text).toContain(">Se connecter</a>");
    expect(text).toMatch(/bundle=/);
  });

  it("an app without a locale mails the English texts", async () => {
    const raw = await signUp(TEST_APP, `en-${kind}@example.com`);
    const code = /data-otp="(\d{6})"/.exec(mailText(raw))?.[1];
    expect(mailSubject(raw)).toBe(`${code} is your Test App sign-in code`);
    expect(mailText(raw)).toContain(
      "It expires in 10 minutes and works once. If you did not try to sign in, you can ignore this email.",
    );
  });

  it("a locale the service does not have is refused at start-up with the field named", async () => {
    const { appConfigSchema } = await import("../src/config");
    const parsed = appConfigSchema.safeParse({ ...GERMAN_APP, locale: "xx" });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain("locale");
  });
});
