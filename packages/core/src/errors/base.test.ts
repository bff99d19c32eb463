import { describe, expect, it } from "vitest";
import { SignerApiError } from "./api";
import { LatchkeyError } from "./base";
import { ExternalWalletError } from "./externalWallet";
import { MfaRequiredError, SignerError } from "./signer";
import { SmartAccountError } from "./smartAccount";

describe("LatchkeyError", () => {
  const api = new SignerApiError({
    status: 400,
    path: "/v1/auth",
    responseText: JSON.stringify({ error: "MFA is required", code: "MFA_REQUIRED" }),
  });
  const outer = new MfaRequiredError([{ multiFactorId: "f1" }], { cause: api });

  it("walk() finds an error in the cause chain, or answers the innermost", () => {
    expect(outer.walk((e) => e instanceof SignerApiError)).toBe(api);
    expect(outer.walk((e) => e instanceof TypeError)).toBeNull();
    expect(outer.walk()).toBe(api);
    expect(new SignerError("NOT_AUTHENTICATED").walk()).toBeInstanceOf(SignerError);
  });

  it("keeps a stable code and the catalogue's message", () => {
    expect(outer).toBeInstanceOf(LatchkeyError);
    expect({ code: outer.code, message: outer.message, apiCode: api.code, status: api.status }).toEqual({
      code: "MFA_REQUIRED",
      message: "MFA is required for this user",
      apiCode: "MFA_REQUIRED",
      status: 400,
    });
    expect(new SignerApiError({ status: 502, path: "/v1/x", responseText: "Bad gateway" })).toMatchObject({
      code: "HTTP_ERROR",
      message: "Bad gateway",
    });
  });

  it("adds what the wallet said after the catalogue's sentence without a stray full stop", () => {
    const refused = new ExternalWalletError("WALLET_CONNECTION_FAILED", {
      details: "Connection request reset",
    });
    expect(refused.message).toBe(
      "The wallet's connection failed or was canceled. Details: Connection request reset",
    );
    expect(refused.details).toBe("Connection request reset");
    expect(new ExternalWalletError("WALLET_CONNECTION_FAILED").message).toBe(
      "The wallet's connection failed or was canceled.",
    );
    expect(new SmartAccountError("USER_OPERATION_REVERTED", { details: "AA23 reverted" }).message).toBe(
      "The user operation reverted: AA23 reverted",
    );
  });
});
