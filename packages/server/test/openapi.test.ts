/**
 * `GET /openapi.json`: a valid OpenAPI 3.1 document, generated from the protocol's tables, that describes
 * every signer-API route and every key-management query and activity, with its body, answer and errors.
 */
import {
  activityTypes,
  adminApi,
  adminConsoleApi,
  backendApi,
  querySchemas,
  signerApi,
} from "@latchkey/protocol/schemas";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestService, type TestService } from "../../../test-support/service";
import serverPackage from "../package.json" with { type: "json" };

interface Operation {
  requestBody?: { content?: { "application/json"?: { schema?: { $ref?: string } } } };
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
}
interface Document {
  openapi: string;
  info: { version: string };
  paths: Record<string, { post?: Operation; get?: Omit<Operation, "requestBody"> }>;
  components: { schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }> };
}

describe("GET /openapi.json", () => {
  let svc: TestService;
  let res: Response;
  let doc: Document;
  beforeAll(async () => {
    svc = await startTestService({ dev: true });
    res = await fetch(`${svc.url}/openapi.json`, { headers: { origin: "https://anywhere.example" } });
    doc = (await res.json()) as Document;
  });
  afterAll(async () => {
    await svc?.close();
  });

  it("answers without credentials, to any origin, with the server's version", () => {
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe(serverPackage.version);
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every signer-API route and key-management query and activity", () => {
    const expected = [
      ...Object.values(signerApi).map((e) => `/signer${e.path}`),
      ...Object.keys(querySchemas).map((name) => `/public/v1/query/${name}`),
      ...Object.values(activityTypes).map((a) => `/public/v1/submit/${a.path}`),
      ...Object.values(adminApi).map((e) => e.path),
      ...Object.values(adminConsoleApi).map((e) => e.path),
      ...Object.values(backendApi).map((e) => e.path),
    ];
    // The console's enrolment is authenticated by the link's token in the body, its sign-in by a passkey.
    const consoleAuth: Record<string, string[]> = {
      [adminConsoleApi.enrolment.path]: [],
      [adminConsoleApi.enrol.path]: [],
      [adminConsoleApi.sign_in.path]: ["passkeyStamp"],
    };
    // Plus the one GET: the key of Sign-In with Ethereum tokens.
    expect(Object.keys(doc.paths).sort()).toEqual([...expected, "/.well-known/jwks.json"].sort());
    expect(doc.paths["/.well-known/jwks.json"]?.get?.responses?.["200"]).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/Jwks" } } },
    });
    for (const path of expected) {
      const op = doc.paths[path]?.post;
      const ref = op?.requestBody?.content?.["application/json"]?.schema?.$ref ?? "";
      expect(ref, path).toMatch(/^#\/components\/schemas\/\w+$/);
      expect({ path, ok: "200" in (op?.responses ?? {}), errors: "4XX" in (op?.responses ?? {}) }).toEqual({
        path,
        ok: true,
        errors: true,
      });
      expect(doc.components.schemas[ref.split("/").pop() as string], path).toBeDefined();
      const auth = Object.keys(Object.assign({}, ...(op?.security ?? [])));
      expect(auth, path).toEqual(
        consoleAuth[path] ??
          (path.startsWith("/signer/")
            ? ["appApiKey"]
            : path.startsWith("/admin/")
              ? ["adminKeyStamp"]
              : path.startsWith("/backend/")
                ? ["serverKeyStamp"]
                : ["apiKeyStamp", "passkeyStamp"]),
      );
    }
  });

  it("describes request bodies as sent: /signer/v1/otp", () => {
    const schema = doc.components.schemas.SignerOtpRequest;
    expect(schema?.required?.sort()).toEqual(["orgId", "otpCode", "otpId", "targetPublicKey"]);
    expect(Object.keys(schema?.properties ?? {})).toEqual(
      expect.arrayContaining(["expirationSeconds", "multiFactors"]),
    );
  });

  it("describes each activity's parameters and both error bodies", () => {
    const submit = doc.components.schemas.SubmitSignRawPayloadRequest as {
      required?: string[];
      properties?: { type?: { const?: string }; parameters?: { required?: string[] } };
    };
    expect(submit.required?.sort()).toEqual(["organizationId", "parameters", "timestampMs", "type"]);
    expect(submit.properties?.type?.const).toBe("ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2");
    expect(submit.properties?.parameters?.required?.sort()).toEqual([
      "encoding",
      "hashFunction",
      "payload",
      "signWith",
    ]);
    expect(doc.components.schemas.SignerError?.required?.sort()).toEqual(["code", "error"]);
    expect(doc.components.schemas.PublicError?.required?.sort()).toEqual(["code", "details", "message"]);
  });
});
