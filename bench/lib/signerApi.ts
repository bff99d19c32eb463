import {
  generateP256PrivateKey,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  toHex,
} from "../../packages/protocol/src/index";
import { type ServiceHandle, sleep } from "./service";
export async function postJson<T = unknown>(svc: ServiceHandle, path: string, body: unknown): Promise<T> {
  const r = await fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${svc.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`POST ${path} → ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

interface MailboxEntry {
  to: string;
  subject: string;
  sentAt: string;
}

/** The newest OTP code mailed to `email` (the 6-digit number in the subject). */
export async function readOtpCode(svc: ServiceHandle, email: string, timeoutMs = 5_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails: MailboxEntry[] = svc.caught
      ? svc.caught.map((m) => ({ ...m, sentAt: "" }))
      : ((await (await fetch(`${svc.baseUrl}/dev/mailbox.json`)).json()) as MailboxEntry[]);
    for (let i = mails.length - 1; i >= 0; i--) {
      const m = mails[i];
      if (!m || m.to !== email) continue;
      const code = /\b(\d{6})\b/.exec(m.subject)?.[1];
      if (code) return code;
    }
    if (Date.now() > deadline) throw new Error(`No OTP mail for ${email} in the dev mailbox`);
    await sleep(50);
  }
}

export interface Session {
  email: string;
  orgId: string;
  userId: string;
  address: string;
  solanaAddress: string;
  /** The session's P-256 private key (32 bytes), opened from the credential bundle. */
  sessionKey: Uint8Array;
}

/** Signs up `email`, reads the code from the dev mailbox, verifies it and opens the credential bundle. */
export async function createSession(svc: ServiceHandle, email: string): Promise<Session> {
  const targetPrivateKey = generateP256PrivateKey();
  const targetPublicKey = toHex(p256PublicKeyFromPrivate(targetPrivateKey, false));
  const signup = await postJson<{
    orgId: string;
    userId: string;
    address: string;
    solanaAddress: string;
    otpId: string;
  }>(svc, "/signer/v1/signup", { email, targetPublicKey });
  const otpCode = await readOtpCode(svc, email);
  const otp = await postJson<{ status: string; credentialBundle?: string }>(svc, "/signer/v1/otp", {
    orgId: signup.orgId,
    otpId: signup.otpId,
    otpCode,
    targetPublicKey,
  });
  if (otp.status !== "SUCCESS" || !otp.credentialBundle)
    throw new Error(`OTP did not succeed: ${JSON.stringify(otp)}`);
  const sessionKey = await openCredentialBundle({
    bundle: otp.credentialBundle,
    targetPrivateKey,
    targetPublicKey,
  });
  return {
    email,
    orgId: signup.orgId,
    userId: signup.userId,
    address: signup.address,
    solanaAddress: signup.solanaAddress,
    sessionKey,
  };
}
