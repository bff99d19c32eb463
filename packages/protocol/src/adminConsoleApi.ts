import { z } from "zod";
import { ADMIN_CONSOLE_SIGN_IN, ADMIN_SESSION_MAX_SECONDS, adminConsoleRoutes } from "./adminRoutes";
import { passkeyAttestationSchema } from "./keyManagement/activities";

/**
 * How an admin gets into the console (`/admin`): `latchkey admin create` prints a one-time enrolment link
 * (`/admin/enrol#<token>`); the console reads it (`enrolment`), makes a passkey and registers it
 * (`enrol`); then a passkey-stamped `sign_in` registers a P-256 key made in the browser as a short-lived
 * admin session, which stamps `/admin/v1/*` as an admin key does (`adminApi`).
 */

/** The link's secret: base64url of 32 random bytes. The service keeps only its hash. */
const token = z.string().regex(/^[A-Za-z0-9_-]{43}$/, "token is the link's 43-character secret");

const consoleAdmin = z.object({
  adminId: z.string(),
  name: z.string(),
  appId: z.string(),
  appName: z.string(),
  organizationId: z.string(),
});

function consoleEndpoint<N extends keyof typeof adminConsoleRoutes, Q extends z.ZodType, R extends z.ZodType>(
  name: N,
  summary: string,
  request: Q,
  response: R,
) {
  return { name, path: adminConsoleRoutes[name], summary, request, response } as const;
}

/** The console's own sign-in endpoints (not stamped by an admin key). */
export const adminConsoleApi = {
  enrolment: consoleEndpoint(
    "enrolment",
    "What an enrolment link is for (the admin, the app, the relying party) and the challenge its passkey " +
      "signs. Reading it uses nothing up.",
    z.object({ token }).strict(),
    z.object({
      adminId: z.string(),
      adminName: z.string(),
      appId: z.string(),
      appName: z.string(),
      rpId: z.string(),
      challenge: z.string(),
      expiresAt: z.number(),
    }),
  ),
  enrol: consoleEndpoint(
    "enrol",
    "Registers the passkey made for an enrolment link (an attestation over the link's challenge) and uses " +
      "the link up.",
    z
      .object({
        token,
        attestation: passkeyAttestationSchema,
        passkeyName: z.string().min(1).max(100).optional(),
      })
      .strict(),
    z.object({ adminId: z.string(), name: z.string(), appId: z.string(), passkeyId: z.string() }),
  ),
  sign_in: consoleEndpoint(
    "sign_in",
    "Stamped by an admin's passkey (`X-Stamp-WebAuthn`, challenge hex(sha256(body))): registers `publicKey` " +
      "(compressed P-256, made in the browser) as an admin session of the passkey's app until `expiresAt`.",
    z
      .object({
        type: z.literal(ADMIN_CONSOLE_SIGN_IN),
        timestampMs: z.string().regex(/^\d{1,16}$/, "timestampMs is a decimal string of milliseconds"),
        publicKey: z.string().regex(/^0[23][0-9a-f]{64}$/, "publicKey is a compressed P-256 key in hex"),
        expirationSeconds: z.number().int().min(60).max(ADMIN_SESSION_MAX_SECONDS).optional(),
      })
      .strict(),
    z.object({ sessionId: z.string(), expiresAt: z.number(), admin: consoleAdmin }),
  ),
} as const;

export type AdminConsoleEndpointName = keyof typeof adminConsoleApi;
/** A request as the service reads it (parsed); the answer as it is sent. */
export type AdminConsoleRequest<N extends AdminConsoleEndpointName> = z.output<
  (typeof adminConsoleApi)[N]["request"]
>;
export type AdminConsoleResponse<N extends AdminConsoleEndpointName> = z.input<
  (typeof adminConsoleApi)[N]["response"]
>;
