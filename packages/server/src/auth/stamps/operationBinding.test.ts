import { describe, expect, it } from "vitest";
import { ApiError } from "../../errors";
import { assertBoundTo, needsFreshTimestamp } from "./operationBinding";

const refused = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return e instanceof ApiError ? `${e.status} ${e.code}` : String(e);
  }
  return "accepted";
};

describe("assertBoundTo (F2)", () => {
  const query = { kind: "query", type: "QUERY_TYPE_WHOAMI" } as const;
  const submit = { kind: "submit", types: ["ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"] } as const;
  const operation = { kind: "operation", type: "OPERATION_TYPE_REQUEST_MULTI_FACTOR" } as const;

  it("lets a read omit its type (reference clients) but not name another", () => {
    expect(refused(() => assertBoundTo({ organizationId: "o" }, query))).toBe("accepted");
    expect(refused(() => assertBoundTo({ type: "QUERY_TYPE_WHOAMI" }, query))).toBe("accepted");
    expect(refused(() => assertBoundTo({ type: "QUERY_TYPE_GET_USER" }, query))).toBe(
      "400 STAMP_WRONG_OPERATION",
    );
    expect(refused(() => assertBoundTo({ type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" }, query))).toBe(
      "400 STAMP_WRONG_OPERATION",
    );
  });

  it("needs a change to name exactly its operation", () => {
    expect(refused(() => assertBoundTo({ type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" }, submit))).toBe(
      "accepted",
    );
    expect(refused(() => assertBoundTo({}, submit))).toBe("400 STAMP_WRONG_OPERATION");
    expect(refused(() => assertBoundTo({ type: "OPERATION_TYPE_REQUEST_MULTI_FACTOR" }, operation))).toBe(
      "accepted",
    );
    for (const type of [undefined, "QUERY_TYPE_WHOAMI", "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2", 1, null]) {
      expect(
        refused(() => assertBoundTo({ type }, operation)),
        String(type),
      ).toBe("400 STAMP_WRONG_OPERATION");
    }
  });

  it("refuses a change that names an operation this path does not serve", () => {
    const two = { kind: "submit", types: ["ACTIVITY_TYPE_A", "ACTIVITY_TYPE_B"] } as const;
    expect(refused(() => assertBoundTo({ type: "ACTIVITY_TYPE_B" }, two))).toBe("accepted");
    expect(refused(() => assertBoundTo({ type: "ACTIVITY_TYPE_C" }, two))).toBe("400 STAMP_WRONG_OPERATION");
  });

  it("says what the stamp was made for and what the path expects", () => {
    const message = (fn: () => void) => {
      try {
        fn();
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(
      message(() => assertBoundTo({ type: "ACTIVITY_TYPE_C" }, { kind: "submit", types: ["A", "B"] })),
    ).toBe("This stamp was made for ACTIVITY_TYPE_C, not A or B");
    expect(message(() => assertBoundTo({ type: 1 }, operation))).toBe(
      "This stamp was made for another request, not OPERATION_TYPE_REQUEST_MULTI_FACTOR",
    );
    expect(message(() => assertBoundTo({ type: "QUERY_TYPE_GET_USER" }, query))).toBe(
      "This stamp was made for QUERY_TYPE_GET_USER, not QUERY_TYPE_WHOAMI",
    );
  });

  it("needs a recent timestamp on changes, not on reads", () => {
    expect(needsFreshTimestamp(query)).toBe(false);
    expect(needsFreshTimestamp(submit)).toBe(true);
    expect(needsFreshTimestamp(operation)).toBe(true);
  });
});
