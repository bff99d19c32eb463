import type { GrantPermissions } from "@latchkey/protocol";
import { describe, expect, it } from "vitest";
import type { SigningRequest } from "../../keyManagement/policies/signingRequest";
import { chainOf, decideUnderGrant, GRANT_RULES, grantPolicy } from "./grantPolicy";

const TOKEN = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const OTHER = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const TRANSFER = "0xa9059cbb";
const ETH = 10n ** 18n;

const grant = (over: Partial<GrantPermissions> = {}): GrantPermissions => ({
  chainIds: [1],
  valuePerTransaction: ETH.toString(),
  expiresAt: Date.now() + 3_600_000,
  messages: false,
  typedData: false,
  ...over,
});
const tx = (over: Partial<Extract<SigningRequest, { kind: "transaction" }>> = {}): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to: TOKEN,
  data: "0x",
  value: 0n,
  ...over,
});
const typed = (chainId: number | undefined): SigningRequest => ({
  kind: "typedData",
  chainId,
  primaryType: "Mail",
  verifyingContract: TOKEN,
  approvals: [],
});

describe("grantPolicy", () => {
  it("allows a call on the grant's chains up to its value per transaction", () => {
    expect(decideUnderGrant(grant(), tx({ value: ETH }))).toEqual({ effect: "allow", ruleId: "grant.scope" });
  });

  it("refuses one wei more than the value per transaction, and the sum of several calls above it", () => {
    expect(decideUnderGrant(grant(), tx({ value: ETH + 1n }))).toMatchObject({
      effect: "deny",
      ruleId: GRANT_RULES.value,
    });
    const two: SigningRequest = {
      kind: "userOperation",
      chainId: 1,
      sender: OTHER,
      calls: [
        { to: TOKEN, data: "0x", value: ETH / 2n + 1n },
        { to: TOKEN, data: "0x", value: ETH / 2n },
      ],
    };
    expect(decideUnderGrant(grant(), two)).toMatchObject({ effect: "deny", ruleId: GRANT_RULES.value });
  });

  it("refuses a chain the grant does not name, and a call it does not scope (default deny)", () => {
    expect(decideUnderGrant(grant(), tx({ chainId: 10 }))).toMatchObject({
      effect: "deny",
      ruleId: "default",
    });
    const scoped = grant({ contracts: [TOKEN], selectors: [TRANSFER] });
    expect(decideUnderGrant(scoped, tx({ to: OTHER, data: `${TRANSFER}00` }))).toMatchObject({
      effect: "deny",
      ruleId: "default",
    });
    expect(decideUnderGrant(scoped, tx({ data: "0x095ea7b3" }))).toMatchObject({
      effect: "deny",
      ruleId: "default",
    });
    expect(decideUnderGrant(scoped, tx({ data: `${TRANSFER}00` }))).toEqual({
      effect: "allow",
      ruleId: GRANT_RULES.scope,
    });
  });

  it("leaves contracts and selectors open when the grant names none", () => {
    const rules = grantPolicy(grant()).rules;
    expect(rules[1]).not.toHaveProperty("contracts");
    expect(rules[1]).not.toHaveProperty("selectors");
    expect(decideUnderGrant(grant(), tx({ to: OTHER, data: "0x12345678" }))).toMatchObject({
      effect: "allow",
    });
  });

  it("signs messages and typed data only when the grant says so", () => {
    expect(decideUnderGrant(grant(), { kind: "message" })).toMatchObject({
      effect: "deny",
      ruleId: "messages",
    });
    expect(decideUnderGrant(grant({ messages: true }), { kind: "message" })).toEqual({ effect: "allow" });
    expect(decideUnderGrant(grant(), typed(1))).toMatchObject({ effect: "deny", ruleId: "typedData" });
    expect(decideUnderGrant(grant({ typedData: true }), typed(1))).toEqual({ effect: "allow" });
  });

  it("never signs bare digests, Solana payloads or EIP-7702 delegations", () => {
    const all = grant({ messages: true, typedData: true });
    expect(decideUnderGrant(all, { kind: "rawPayload" })).toMatchObject({ effect: "deny" });
    expect(decideUnderGrant(all, { kind: "solanaPayload" })).toMatchObject({ effect: "deny" });
    expect(
      decideUnderGrant(all, {
        kind: "authorization",
        chainId: 1,
        delegate: "0xe6cae83bde06e4c305530e199d7217f42808555b",
      }),
    ).toMatchObject({ effect: "deny", ruleId: "authorizationDelegates" });
  });

  it("refuses typed data for another chain, or for no chain", () => {
    const g = grant({ typedData: true });
    expect(decideUnderGrant(g, typed(10))).toEqual({
      effect: "deny",
      ruleId: GRANT_RULES.chain,
      message: "The grant does not cover chain 10",
    });
    expect(decideUnderGrant(g, typed(undefined))).toEqual({
      effect: "deny",
      ruleId: GRANT_RULES.chain,
      message: "The grant does not cover typed data whose domain names no chain (valid on every chain)",
    });
    // A transaction without a chain id is decided by the rules (and no allow rule matches it).
    expect(decideUnderGrant(g, tx({ chainId: undefined }))).toMatchObject({
      effect: "deny",
      ruleId: "default",
    });
  });

  it("names a request's chain when it has one", () => {
    expect(chainOf(tx({ chainId: 5 }))).toBe(5);
    expect(chainOf({ kind: "message" })).toBeUndefined();
  });
});
