import {
  ADMIN_CONSOLE_SIGN_IN,
  type AdminConsoleResponse,
  adminConsoleRoutes,
  passkeyStampChallenge,
  WEBAUTHN_STAMP_HEADER_NAME,
} from "@latchkey/protocol";
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { postJson } from "./client";
import { type AdminSession, createSessionKey } from "./sessionKey";

const TIMEOUT_MS = 120_000;

const toBase64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");

/** What an enrolment link is for: the admin and app, the relying party and the challenge. */
export function readEnrolment(token: string): Promise<AdminConsoleResponse<"enrolment">> {
  return postJson(adminConsoleRoutes.enrolment, JSON.stringify({ token }));
}

/** Makes a passkey for the link's admin (a discoverable credential on this site) and registers it. */
export async function enrolPasskey(
  token: string,
  link: AdminConsoleResponse<"enrolment">,
): Promise<AdminConsoleResponse<"enrol">> {
  const created = await startRegistration({
    optionsJSON: {
      rp: { id: link.rpId, name: "Latchkey console" },
      user: {
        id: toBase64url(link.adminId),
        name: `${link.adminName} · ${link.appId}`,
        displayName: `${link.adminName} (${link.appName})`,
      },
      challenge: link.challenge,
      pubKeyCredParams: [
        { type: "public-key", alg: -7 },
        { type: "public-key", alg: -257 },
      ],
      authenticatorSelection: { residentKey: "required", userVerification: "required" },
      attestation: "none",
      timeout: TIMEOUT_MS,
    },
  });
  return postJson(
    adminConsoleRoutes.enrol,
    JSON.stringify({
      token,
      attestation: {
        credentialId: created.id,
        clientDataJson: created.response.clientDataJSON,
        attestationObject: created.response.attestationObject,
        transports: created.response.transports ?? [],
      },
      passkeyName: "Console passkey",
    }),
  );
}

/**
 * Signs in: a new session key is made here, and an admin's passkey stamps the body that registers it
 * (the browser lets the admin pick the passkey). The answer names the admin and their app.
 */
export async function signInWithPasskey(): Promise<AdminSession> {
  const key = await createSessionKey();
  const body = JSON.stringify({
    type: ADMIN_CONSOLE_SIGN_IN,
    timestampMs: String(Date.now()),
    publicKey: key.publicKey,
  });
  const assertion = await startAuthentication({
    optionsJSON: {
      challenge: passkeyStampChallenge(body),
      userVerification: "required",
      timeout: TIMEOUT_MS,
    },
  });
  const stamp = JSON.stringify({
    credentialId: assertion.id,
    authenticatorData: assertion.response.authenticatorData,
    clientDataJson: assertion.response.clientDataJSON,
    signature: assertion.response.signature,
    ...(assertion.response.userHandle ? { userHandle: assertion.response.userHandle } : {}),
  });
  const answer = await postJson<AdminConsoleResponse<"sign_in">>(adminConsoleRoutes.sign_in, body, {
    [WEBAUTHN_STAMP_HEADER_NAME]: stamp,
  });
  return { ...key, sessionId: answer.sessionId, expiresAt: answer.expiresAt, admin: answer.admin };
}
