import type { PreviewSimulation } from "@latchkey/protocol";
import { argsOf } from "./callArgs";
import { type CallsRead, callsOf, MAX_CALL_DEPTH, type PolicyCall } from "./callsOf";
import {
  SIMPLE_7702_ACCOUNT,
  type SigningPolicy,
  type SigningPolicyEffect,
  type SigningPolicyRule,
  signingPolicySchema,
} from "./policySchema";
import type { Call, SigningRequest } from "./signingRequest";

export type { Approval, Call, SigningRequest } from "./signingRequest";

/** The policy's answer: sign now, refuse (REJECTED), or hold until an app admin decides (CONSENSUS_NEEDED). */
export type PolicyDecision =
  | { effect: "allow"; ruleId?: string }
  | { effect: "deny" | "needs_approval"; ruleId: string; message: string };

/** The rule id a decision names when no rule matched and one of the policy's settings decided. */
export const DEFAULT_RULE_ID = "default";
export const RAW_PAYLOADS_RULE_ID = "rawPayloads";
export const MESSAGES_RULE_ID = "messages";
export const TYPED_DATA_RULE_ID = "typedData";
export const SOLANA_PAYLOADS_RULE_ID = "solanaPayloads";
export const AUTHORIZATION_DELEGATES_RULE_ID = "authorizationDelegates";
/** A call to the user's own account whose effect cannot be read (callsOf.ts `unreadable`). */
export const OWN_ACCOUNT_CALLS_RULE_ID = "ownAccountCalls";

/** What the service learnt of a signature besides its request: its simulation (simulation/simulate.ts). */
export interface PolicyContext {
  /** Left out: no simulation was asked for; a `netOutflowAbove` rule then fails closed too. */
  simulation?: PreviewSimulation;
}

/** Whether a policy has rules that read a simulation (`netOutflowAbove`): the service simulates for them. */
export function needsSimulation(policy: SigningPolicy | undefined): boolean {
  return policy?.rules.some((r) => r.netOutflowAbove !== undefined) ?? false;
}

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
const APPROVE = "0x095ea7b3";
/** An app without a signing policy: everything is signed, but only Simple7702Account is delegated to. */
const NO_POLICY = signingPolicySchema.parse({});

/**
 * Decides a signature under an app's signing policy (none: the empty policy). Rules are about the calls
 * a signature can make (callsOf.ts): a transaction, each call of a user operation, a permit as the
 * `approve(spender, amount)` call on its token — and, for a call to the signer's own account (its EOA,
 * its SimpleAccount, a user operation's sender), the calls that account runs (`execute`,
 * `executeBatch`, nested up to MAX_CALL_DEPTH) instead. Every rule that matches a call is considered,
 * and the strictest effect wins: `deny` beats `needs_approval`, which beats `allow`; a call no rule
 * matches gets `default`. So an allow rule never lifts a deny rule, whatever their order. A request of
 * several calls takes its strictest call's answer; a deny or needs_approval rule with `valueAboveWei`
 * also applies when the values of all the calls that meet its other conditions add up to more.
 *
 * A call to the signer's own account whose effect cannot be read (not `execute`/`executeBatch`, or
 * nested deeper) is refused (`ownAccountCalls`) when the app has rules (any rule, or `default: "deny"`).
 *
 * Other typed data is matched only by rules that name `primaryTypes`, else `typedData` decides. An
 * EIP-7702 authorization (alone or in a type-4 transaction) is refused unless its delegate is in
 * `authorizationDelegates`. EIP-191 messages follow `messages`; bare digests `rawPayloads`; Solana
 * payloads `solanaPayloads`.
 *
 * A transaction without a chain id (legacy, before EIP-155) can be sent on any chain: it matches the
 * `chainIds` of every deny and needs_approval rule, and of no allow rule.
 *
 * @example
 * evaluatePolicy(policy, { kind: "transaction", chainId: 1, to, data: "0x", value: 10n ** 18n });
 * // → { effect: "deny", ruleId: "cap", message: 'Refused by signing policy rule "cap": …' }
 */
