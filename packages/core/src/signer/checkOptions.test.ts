import { defineChain } from "viem";
import { describe, expect, it } from "vitest";
import { createSigner } from "../createSigner";
import { createMemoryKeyHolder } from "../keyHolders/memory";

const base = {
  baseUrl: "http://127.0.0.1:1",
  apiKey: "lk_test",
  keyHolder: createMemoryKeyHolder(),
  window: null,
};
const noRpc = defineChain({
  id: 424242,
  name: "Nowhere",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [] } },
});
const withRpc = { ...noRpc, rpcUrls: { default: { http: ["http://127.0.0.1:8545"] } } };

describe("createSigner checks its smart-account chains when it is made", () => {
  it("a chain with no RPC URL: names the setting", () => {
    expect(() =>
      createSigner({ ...base, chains: [{ chain: noRpc, bundlerUrl: "http://127.0.0.1:4337" }] }),
    ).toThrow(
      "createSigner(): chains[0] (chain 424242 Nowhere) has no RPC URL: set chains[0].rpcUrl, or use a chain whose rpcUrls.default has one",
    );
  });

  it("a chain with no bundler: names bundlerUrl and the plain wallet", () => {
    expect(() => createSigner({ ...base, chains: [{ chain: withRpc, bundlerUrl: "" }] })).toThrow(
      "createSigner(): chains[0] (chain 424242 Nowhere) has no bundlerUrl",
    );
  });

  it("not a chain at all", () => {
    expect(() =>
      createSigner({ ...base, chains: [{ chain: undefined as never, bundlerUrl: "http://127.0.0.1:4337" }] }),
    ).toThrow("createSigner(): chains[0].chain must be a viem chain");
  });

  it("the chain's own RPC URL or an rpcUrl both do; no chains at all does", () => {
    expect(() =>
      createSigner({ ...base, chains: [{ chain: withRpc, bundlerUrl: "http://127.0.0.1:4337" }] }),
    ).not.toThrow();
    expect(() =>
      createSigner({
        ...base,
        chains: [{ chain: noRpc, rpcUrl: "http://127.0.0.1:8545", bundlerUrl: "http://127.0.0.1:4337" }],
      }),
    ).not.toThrow();
    expect(() => createSigner(base)).not.toThrow();
  });
});
