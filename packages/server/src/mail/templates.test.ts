import { describe, expect, it } from "vitest";
import { MAIL_LOCALES } from "./locales";
import { grantCreatedMail, walletExportedMail, walletImportedMail } from "./templates";

// The security notices: each in the app's language, the app's name as given in the text and escaped in
// the HTML, the same heading and advice in both parts.
const APP = `Shop <&> "Co"`;
const EXPIRES = Date.UTC(2027, 0, 15, 9, 30);

describe("security notices", () => {
  it("the grant notice says until when, in UTC, in each language", () => {
    const expected = {
      en: [`You let ${APP} sign for you`, "until January 15, 2027 at 9:30 AM UTC.", "Security notice"],
      de: [
        `Du hast ${APP} erlaubt, für dich zu signieren`,
        "bis 15. Januar 2027 um 09:30 UTC",
        "Sicherheitshinweis",
      ],
      fr: [
        `Vous avez autorisé ${APP} à signer pour vous`,
        "jusqu’au 15 janvier 2027 à 09:30 UTC.",
        "Avis de sécurité",
      ],
      es: [
        `Permitiste que ${APP} firme por ti`,
        "hasta el 15 de enero de 2027 a las 9:30 UTC.",
        "Aviso de seguridad",
      ],
    } as const;
    for (const locale of MAIL_LOCALES) {
      const [subject, until, heading] = expected[locale];
      const mail = grantCreatedMail({ to: "a@b.test", appName: APP, locale, expiresAt: EXPIRES });
      expect(mail.subject, locale).toBe(subject);
      expect(mail.text, locale).toContain(until);
      expect(mail.html, locale).toContain(`<html lang="${locale}">`);
      expect(mail.html, locale).toContain(`>${heading}</h1>`);
      expect(mail.html, locale).not.toContain(APP);
      expect(mail.html, locale).toContain("Shop &lt;&amp;&gt; &quot;Co&quot;");
    }
  });

  it("export and import notices: body and advice in the text and the HTML", () => {
    for (const make of [walletExportedMail, walletImportedMail]) {
      const mail = make({ to: "a@b.test", appName: "Shop" });
      const [body, advice] = mail.text.trim().split("\n\n");
      expect(body).toContain("Shop");
      expect(advice).toMatch(/^(Anyone|If this was not you)/);
      expect(mail.html).toContain(`>${body?.replace(/'/g, "&#39;")}</p>`);
      expect(mail.html).toContain(`>${advice?.replace(/'/g, "&#39;")}</p>`);
      expect(mail.html).toContain(`<title>${mail.subject}</title>`);
    }
  });
});
