import { describe, expect, it } from "vitest";
import { evaluatePolicy, type SigningRequest } from "./evaluatePolicy";
import { type SigningPolicyConfig, signingPolicySchema } from "./policySchema";

const BURN = "0x000000000000000000000000000000000000dead";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const FRIEND = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const TRANSFER = "0xa9059cbb";
const ADMIN = { name: "ops", publicKey: `02${"11".repeat(32)}` };
const ETH = 10n ** 18n;

const policy = (config: SigningPolicyConfig) => signingPolicySchema.parse(config);
const tx = (over: Partial<Extract<SigningRequest, { kind: "transaction" }>> = {}): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to: FRIEND,
  data: "0x",
  value: 0n,
  ...over,
});

describe("evaluatePolicy", () => {
  it("allows everything without a policy, and with an empty one", () => {
    expect(evaluatePolicy(undefined, tx())).toEqual({ effect: "allow" });
    expect(evaluatePolicy(policy({}), tx())).toEqual({ effect: "allow" });
    expect(evaluatePolicy(policy({}), { kind: "rawPayload" })).toEqual({ effect: "allow" });
  });

  it("denies a contract, naming the rule and its description", () => {
    const p = policy({
      rules: [{ id: "no-burn", effect: "deny", contracts: [BURN], description: "Not to the burn address" }],
    });
    expect(evaluatePolicy(p, tx({ to: BURN }))).toEqual({
      effect: "deny",
      ruleId: "no-burn",
      message: 'Refused by signing policy rule "no-burn": Not to the burn address',
    });
    expect(evaluatePolicy(p, tx()).effect).toBe("allow");
    // A contract creation has no `to`: a contracts rule never matches it.
    expect(evaluatePolicy(p, tx({ to: null })).effect).toBe("allow");
  });

  it("caps the value: only more than valueAboveWei matches", () => {
    const p = policy({ rules: [{ id: "cap", effect: "deny", valueAboveWei: String(ETH) }] });
    expect(evaluatePolicy(p, tx({ value: ETH })).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ value: ETH + 1n }))).toMatchObject({ effect: "deny", ruleId: "cap" });
  });

  it("matches chains and selectors; a call without a selector matches no selectors rule", () => {
    const p = policy({
      rules: [
        { id: "no-token-transfer", effect: "deny", chainIds: [1], contracts: [TOKEN], selectors: [TRANSFER] },
      ],
    });
    const transfer = `${TRANSFER}${"00".repeat(64)}` as const;
    const token = TOKEN.toLowerCase() as `0x${string}`;
    expect(evaluatePolicy(p, tx({ to: token, data: transfer })).effect).toBe("deny");
    expect(evaluatePolicy(p, tx({ to: token, data: transfer, chainId: 10 })).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ to: token, data: "0x095ea7b3" })).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ to: token, data: "0xa905" })).effect).toBe("allow");
    // Selectors compare in any case.
    expect(evaluatePolicy(p, tx({ to: token, data: "0xA9059CBB" })).effect).toBe("deny");
  });

  it("takes the strictest matching effect whatever the order: deny > needs_approval > allow", () => {
    const rules = [
      { id: "friends", effect: "allow" as const, contracts: [FRIEND] },
      { id: "large", effect: "needs_approval" as const, valueAboveWei: String(ETH) },
      { id: "huge", effect: "deny" as const, valueAboveWei: String(100n * ETH) },
    ];
    for (const ordered of [rules, [...rules].reverse()]) {
      const p = policy({ rules: ordered, adminKeys: [ADMIN] });
      expect(evaluatePolicy(p, tx({ value: 1n }))).toEqual({ effect: "allow", ruleId: "friends" });
      expect(evaluatePolicy(p, tx({ value: 2n * ETH }))).toMatchObject({
        effect: "needs_approval",
        ruleId: "large",
      });
      expect(evaluatePolicy(p, tx({ value: 101n * ETH }))).toMatchObject({ effect: "deny", ruleId: "huge" });
    }
  });

  it("with default deny, only what an allow rule matches is signed", () => {
    const p = policy({ default: "deny", rules: [{ id: "mainnet", effect: "allow", chainIds: [1] }] });
    expect(evaluatePolicy(p, tx()).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ chainId: 5 }))).toEqual({
      effect: "deny",
      ruleId: "default",
      message: "Refused by the signing policy: no rule allows this transaction",
    });
  });

  it("a transaction without a chain id matches every deny rule's chains and no allow rule's", () => {
    const allowOnly = policy({ default: "deny", rules: [{ id: "mainnet", effect: "allow", chainIds: [1] }] });
    expect(evaluatePolicy(allowOnly, tx({ chainId: undefined })).effect).toBe("deny");
    const denyOne = policy({ rules: [{ id: "not-mainnet", effect: "deny", chainIds: [1] }] });
    expect(evaluatePolicy(denyOne, tx({ chainId: undefined })).effect).toBe("deny");
  });

  it("decides raw payloads by rawPayloads alone", () => {
    const deny = policy({ rawPayloads: "deny", rules: [{ id: "all", effect: "allow" }] });
    expect(evaluatePolicy(deny, { kind: "rawPayload" })).toMatchObject({
      effect: "deny",
      ruleId: "rawPayloads",
    });
    const held = policy({ rawPayloads: "needs_approval", adminKeys: [ADMIN] });
    expect(evaluatePolicy(held, { kind: "rawPayload" }).effect).toBe("needs_approval");
  });

  it("refuses configs that could never work", () => {
    const issues = (config: unknown) => {
      const r = signingPolicySchema.safeParse(config);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    expect(issues({ rules: [{ id: "a", effect: "needs_approval" }] })).toEqual([
      "adminKeys: a policy that holds signatures for approval needs at least one admin key to approve them",
    ]);
    expect(
      issues({
        rules: [
          { id: "a", effect: "deny" },
          { id: "a", effect: "allow" },
        ],
      }),
    ).toEqual(["rules.1.id: rule a is listed twice"]);
    expect(issues({ rules: [{ id: "a", effect: "deny", valueAboveWei: 5 }] })[0]).toContain("decimal string");
    expect(issues({ rules: [{ id: "a", effect: "deny", contracts: ["0x12"] }] })[0]).toContain("EVM address");
    expect(issues({ rules: [{ id: "a", effect: "maybe" }] })[0]).toContain("rules.0.effect");
    expect(issues({ adminKeys: [{ name: "x", publicKey: "04ab" }] })[0]).toContain("compressed P-256");
    expect(issues({ rules: [{ id: "a", effect: "deny", to: BURN }] })[0]).toContain("rules.0");
  });
});
