import { ErrorCode } from "@latchkey/protocol";
import { CONTROL_CHARACTER_ISSUE } from "@latchkey/protocol/schemas";
import type { z } from "zod";
import { apiError } from "../errors";
import { assertJsonDepth } from "./jsonDepth";
import { assertNoNul } from "./nul";

/**
 * Validates input against a protocol schema: 400 `INVALID_REQUEST` naming the first bad field, or
 * `INVALID_CHARACTERS` when the field holds a control character.
 */
export function parseOrThrow<T extends z.ZodType>(schema: T, value: unknown, what: string): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join(".")}: ` : "";
    const control =
      issue?.code === "custom" &&
      (issue as { params?: { code?: string } }).params?.code === CONTROL_CHARACTER_ISSUE;
    throw apiError(
      control ? ErrorCode.INVALID_CHARACTERS : ErrorCode.INVALID_REQUEST,
      `Invalid ${what}: ${where}${issue?.message ?? "invalid"}`,
    );
  }
  return r.data;
}

/** A JSON body nested in a string (a stamped body): an object, or a 400. */
export function parseJsonObject(text: string, what: string): Record<string, unknown> {
  assertJsonDepth(text, what);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw apiError(ErrorCode.INVALID_JSON, `The ${what} is not valid JSON`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw apiError(ErrorCode.INVALID_REQUEST, `The ${what} must be a JSON object`);
  }
  assertNoNul(body);
  return body as Record<string, unknown>;
}