export function evaluatePolicy(
  policy: SigningPolicy | undefined,
  request: SigningRequest,
  context: PolicyContext = {},
): PolicyDecision {
  const p = policy ?? NO_POLICY;
  switch (request.kind) {
    case "several":
      return strictest(request.requests.map((r) => evaluatePolicy(p, r, context)));
    case "rawPayload":
      return setting(
        p.rawPayloads,
        RAW_PAYLOADS_RULE_ID,
        "bare hashes (raw payloads), which no rule can read",
      );
    case "solanaPayload":
      // Stored before solanaPayloads existed: rawPayloads decided them.
      return setting(p.solanaPayloads ?? p.rawPayloads, SOLANA_PAYLOADS_RULE_ID, "Solana payloads");
    case "message":
      return setting(p.messages ?? "allow", MESSAGES_RULE_ID, "messages (EIP-191)");
    case "authorization": {
      const delegated = delegation(p, [request.delegate]);
      if (delegated.effect !== "allow") return delegated;
      // Rules that read the delegate (args.delegateIn / delegateNotIn) decide an authorization too.
      const subject: Subject = {
        chainId: request.chainId,
        call: { to: request.delegate, data: "0x", value: 0n },
        delegates: [request.delegate],
      };
      const rules = p.rules.filter((r) => r.args?.delegateIn || r.args?.delegateNotIn);
      return byRules({ ...p, rules }, subject) ?? { effect: "allow" };
    }
    case "transaction": {
      const delegated = delegation(p, request.delegates ?? []);
      if (delegated.effect !== "allow") return delegated;
      return decideCalls(p, request.chainId, callsOf(request), context, request.delegates);
    }
    case "userOperation":
      return decideCalls(p, request.chainId, callsOf(request), context);
    case "typedData": {
      const { chainId, primaryType } = request;
      if (request.approvals.length > 0) return decideCalls(p, chainId, callsOf(request));
      const subject: Subject = {
        chainId,
        primaryType,
        typedDataOnly: true,
        call: { to: request.verifyingContract, data: "0x", value: 0n },
      };
      const decision = byRules(p, subject);
      if (decision) return decision;
      return setting(p.typedData ?? "allow", TYPED_DATA_RULE_ID, "typed data no rule allows");
    }
  }
}

/** What a rule is matched against: one call, with what typed data adds. */
interface Subject {
  chainId: number | undefined;
  call: Call;
  /** The typed data's primary type, when the call comes from typed data. */
  primaryType?: string;
  /** Typed data that is no call: only rules naming `primaryTypes` match it. */
  typedDataOnly?: boolean;
  /** The EIP-7702 delegates the signature names (args.delegateIn / delegateNotIn). */
  delegates?: readonly string[];
}

/**
 * The calls' answer: each call's (its rules, else `default`), and each deny or needs_approval rule
 * whose `valueAboveWei` the calls meeting its other conditions exceed together.
 */
function decideCalls(
  policy: SigningPolicy,
  chainId: number | undefined,
  read: CallsRead,
  context: PolicyContext = {},
  delegates?: readonly string[],
): PolicyDecision {
  if (read.unreadable && (policy.rules.length > 0 || policy.default === "deny"))
    return {
      effect: "deny",
      ruleId: OWN_ACCOUNT_CALLS_RULE_ID,
      message:
        `Refused by the signing policy: the call to the user's own account ${read.unreadable.to} runs ` +
        `something other than execute or executeBatch (or nests them more than ${MAX_CALL_DEPTH} deep), which no rule can read`,
    };
  const subjects = read.calls.map((call) => ({
    ...subjectOf(chainId, call),
    ...(delegates?.length ? { delegates } : {}),
  }));
  const decisions = subjects.map((subject) => decideCall(policy, subject));
  for (const rule of policy.rules) {
    if (rule.netOutflowAbove === undefined) continue;
    // A rule on the simulated outcome: one of the calls meets its other conditions, and the signer's
    // net outflow of the asset is above the amount. Without a simulation it fails closed.
    if (!subjects.some((subject) => matches(rule, subject, { anyValue: true, outcome: true }))) continue;
    const outflow = netOutflow(context.simulation, rule.netOutflowAbove.asset);
    if (outflow === null) {
      if (rule.effect !== "allow") decisions.push(withoutSimulation(rule, context.simulation));
      continue;
    }
    if (outflow > BigInt(rule.netOutflowAbove.amount)) decisions.push(ruleDecision(rule));
  }
  for (const rule of policy.rules) {
    if (rule.effect === "allow" || rule.valueAboveWei === undefined || rule.netOutflowAbove) continue;
    const total = subjects
      .filter((subject) => matches(rule, subject, { anyValue: true }))
      .reduce((sum, subject) => sum + subject.call.value, 0n);
    if (total > BigInt(rule.valueAboveWei)) decisions.push(ruleDecision(rule));
  }
  return strictest(decisions);
}

