import { describe, expect, it } from "vitest";
import { enTexts } from "../texts/en";
import { grantLines } from "./GrantConsent";

const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";

describe("grantLines", () => {
  it("lists each limit in tokens: its windows and per-transaction amount, native coin in ETH", () => {
    const lines = grantLines(
      {
        chainIds: [8453],
        contracts: [USDC],
        selectors: ["0xa9059cbb"],
        expiresAt: Date.UTC(2027, 0, 1),
        tokenLimits: [
          {
            chainId: 8453,
            token: USDC,
            perTransaction: "5000000",
            windows: [
              { window: "24h", amount: "10000000" },
              { window: "30d", amount: "100000000" },
            ],
          },
          { chainId: 8453, token: "native", windows: [{ window: "total", amount: "500000000000000000" }] },
        ],
      },
      enTexts,
      "en",
    );
    expect(lines.filter(([label]) => label.startsWith("Most of"))).toEqual([
      [
        "Most of 0xa0b8…eb48",
        "10000000 units per 24 hours, 100000000 units per 30 days, 5000000 units per transaction",
      ],
      ["Most of ETH", "0.5 ETH in all"],
    ]);
  });
});
