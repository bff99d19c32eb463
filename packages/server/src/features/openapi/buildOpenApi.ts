import {
  type ActivityType,
  type ErrorCode,
  type ErrorStatus,
  errorStatus,
  type QueryName,
  STAMP_HEADER_NAME,
  type StampedBinding,
  WEBAUTHN_STAMP_HEADER_NAME,
} from "@latchkey/protocol";
import {
  type AdminConsoleEndpointName,
  type AdminEndpointName,
  activityTypes,
  adminApi,
  adminConsoleApi,
  type BackendEndpointName,
  backendApi,
  publicErrorBodySchema,
  queryResponseSchemas,
  querySchemas,
  type SignerEndpointName,
  signerApi,
  signerErrorBodySchema,
  signerResponses,
  submitEnvelopeSchema,
  submitResponseSchema,
} from "@latchkey/protocol/schemas";
import { z } from "zod";
import { type JsonSchema, toJsonSchema } from "./jsonSchema";
import type { OpenApiDocument, Operation, Ref, SecurityScheme } from "./openApiDocument";

const TAGS = {
  signer: "signer",
  query: "key-management query",
  submit: "key-management activity",
  admin: "admin",
  backend: "backend",
} as const;

const APP_KEY = "appApiKey";
const API_KEY_STAMP = "apiKeyStamp";
const PASSKEY_STAMP = "passkeyStamp";
const ADMIN_STAMP = "adminKeyStamp";
const SERVER_STAMP = "serverKeyStamp";

const securitySchemes: Record<string, SecurityScheme> = {
  [APP_KEY]: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "API key or JWT",
    description: "The app's API key, or a short-lived JWT from the app's backend (its `aud` the app's id).",
  },
  [API_KEY_STAMP]: {
    type: "apiKey",
    in: "header",
    name: STAMP_HEADER_NAME,
    description:
      "API-key stamp: base64url (no padding) of `{publicKey, scheme, signature}`, an ECDSA P-256 " +
      "signature by the session key over the exact body bytes (DESIGN §3.2).",
  },
  [PASSKEY_STAMP]: {
    type: "apiKey",
    in: "header",
    name: WEBAUTHN_STAMP_HEADER_NAME,
    description: "Passkey stamp: a WebAuthn assertion (JSON) whose challenge is hex(sha256(body)).",
  },
  [ADMIN_STAMP]: {
    type: "apiKey",
    in: "header",
    name: STAMP_HEADER_NAME,
    description:
      "Admin stamp: an API-key stamp made by one of the app's admin keys (`signingPolicy.adminKeys`) over " +
      "the exact body bytes; the body names the endpoint's `type`, the app's `organizationId` and a fresh " +
      "`timestampMs`, and is accepted once.",
  },
  [SERVER_STAMP]: {
    type: "apiKey",
    in: "header",
    name: STAMP_HEADER_NAME,
    description:
      "Server stamp: an API-key stamp made by one of the app's server keys (`serverKeys`) over the exact " +
      "body bytes; the body names the endpoint's `type`, the app's `appId` and a fresh `timestampMs`, and " +
      "is accepted once.",
  },
};

/** `get_user` → `GetUser`, `signerConfig` → `SignerConfig`: component names. */
const pascal = (name: string) =>
  name.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());

/** Which status each error code answers, as a sentence: the error responses' description. */
function statusesOfCodes(): string {
  const byStatus = new Map<ErrorStatus, ErrorCode[]>();
  for (const [code, status] of Object.entries(errorStatus) as [ErrorCode, ErrorStatus][]) {
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return [...byStatus.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, codes]) => `${status}: ${codes.join(", ")}`)
    .join("; ");
}

function stampedDescription(s: StampedBinding): string {
  return (
    `Carries \`stampedRequest\`: a ${s.kind} to \`${s.url}\` whose signed body has \`type\` ` +
    `\`${s.type}\`, stamped by the session key (or a passkey). A body signed for another operation is refused.`
  );
}

/**
 * The service's OpenAPI 3.1 document, generated from `@latchkey/protocol`'s tables: every signer-API
 * route (`signerApi`, its answer from `signerResponses`), every key-management query (`querySchemas`,
 * `queryResponseSchemas`) and activity (`activityTypes`, answered by `{activity}`), each with its error
 * body and the way it authenticates. Request bodies are described as sent (zod input), answers as
 * returned (zod output).
 */