function subjectOf(chainId: number | undefined, call: PolicyCall): Subject {
  const { primaryType, ...rest } = call;
  return primaryType === undefined ? { chainId, call: rest } : { chainId, primaryType, call: rest };
}

function decideCall(policy: SigningPolicy, subject: Subject): PolicyDecision {
  const decision = byRules(policy, subject);
  if (decision) return decision;
  if (policy.default === "allow") return { effect: "allow" };
  return {
    effect: "deny",
    ruleId: DEFAULT_RULE_ID,
    message: "Refused by the signing policy: no rule allows this transaction",
  };
}

/** The strictest matching rule's decision, or undefined when no rule matches. */
function byRules(policy: SigningPolicy, subject: Subject): PolicyDecision | undefined {
  const matching = policy.rules.filter((rule) => matches(rule, subject));
  const rule =
    matching.find((r) => r.effect === "deny") ??
    matching.find((r) => r.effect === "needs_approval") ??
    matching.find((r) => r.effect === "allow");
  return rule && ruleDecision(rule);
}

/** The signer's net loss of `asset` the simulation shows (0 when it gains); null without a simulation. */
function netOutflow(simulation: PreviewSimulation | undefined, asset: string): bigint | null {
  if (simulation?.status !== "ok") return null;
  if (simulation.reverts) return 0n;
  const change = simulation.balanceChanges.find((c) => c.asset === asset);
  const delta = change ? BigInt(change.delta) : 0n;
  return delta < 0n ? -delta : 0n;
}

/** A `netOutflowAbove` rule that cannot be decided without a simulation: it fails closed, naming itself. */
function withoutSimulation(
  rule: SigningPolicyRule,
  simulation: PreviewSimulation | undefined,
): PolicyDecision {
  const why =
    simulation?.status === "unavailable"
      ? `the simulation is unavailable (${simulation.reason}${simulation.message ? `: ${simulation.message}` : ""})`
      : "no simulation was made";
  const what = `rule "${rule.id}" needs a simulation of this signature's outcome, and ${why}`;
  return rule.effect === "deny"
    ? { effect: "deny", ruleId: rule.id, message: `Refused by the signing policy: ${what}` }
    : {
        effect: "needs_approval",
        ruleId: rule.id,
        message: `Held by the signing policy until an app admin approves it: ${what}`,
      };
}

function ruleDecision(rule: SigningPolicyRule): PolicyDecision {
  if (rule.effect === "allow") return { effect: "allow", ruleId: rule.id };
  if (rule.effect === "deny") return { effect: "deny", ruleId: rule.id, message: refusal(rule) };
  return {
    effect: "needs_approval",
    ruleId: rule.id,
    message: `Held by signing policy rule "${rule.id}" until an app admin approves it${
      rule.description ? `: ${rule.description}` : ""
    }`,
  };
}

function delegation(policy: SigningPolicy, delegates: `0x${string}`[]): PolicyDecision {
  const allowed = policy.authorizationDelegates ?? [SIMPLE_7702_ACCOUNT];
  const refused = delegates.find((d) => d !== ZERO_ADDRESS && !allowed.includes(d.toLowerCase() as never));
  if (!refused) return { effect: "allow" };
  return {
    effect: "deny",
    ruleId: AUTHORIZATION_DELEGATES_RULE_ID,
    message: `Refused by the signing policy: ${refused} is not an EIP-7702 delegate this app allows (authorizationDelegates)`,
  };
}

function setting(effect: SigningPolicyEffect, ruleId: string, what: string): PolicyDecision {
  if (effect === "allow") return { effect: "allow" };
  return {
    effect,
    ruleId,
    message:
      effect === "deny"
        ? `Refused by the signing policy: this app does not sign ${what}`
        : `Held by the signing policy: this app's ${what} wait for an app admin's approval`,
  };
}

