import { describe, expect, it } from "vitest";
import { mailSubject, mailText } from "../../test/helpers";
import { addressOf, buildMessage, quotedPrintable } from "./mime";
import { otpMail } from "./templates";

/** Decodes quoted-printable (RFC 2045 §6.7), strictly: the inverse of what a mail reader does. */
function decodeQp(encoded: string): string {
  const bytes: number[] = [];
  const body = encoded.replace(/=\r\n/g, "");
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "=") {
      bytes.push(Number.parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(body.charCodeAt(i));
  }
  return Buffer.from(bytes).toString("utf8");
}

describe("quotedPrintable", () => {
  it("round-trips text in any script, within 76 characters a line and 7 bits", () => {
    const samples = [
      "plain ascii",
      `a=b and ${"x".repeat(200)}`,
      "Dein Anmeldecode für Laden: äöü ß — 🔑 ключ 鍵",
      "trailing space \nand tab\t\n.dot first\n",
      `${"y".repeat(74)}.next`,
      `${"y".repeat(75)}.next line ${"z".repeat(73)}.again `,
      "=".repeat(100),
      `${"w".repeat(73)}ü${"w".repeat(80)}`,
      "é".repeat(100),
    ];
    for (const text of samples) {
      const qp = quotedPrintable(text);
      for (const line of qp.split("\r\n")) {
        expect(line.length).toBeLessThanOrEqual(76);
        expect(line).toMatch(/^[\x20-\x7e]*$/);
        expect(line.startsWith(".")).toBe(false);
        expect(line).not.toMatch(/[ \t]$/);
      }
      expect(decodeQp(qp)).toBe(text.replace(/\n/g, "\r\n"));
    }
  });
});

describe("buildMessage", () => {
  const date = new Date("2026-11-26T20:00:00Z");

  it("writes both parts and the headers a mail reader needs", () => {
    const mail = otpMail({
      to: "ana@example.test",
      appName: "Laden",
      code: "123456",
      ttlMinutes: 10,
      locale: "de",
    });
    const raw = buildMessage({ from: "Läden & Co <login@laden.test>", ...mail }, { date, id: "abc" });
    const [head = "", ...rest] = raw.split("\r\n\r\n");
    expect(head.split("\r\n")).toEqual([
      "From: =?UTF-8?B?TMOkZGVuICYgQ28=?= <login@laden.test>",
      "To: ana@example.test",
      expect.stringMatching(/^Subject: =\?UTF-8\?B\?/),
      "Date: Thu, 26 Nov 2026 20:00:00 +0000",
      "Message-ID: <abc@laden.test>",
      "MIME-Version: 1.0",
      'Content-Type: multipart/alternative; boundary="lk-abc"',
    ]);
    expect(mailSubject(raw)).toBe(mail.subject);
    expect(rest.join("\r\n\r\n")).toContain("Content-Type: text/plain; charset=utf-8");
    expect(mailText(raw)).toContain(mail.text.replace(/\n/g, "\r\n").trimEnd());
    expect(mailText(raw)).toContain('data-otp="123456"');
    expect(raw.endsWith("--lk-abc--\r\n")).toBe(true);
    expect(raw).toMatch(/^[\x20-\x7e\r\n]*$/);
  });

  it("lets no subject or name add a header", () => {
    const raw = buildMessage(
      {
        from: "Evil\r\nBcc: all@example.test <login@app.test>",
        to: "a@example.test",
        subject: "Hi\r\nBcc: all@example.test",
        text: "x",
        html: "x",
      },
      { date, id: "x" },
    );
    expect(raw).not.toMatch(/^Bcc:/m);
    expect(raw).toContain("Subject: Hi Bcc: all@example.test\r\n");
  });

  it("quotes an ASCII name and reads the address out of a mailbox", () => {
    expect(
      buildMessage(
        { from: 'Shop "One" <a@b.test>', to: "c@d.test", subject: "s", text: "", html: "" },
        { date, id: "i" },
      ),
    ).toContain('From: "Shop \\"One\\"" <a@b.test>\r\n');
    expect(addressOf("Shop <a@b.test>")).toBe("a@b.test");
    expect(addressOf("a@b.test")).toBe("a@b.test");
  });
});
