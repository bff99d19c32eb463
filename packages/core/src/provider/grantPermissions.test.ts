import type { Grant } from "@latchkey/protocol";
import { toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ProviderRpcErrorCode } from "./errors";
import { erc7715Answer, grantFromErc7715 } from "./grantPermissions";

const TOKEN = "0x1111111111111111111111111111111111111111";
const GAME = "0x2222222222222222222222222222222222222222";
const expiry = 1_900_000_000;

describe("ERC-7715 permission requests as grants", () => {
  it("maps contract calls, token transfers with their allowance, and call limits", () => {
    const { permissions, granted, chainId } = grantFromErc7715(
      {
        chainId: "0x2105",
        expiry,
        permissions: [
          {
            type: "erc20-token-transfer",
            data: { address: TOKEN, ticker: "USDC", allowance: "0x989680", period: 86_400 },
            policies: [],
          },
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
      tokenLimits: [{ chainId: 8453, token: TOKEN, windows: [{ window: "24h", amount: "10000000" }] }],
      expiresAt: expiry * 1000,
    });
  });

  it("an ERC-20 transfer without an allowance is never granted uncapped: refused when required, else left out", () => {
    const bare = { type: "erc20-token-transfer", data: { address: TOKEN }, policies: [] };
    expect(() => grantFromErc7715({ expiry, permissions: [{ ...bare, required: true }] }, 1)).toThrow(
      "permissions[0]: an erc20-token-transfer needs an allowance",
    );
    const call = { type: "contract-call", data: { address: GAME, calls: ["0xd09de08a"] } };
    const { permissions, granted } = grantFromErc7715({ expiry, permissions: [bare, call] }, 1);
    expect(granted).toEqual([call]);
    expect(permissions).toMatchObject({ contracts: [GAME], selectors: ["0xd09de08a"] });
    expect(permissions.tokenLimits).toBeUndefined();
    // An allowance in a token-allowance policy, with no period: for the grant's whole life.
    const policy = grantFromErc7715(
      {
        expiry,
        permissions: [{ ...bare, policies: [{ type: "token-allowance", data: { allowance: "0x64" } }] }],
      },
      1,
    );
    expect(policy.permissions.tokenLimits).toEqual([
      { chainId: 1, token: TOKEN, windows: [{ window: "total", amount: "100" }] },
    ]);
  });

  it("a native allowance caps the value per transaction and in all; a recurring one per period", () => {
    const { permissions } = grantFromErc7715(
      {
        expiry,
        permissions: [
          {
            type: "native-token-transfer",
            data: { ticker: "ETH" },
            policies: [{ type: "token-allowance", data: { allowance: "0xde0b6b3a7640000" } }],
          },
          {
            type: "native-token-recurring-allowance",
            data: { allowance: "0x2386f26fc10000", start: 1_800_000_000, period: 604_800 },
          },
        ],
      },
      31337,
    );
    expect(permissions).toEqual({
      chainIds: [31337],
      valuePerTransaction: "1000000000000000000",
      tokenLimits: [
        {
          chainId: 31337,
          token: "native",
          windows: [
            { window: "total", amount: "1000000000000000000" },
            { window: "7d", amount: "10000000000000000" },
          ],
        },
      ],
      expiresAt: expiry * 1000,
    });
    // A period the grants cannot count exactly is not granted.
    expect(() =>
      grantFromErc7715(
        {
          expiry,
          permissions: [
            {
              type: "native-token-recurring-allowance",
              data: { allowance: "0x1", period: 3600 },
              required: true,
            },
          ],
        },
        1,
      ),
    ).toThrow("the period must be 86400, 604800 or 2592000 seconds");
  });

  it("answers what the grant allows, read from the grant, not what was asked", () => {
    const grant: Grant = {
      grantId: "grant_1",
      userId: "u",
      status: "active",
      permissions: {
        chainIds: [8453],
        contracts: [TOKEN],
        selectors: [toFunctionSelector("transfer(address,uint256)")],
        valuePerTransaction: "0",
        maxOperations: 3,
        expiresAt: expiry * 1000,
        messages: false,
        typedData: false,
        tokenLimits: [
          {
            chainId: 8453,
            token: TOKEN,
            perTransaction: "5000000",
            windows: [
              { window: "24h", amount: "10000000" },
              { window: "day", amount: "8000000" },
            ],
          },
        ],
      },
      operationsUsed: 0,
      valueUsedToday: "0",
      createdAt: Date.UTC(2026, 11, 7, 19, 30),
      revokedAt: null,
    };
    const calls = [{ type: "call-limit", data: { count: 3 } }];
    expect(erc7715Answer(grant, { granted: [], chainId: 1, expiry: 1 })).toEqual({
      expiry,
      chainId: "0x2105",
      permissionsContext: "grant_1",
      grantedPermissions: [
        {
          type: "erc20-token-transfer",
          data: {
            address: TOKEN,
            allowance: "0x989680",
            period: 86_400,
            start: Date.UTC(2026, 11, 7, 19, 30) / 1000,
            perTransaction: "0x4c4b40",
          },
          policies: calls,
        },
        {
          type: "erc20-token-transfer",
          data: {
            address: TOKEN,
            allowance: "0x7a1200",
            period: 86_400,
            start: Date.UTC(2026, 11, 7) / 1000,
            perTransaction: "0x4c4b40",
          },
          policies: calls,
        },
        {
          type: "contract-call",
          data: { address: TOKEN, calls: [toFunctionSelector("transfer(address,uint256)")] },
          policies: calls,
        },
      ],
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
    expect(
      code({ permissions: [{ type: "erc20-token-transfer", data: { address: TOKEN, allowance: "0x1" } }] }),
    ).toBe(ProviderRpcErrorCode.INVALID_PARAMS);
    expect(code({ expiry, permissions: [{ type: "contract-call", data: { address: "0x12" } }] })).toBe(
      ProviderRpcErrorCode.INVALID_PARAMS,
    );
  });
});
