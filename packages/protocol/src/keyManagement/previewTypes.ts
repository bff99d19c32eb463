/**
 * What a signature does, before it is made (issue 46, "what you sign is what you see"): the types of the
 * service's `preview_signing` answer and of the preview a held activity carries for the app's admins
 * (schemas in preview.ts). Plain types, so that a client imports them without a schema library.
 */

/** A JSON value: what a decoded action's fields become on the wire. */
export type PreviewJson = string | number | boolean | null | PreviewJson[] | { [key: string]: PreviewJson };

/**
 * One thing the signature does: the decoder's `Action` in JSON form (`kind` plus its fields; every
 * `bigint` as a decimal string, e.g. `{kind: "erc20Transfer", token: {address, symbol, decimals}, to,
 * amount: "1500000"}`).
 */
export type PreviewAction = { kind: string } & { [key: string]: PreviewJson };
/** A reason to look twice: the decoder's `Warning` in JSON form (bigints as decimal strings). */
export type PreviewWarning = { kind: string } & { [key: string]: PreviewJson };

/** The decoded request in sentences, in the language asked: the same words the modal, console and CLI show. */
export interface PreviewSummary {
  title: string;
  /** One line per action; `depth` > 0 for the calls a smart account runs. */
  lines: { text: string; depth: number }[];
  /** One sentence per warning. */
  warnings: string[];
}

/** How the signer's balance of one asset changes if what is signed is sent now. */
export interface PreviewBalanceChange {
  /** "native" (the chain's currency, in wei) or an ERC-20 token's address (lower-case). */
  asset: "native" | `0x${string}`;
  /** The token's symbol and decimals, read from the chain (cached) when it answers. */
  symbol?: string;
  decimals?: number;
  /** Raw units, as a signed decimal string: negative is an outflow. */
  delta: string;
}

/**
 * What the chain said of the transaction (or the user operation's calls) before it is signed:
 * `ok` with whether it reverts and the signer's balance changes (native and ERC-20), or `unavailable`
 * with why. An unavailable simulation never blocks a signature, except where a policy rule needs one
 * (`netOutflowAbove`): that rule then fails closed.
 */
export type PreviewSimulation =
  | {
      status: "ok";
      reverts: boolean;
      /** The revert's reason string, when the contract gave one. */
      revertReason?: string;
      balanceChanges: PreviewBalanceChange[];
      /** How it was simulated: the node's `eth_simulateV1`, or `debug_traceCall` where the node lacks it. */
      method?: "eth_simulateV1" | "debug_traceCall";
    }
  | {
      status: "unavailable";
      /**
       * noRpc: the app configures no RPC for this chain; unsupported: the node can simulate neither way;
       * timeout: the node did not answer in time; error: it answered an error; notApplicable: nothing to
       * simulate (a message, typed data other than a user operation, a bare digest, Solana).
       */
      reason: "noRpc" | "unsupported" | "timeout" | "error" | "notApplicable";
      message?: string;
    };

/** What the app's signing policy decides for this request now (asked, not recorded). */
export interface PreviewPolicy {
  /** allow: signed at once; deny: refused; needs_approval: held for the app's admins. */
  effect: "allow" | "deny" | "needs_approval";
  /** The rule that decided, when one did (none: the policy's default, or no policy). */
  ruleId?: string;
  /** The rule's description (or why it denies). */
  description?: string;
}

/**
 * What a signature does, as the signer's service sees it before signing:
 * - `chainId`: the chain it is for, when it names one;
 * - `kind`: what is signed: a transaction, an ERC-4337 user operation, other EIP-712 typed data, an EIP-191
 *   message, an EIP-7702 authorization, a Solana transaction, or a bare digest (`raw`);
 * - `actions`, `warnings`: the decoder's reading, as JSON (bigints as decimal strings);
 * - `summary`: the same in sentences, in the language asked;
 * - `simulation`: the chain's answer (revert, balance changes) or why there is none;
 * - `policy`: the app's signing policy's decision and the rule behind it.
 * Several payloads (`sign_raw_payloads`) are one preview: their actions, warnings and lines in order, the
 * kind of the first, and the strictest decision.
 */
export interface SigningPreview {
  chainId?: number;
  kind:
    | "transaction"
    | "userOperation"
    | "typedData"
    | "message"
    | "authorization"
    | "solanaTransaction"
    | "raw";
  actions: PreviewAction[];
  warnings: PreviewWarning[];
  summary: PreviewSummary;
  simulation: PreviewSimulation;
  policy: PreviewPolicy;
}

/**
 * Where a held signature stands with the app's admins (`approvals: { required: N }` in the app's signing
 * policy; 1 by default): who approved it so far (each admin once: an admin key by its name, a console
 * admin by theirs), and how many approvals it needs.
 */
export interface ActivityApprovals {
  required: number;
  approvedBy: { admin: string; approvedAt: { seconds: string; nanos: string } }[];
}