const RANK = { allow: 0, needs_approval: 1, deny: 2 } as const;

/** The strictest of several decisions (the first of equals); allow when there are none. */
function strictest(decisions: PolicyDecision[]): PolicyDecision {
  let worst: PolicyDecision = decisions[0] ?? { effect: "allow" };
  for (const d of decisions) if (RANK[d.effect] > RANK[worst.effect]) worst = d;
  return worst;
}

function refusal(rule: SigningPolicyRule): string {
  return `Refused by signing policy rule "${rule.id}"${rule.description ? `: ${rule.description}` : ""}`;
}

/**
 * The spender and amount of an ERC-20 `approve(address,uint256)` call; null for any other call. Read as
 * the token's ABI decoder reads it: bytes after the two words are ignored, and the spender is the low
 * 20 bytes of its word (ABI coder v1 drops the rest, v2 reverts), so neither hides an approval from a rule.
 */
function approvalOf(data: `0x${string}`): { spender: `0x${string}`; amount: bigint } | null {
  const d = data.toLowerCase();
  if (d.length < 138 || !d.startsWith(APPROVE)) return null;
  return { spender: `0x${d.slice(34, 74)}`, amount: BigInt(`0x${d.slice(74, 138)}`) };
}

/**
 * Whether the rule matches the call; with `anyValue`, whatever its `valueAboveWei` says. A rule on the
 * simulated outcome (`netOutflowAbove`) is decided for the whole signature (decideCalls), never per call,
 * unless `outcome` asks whether the call meets its other conditions.
 */
function matches(
  rule: SigningPolicyRule,
  subject: Subject,
  opts: { anyValue?: boolean; outcome?: boolean } = {},
): boolean {
  const { call: tx, chainId } = subject;
  if (rule.netOutflowAbove && !opts.outcome) return false;
  if (rule.primaryTypes) {
    if (!subject.primaryType || !rule.primaryTypes.includes(subject.primaryType)) return false;
  } else if (subject.typedDataOnly) return false;
  if (rule.chainIds) {
    if (chainId === undefined) {
      if (rule.effect === "allow") return false;
    } else if (!rule.chainIds.includes(chainId)) return false;
  }
  if (rule.contracts && (tx.to === null || !rule.contracts.includes(tx.to))) return false;
  if (rule.selectors) {
    const data = tx.data.toLowerCase();
    if (data.length < 10 || !rule.selectors.includes(data.slice(0, 10))) return false;
  }
  if (!opts.anyValue && rule.valueAboveWei !== undefined && !(tx.value > BigInt(rule.valueAboveWei)))
    return false;
  if (rule.spenders || rule.amountAbove !== undefined) {
    const approval = approvalOf(tx.data);
    if (!approval) return false;
    if (rule.spenders && !rule.spenders.includes(approval.spender)) return false;
    if (rule.amountAbove !== undefined && !(approval.amount > BigInt(rule.amountAbove))) return false;
  }
  if (rule.args && !argsMatch(rule.args, tx, subject.delegates ?? [])) return false;
  return true;
}

/** Whether the call's decoded arguments (callArgs.ts) meet every condition of a rule's `args`. */
function argsMatch(
  args: NonNullable<SigningPolicyRule["args"]>,
  call: Call,
  delegates: readonly string[],
): boolean {
  const read = argsOf(call);
  if (args.recipientIn && !read.recipients.some((r) => args.recipientIn?.includes(r as never))) return false;
  if (args.recipientNotIn && !read.recipients.some((r) => !args.recipientNotIn?.includes(r as never)))
    return false;
  if (args.amountAbove) {
    const { token, amount } = args.amountAbove;
    if (!read.amounts.some((a) => a.token === token && a.amount > BigInt(amount))) return false;
  }
  if (args.spenderIn && !read.spenders.some((r) => args.spenderIn?.includes(r as never))) return false;
  if (args.spenderNotIn && !read.spenders.some((r) => !args.spenderNotIn?.includes(r as never))) return false;
  if (args.delegateIn && !delegates.some((d) => args.delegateIn?.includes(d.toLowerCase() as never)))
    return false;
  if (args.delegateNotIn && !delegates.some((d) => !args.delegateNotIn?.includes(d.toLowerCase() as never)))
    return false;
  return true;
}
