import { toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ProviderRpcErrorCode } from "./errors";
import { grantFromErc7715 } from "./grantPermissions";

const TOKEN = "0x1111111111111111111111111111111111111111";
const GAME = "0x2222222222222222222222222222222222222222";
const expiry = 1_900_000_000;

describe("ERC-7715 permission requests as grants", () => {
  it("maps contract calls, token transfers, allowances and call limits", () => {
    const { permissions, granted, chainId } = grantFromErc7715(
      {
        chainId: "0x2105",
        expiry,
        permissions: [
          { type: "erc20-token-transfer", data: { address: TOKEN, ticker: "USDC" }, policies: [] },
          {
            type: "contract-call",
            data: { address: GAME, calls: ["function move(uint8 x, uint8 y)", "0xd09de08a"] },
            policies: [{ type: "call-limit", data: { count: 5 } }],
          },
          { type: "something-else", data: {}, policies: [] },
        ],
      },
      1,
    );
    expect(chainId).toBe(8453);
    expect(granted).toHaveLength(2);
    expect(permissions).toEqual({
      chainIds: [8453],
      contracts: [TOKEN, GAME],
      selectors: [
        toFunctionSelector("transfer(address,uint256)"),
        toFunctionSelector("move(uint8,uint8)"),
        "0xd09de08a",
      ],
      valuePerTransaction: "0",
      maxOperations: 5,
      expiresAt: expiry * 1000,
    });
  });

  it("a native allowance caps the value per transaction and per day, on the provider's chain", () => {
    const { permissions } = grantFromErc7715(
      {
        expiry,
        permissions: [
          {
            type: "native-token-transfer",
            data: { ticker: "ETH" },
            policies: [{ type: "token-allowance", data: { allowance: "0xde0b6b3a7640000" } }],
          },
        ],
      },
      31337,
    );
    expect(permissions).toEqual({
      chainIds: [31337],
      valuePerTransaction: "1000000000000000000",
      valuePerDay: "1000000000000000000",
      expiresAt: expiry * 1000,
    });
  });

  it("refuses what it cannot grant: a required unknown permission, none at all, no expiry", () => {
    const code = (request: unknown) => {
      try {
        grantFromErc7715(request, 1);
      } catch (e) {
        return (e as { code: number }).code;
      }
      return "granted";
    };
    const unknown = { type: "rate-limit-everything", data: {}, policies: [], required: true };
    expect(code({ expiry, permissions: [unknown] })).toBe(ProviderRpcErrorCode.INVALID_PARAMS);
    expect(code({ expiry, permissions: [] })).toBe(ProviderRpcErrorCode.INVALID_PARAMS);
    expect(code({ permissions: [{ type: "erc20-token-transfer", data: { address: TOKEN } }] })).toBe(
      ProviderRpcErrorCode.INVALID_PARAMS,
    );
    expect(code({ expiry, permissions: [{ type: "contract-call", data: { address: "0x12" } }] })).toBe(
      ProviderRpcErrorCode.INVALID_PARAMS,
    );
  });
});
