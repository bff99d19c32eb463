import type { SigningPreview } from "@latchkey/protocol";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { balanceChangeText, formatUnits, type HeldApprovals, HeldPreview } from "./HeldPreview";

/** The text an admin reads, block by block (list items and paragraphs on their own lines). */
function read(preview: SigningPreview | undefined, approvals?: HeldApprovals): string[] {
  const html = renderToStaticMarkup(createElement(HeldPreview, { preview, approvals }));
  return html
    .replace(/<\/(li|p)>/g, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .split("\n")
    .filter(Boolean);
}

const transfer: SigningPreview = {
  chainId: 31337,
  kind: "transaction",
  actions: [
    {
      kind: "nativeTransfer",
      to: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
      value: "2000000000000000000",
    },
  ],
  warnings: [{ kind: "valueAboveThreshold", value: "2000000000000000000", threshold: "1000000000000000000" }],
  summary: {
    title: "Transaction on chain 31337",
    lines: [{ text: "Send 2 ETH to 0x7099…79C8", depth: 0 }],
    warnings: ["This sends 2 ETH, more than 1 ETH."],
  },
  simulation: {
    status: "ok",
    reverts: false,
    balanceChanges: [
      { asset: "native", delta: "-2000000000000000000" },
      { asset: "0x5fbdb2315678afecb367f032d93f642f64180aa3", symbol: "USDC", decimals: 6, delta: "1500000" },
    ],
  },
  policy: { effect: "needs_approval", ruleId: "large", description: "more than 1 ETH needs an admin" },
};

describe("a held signature on the Approvals page", () => {
  it("shows what it does, its warning, the simulated balance changes, the rule and the approvals so far", () => {
    expect(read(transfer, { required: 2, approvedBy: [{ admin: "ada", approvedAt: 1 }] })).toEqual([
      "Transaction on chain 31337",
      "Large amount: This sends 2 ETH, more than 1 ETH.",
      "Send 2 ETH to 0x7099…79C8",
      "Simulated balance changes:",
      "-2 ETH",
      "+1.5 USDC",
      "Held by rule large: more than 1 ETH needs an admin",
      "1 of 2 approvals (approved by ada)",
    ]);
  });

  it("says why there is no simulation, and that none approved yet", () => {
    const preview: SigningPreview = {
      ...transfer,
      warnings: [],
      summary: { ...transfer.summary, warnings: [] },
      simulation: { status: "unavailable", reason: "noRpc" },
      policy: { effect: "needs_approval", ruleId: "large" },
    };
    expect(read(preview, { required: 2, approvedBy: [] })).toEqual([
      "Transaction on chain 31337",
      "Send 2 ETH to 0x7099…79C8",
      "Simulation unavailable: no RPC is configured for this chain",
      "Held by rule large",
      "0 of 2 approvals",
    ]);
    expect(
      read({
        ...preview,
        simulation: { status: "ok", reverts: true, revertReason: "no funds", balanceChanges: [] },
      }),
    ).toContain("Simulated: it reverts (no funds)");
  });

  it("an activity held before previews were recorded says so", () => {
    expect(read(undefined, { required: 1, approvedBy: [] })).toEqual([
      "No preview was recorded for this signature.",
      "0 of 1 approvals",
    ]);
  });

  it("formats amounts exactly, and a token of unknown decimals in raw units", () => {
    expect(formatUnits("-1", 18)).toBe("-0.000000000000000001");
    expect(formatUnits("1230000", 6)).toBe("+1.23");
    expect(formatUnits("0", 6)).toBe("+0");
    expect(balanceChangeText({ asset: "0x5fbdb2315678afecb367f032d93f642f64180aa3", delta: "-42" })).toBe(
      "-42 units of 0x5fbd…0aa3",
    );
  });
});
