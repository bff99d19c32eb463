import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";

/**
 * What a stamped body must say it is for (DESIGN §3.2, F2). Every body names its operation in `type`:
 * - `query`: read-only; a body without `type` is accepted for reference clients, one with a `type`
 *   must name this query;
 * - `submit`: an activity; the body's `type` must be one this path serves (`types`);
 * - `operation`: a signer-only change (MFA); the body's `type` must be exactly this one.
 * So a body signed for one operation is refused by every other, whatever travels beside it.
 */
export type OperationBinding =
  | { kind: "query"; type: string }
  | { kind: "submit"; types: readonly string[] }
  | { kind: "operation"; type: string };

export function assertBoundTo(body: Record<string, unknown>, binding: OperationBinding): void {
  const type = body.type;
  const ok =
    binding.kind === "query"
      ? type === undefined || type === binding.type
      : binding.kind === "submit"
        ? typeof type === "string" && binding.types.includes(type)
        : type === binding.type;
  if (!ok) {
    const expected = binding.kind === "submit" ? binding.types.join(" or ") : binding.type;
    throw apiError(
      ErrorCode.STAMP_WRONG_OPERATION,
      `This stamp was made for ${typeof type === "string" ? type : "another request"}, not ${expected}`,
    );
  }
}

/** Submit and operation bodies change something: they must be recent (and operations are single use). */
export function needsFreshTimestamp(binding: OperationBinding): boolean {
  return binding.kind !== "query";
}