export function buildOpenApi(params: { version: string }): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const component = (name: string, schema: z.ZodType, io: "input" | "output"): Ref => {
    schemas[name] = toJsonSchema(schema, io);
    return { $ref: `#/components/schemas/${name}` };
  };
  const json = (schema: Ref) => ({ "application/json": { schema } });
  const operation = (op: {
    id: string;
    summary: string;
    description: string;
    tag: string;
    security: Operation["security"];
    request: Ref;
    response: Ref;
    error: Ref;
    stamped?: StampedBinding | undefined;
  }): { post: Operation } => ({
    post: {
      operationId: op.id,
      summary: op.summary,
      description: op.description,
      tags: [op.tag],
      security: op.security,
      requestBody: { required: true, content: json(op.request) },
      responses: {
        "200": { description: "Success", content: json(op.response) },
        "4XX": op.error,
        "5XX": op.error,
      },
      ...(op.stamped ? { "x-latchkey-stamped": op.stamped } : {}),
    },
  });

  const paths: OpenApiDocument["paths"] = {};
  const signerError = { $ref: "#/components/responses/SignerError" };
  for (const name of Object.keys(signerApi) as SignerEndpointName[]) {
    const endpoint = signerApi[name];
    const stamped: StampedBinding | undefined = endpoint.stamped;
    paths[`/signer${endpoint.path}`] = operation({
      id: name,
      summary: `Signer API ${endpoint.path}`,
      description: stamped
        ? stampedDescription(stamped)
        : endpoint.backendOnly
          ? "Called by the app's backend, authenticated by the app's API key or JWT."
          : "Authenticated by the app's API key or JWT.",
      tag: TAGS.signer,
      security: [{ [APP_KEY]: [] }],
      request: component(`Signer${pascal(name)}Request`, endpoint.request, "input"),
      response: component(`Signer${pascal(name)}Response`, signerResponses[name], "output"),
      error: signerError,
      stamped,
    });
  }

  const stamps: Operation["security"] = [{ [API_KEY_STAMP]: [] }, { [PASSKEY_STAMP]: [] }];
  const publicError = { $ref: "#/components/responses/PublicError" };
  for (const name of Object.keys(querySchemas) as QueryName[]) {
    paths[`/public/v1/query/${name}`] = operation({
      id: `query_${name}`,
      summary: `Query ${name}`,
      description:
        "Read-only, stamped over the raw body. A body that names another operation in `type` is refused.",
      tag: TAGS.query,
      security: stamps,
      request: component(`Query${pascal(name)}Request`, querySchemas[name], "input"),
      response: component(`Query${pascal(name)}Response`, queryResponseSchemas[name], "output"),
      error: publicError,
    });
  }

  const submitResponse = component("SubmitResponse", submitResponseSchema, "output");
  for (const type of Object.keys(activityTypes) as ActivityType[]) {
    const entry = activityTypes[type];
    const body = submitEnvelopeSchema.extend({ type: z.literal(type), parameters: entry.parameters });
    paths[`/public/v1/submit/${entry.path}`] = operation({
      id: `submit_${entry.path}`,
      summary: `Submit ${type}`,
      description:
        "Stamped over the raw body; `timestampMs` must be within the stamp window. A body runs at most " +
        `once: resubmitting it answers the first activity. The result is \`activity.result.${entry.result}\`.`,
      tag: TAGS.submit,
      security: stamps,
      request: component(`Submit${pascal(entry.path)}Request`, body, "input"),
      response: submitResponse,
      error: publicError,
    });
  }

  for (const name of Object.keys(adminApi) as AdminEndpointName[]) {
    const endpoint = adminApi[name];
    paths[endpoint.path] = operation({
      id: `admin_${name}`,
      summary: endpoint.summary,
      description:
        `Stamped by an app admin key over the raw body, whose \`type\` is \`${endpoint.type}\`; the ` +
        "body is single use and `timestampMs` must be within the stamp window.",
      tag: TAGS.admin,
      security: [{ [ADMIN_STAMP]: [] }],
      request: component(`Admin${pascal(name)}Request`, endpoint.request, "input"),
      response: component(`Admin${pascal(name)}Response`, endpoint.response, "output"),
      error: signerError,
    });
  }

  // The console's own sign-in (features/admin/console): before an admin has a session key to stamp with.
  for (const name of Object.keys(adminConsoleApi) as AdminConsoleEndpointName[]) {
    const endpoint = adminConsoleApi[name];
    paths[endpoint.path] = operation({
      id: `admin_console_${name}`,
      summary: endpoint.summary,
      description:
        name === "sign_in"
          ? "Called by the admin console (`/admin`) with the admin's passkey stamp over the raw body; the " +
            "body is single use and `timestampMs` must be within the stamp window."
          : "Called by the admin console (`/admin`) with the enrolment link's token, which is single use.",
      tag: TAGS.admin,
      security: name === "sign_in" ? [{ [PASSKEY_STAMP]: [] }] : [],
      request: component(`AdminConsole${pascal(name)}Request`, endpoint.request, "input"),
      response: component(`AdminConsole${pascal(name)}Response`, endpoint.response, "output"),
      error: signerError,
    });
  }

  for (const name of Object.keys(backendApi) as BackendEndpointName[]) {
    const endpoint = backendApi[name];
    paths[endpoint.path] = operation({
      id: `backend_${name}`,
      summary: endpoint.summary,
      description:
        `Stamped by an app server key over the raw body, whose \`type\` is \`${endpoint.type}\`; the ` +
        "body is single use and `timestampMs` must be within the stamp window. Signatures are made within " +
        "the user's grant and recorded as activities of it.",
      tag: TAGS.backend,
      security: [{ [SERVER_STAMP]: [] }],
      request: component(`Backend${pascal(name)}Request`, endpoint.request, "input"),
      response: component(`Backend${pascal(name)}Response`, endpoint.response, "output"),
      error: signerError,
    });
  }

  // The key of Sign-In with Ethereum tokens (features/siwe): for backends that check tokens themselves.
  const jwks = z.object({
    keys: z.array(
      z.object({
        kty: z.literal("EC"),
        crv: z.literal("P-256"),
        x: z.string(),
        y: z.string(),
        kid: z.string().describe("RFC 7638 thumbprint"),
        alg: z.literal("ES256"),
        use: z.literal("sig"),
      }),
    ),
  });
  paths["/.well-known/jwks.json"] = {
    get: {
      operationId: "jwks",
      summary: "The public key of Sign-In with Ethereum tokens (JWK Set)",
      description:
        "Public, any origin. A SIWE token (`/signer/v1/siwe/verify`) is an ES256 JWT signed by this key: " +
        "`aud` is the app id, `sub` the CAIP-10 account.",
      tags: [TAGS.signer],
      security: [],
      responses: { "200": { description: "Success", content: json(component("Jwks", jwks, "output")) } },
    },
  };

  const statuses = statusesOfCodes();
  return {
    openapi: "3.1.0",
    info: {
      title: "Latchkey",
      version: params.version,
      description:
        "Latchkey's signer API (`/signer/v1/*`, called by the browser with the app's API key) and " +
        "key-management API (`/public/v1/query/*`, `/public/v1/submit/*`, stamped by a session key or a " +
        "passkey), admin API (`/admin/v1/*`, stamped by an app admin key) and backend API " +
        "(`/backend/v1/*`, stamped by an app server key: signing within users' grants). Generated from " +
        "@latchkey/protocol's schemas.",
    },
    tags: [
      { name: TAGS.signer, description: "`POST /signer/v1/*` (DESIGN §3.1)" },
      { name: TAGS.query, description: "`POST /public/v1/query/*` (DESIGN §3.3)" },
      { name: TAGS.submit, description: "`POST /public/v1/submit/*` (DESIGN §3.3)" },
      { name: TAGS.admin, description: "`POST /admin/v1/*`, stamped by an app admin key" },
      {
        name: TAGS.backend,
        description: "`POST /backend/v1/*`, stamped by an app server key: signing within users' grants",
      },
    ],
    paths,
    components: {
      schemas: {
        ...schemas,
        SignerError: toJsonSchema(signerErrorBodySchema, "output"),
        PublicError: toJsonSchema(publicErrorBodySchema, "output"),
      },
      responses: {
        SignerError: {
          description: `\`{error, code, data?}\`; the code sets the status (${statuses}).`,
          content: json({ $ref: "#/components/schemas/SignerError" }),
        },
        PublicError: {
          description: `\`{code, message, details}\`; the code sets the status (${statuses}).`,
          content: json({ $ref: "#/components/schemas/PublicError" }),
        },
      },
      securitySchemes,
    },
  };
}
