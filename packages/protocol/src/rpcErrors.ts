/**
 * Numeric codes of the service's JSON-RPC endpoint (`POST /rpc/v1`): JSON-RPC 2.0's own and EIP-1474's.
 * viem retries `LIMIT_EXCEEDED` and `INTERNAL_ERROR` (as it would a rate limit) before it gives up.
 */
export const RpcErrorCode = {
  /** The body is not JSON. */
  PARSE_ERROR: -32700,
  /** Not a JSON-RPC 2.0 request (or batch of them). */
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  /**
   * The params are malformed, or name an unknown policy, another chain or another EntryPoint; or the
   * Solana transaction does not decode, is too large or loads accounts from lookup tables.
   */
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /**
   * Sponsorship cannot be served now: the chain is not set up for it, its node does not answer, or the
   * Solana fee payer cannot pay.
   */
  RESOURCE_UNAVAILABLE: -32002,
  /**
   * The policy refuses this operation: its sender, a call target or selector, its gas or cost; for Solana
   * a program or instruction, lamports moved, the fee, a use of the fee payer, or a stale blockhash; or
   * the request does not prove the user it would be charged to.
   */
  TRANSACTION_REJECTED: -32003,
  /** A daily limit of the policy is reached (per user or per app). */
  LIMIT_EXCEEDED: -32005,
} as const;
export type RpcErrorCode = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

/**
 * Stable reasons of the RPC endpoint's errors, in `error.data.code` (the numeric `error.code` is the
 * JSON-RPC class of the error, shared by several reasons).
 */
export const SponsorshipErrorCode = {
  INVALID_JSON: "INVALID_JSON",
  INVALID_REQUEST: "INVALID_REQUEST",
  METHOD_NOT_FOUND: "METHOD_NOT_FOUND",
  INVALID_PARAMS: "INVALID_PARAMS",
  /** `context.policyId` (Solana: `policyId`) names no policy of this app, of that kind. */
  POLICY_NOT_FOUND: "POLICY_NOT_FOUND",
  /** The chain id param is not the policy's chain. */
  WRONG_CHAIN: "WRONG_CHAIN",
  /** The EntryPoint param is not the chain's EntryPoint v0.8. */
  UNSUPPORTED_ENTRY_POINT: "UNSUPPORTED_ENTRY_POINT",
  /** The policy's chain is not configured, or has no paymaster. */
  SPONSORSHIP_UNAVAILABLE: "SPONSORSHIP_UNAVAILABLE",
  /** The chain's node did not answer. */
  CHAIN_UNAVAILABLE: "CHAIN_UNAVAILABLE",
  /**
   * The sender is not a SimpleAccount of the configured factory, nor a 7702 account delegating (by its code
   * or its `eip7702Auth`) to one of the policy's `allowedImplementations`.
   */
  UNSUPPORTED_ACCOUNT: "UNSUPPORTED_ACCOUNT",
  /**
   * The account's owner (a 7702 account: the sender itself) is not an embedded wallet of this app's users;
   * for Solana, no signer of the
   * transaction (besides the fee payer) is a Solana account of this app's users.
   */
  UNKNOWN_SENDER: "UNKNOWN_SENDER",
  /** A call goes to a contract the policy does not allow. */
  TARGET_NOT_ALLOWED: "TARGET_NOT_ALLOWED",
  /** A call uses a function (selector) the policy does not allow for its target. */
  SELECTOR_NOT_ALLOWED: "SELECTOR_NOT_ALLOWED",
  /** The call data is not `execute` or `executeBatch`, so its calls cannot be checked against the policy. */
  CALL_DATA_NOT_ALLOWED: "CALL_DATA_NOT_ALLOWED",
  /** The operation's gas or maximum cost is above the policy's per-operation limit (`data.limit`). */
  OPERATION_LIMIT_EXCEEDED: "OPERATION_LIMIT_EXCEEDED",
  /** A daily limit (`data.limit`, e.g. operationsPerUserPerDay) is reached until `data.resetsAt`. */
  DAILY_LIMIT_EXCEEDED: "DAILY_LIMIT_EXCEEDED",
  /**
   * Solana: `serializedTransaction` is not a base64 legacy or v0 wire transaction the runtime would accept
   * (it does not decode, an index points nowhere, an account is listed twice, it is above 1232 bytes).
   */
  SOLANA_TRANSACTION_INVALID: "SOLANA_TRANSACTION_INVALID",
  /** Solana: a v0 transaction loads accounts from address lookup tables, which could hide the fee payer. */
  SOLANA_LOOKUP_TABLES_NOT_SUPPORTED: "SOLANA_LOOKUP_TABLES_NOT_SUPPORTED",
  /** Solana: an instruction calls a program the policy does not allow (`data.programId`, `data.instruction`). */
  PROGRAM_NOT_ALLOWED: "PROGRAM_NOT_ALLOWED",
  /** Solana: an instruction's data starts with none of the prefixes the policy allows for its program. */
  INSTRUCTION_NOT_ALLOWED: "INSTRUCTION_NOT_ALLOWED",
  /**
   * Solana: an instruction names the service's fee payer (as an account or a program), so it could debit,
   * assign or close it: the fee payer pays the fee and nothing else.
   */
  FEE_PAYER_MISUSE: "FEE_PAYER_MISUSE",
  /** Solana: the System program instructions move more lamports than the policy's `lamportsPerTransaction`. */
  LAMPORTS_LIMIT_EXCEEDED: "LAMPORTS_LIMIT_EXCEEDED",
  /** Solana: the fee (signatures and priority fee) is above the policy's `feeLamportsPerTransaction`. */
  FEE_LIMIT_EXCEEDED: "FEE_LIMIT_EXCEEDED",
  /** Solana: the fee payer's balance on the configured node cannot pay this fee (the operator must fund it). */
  SOLANA_SPONSORSHIP_UNAVAILABLE: "SOLANA_SPONSORSHIP_UNAVAILABLE",
  /** Solana: the configured node says the transaction's blockhash is no longer valid; build it again. */
  SOLANA_BLOCKHASH_EXPIRED: "SOLANA_BLOCKHASH_EXPIRED",
  /**
   * The policy has per-user daily limits and the request proves no user: stamp it with the user's session
   * key (`X-Stamp` over the exact body), as the shipped client does.
   */
  USER_STAMP_REQUIRED: "USER_STAMP_REQUIRED",
  /**
   * The request is stamped by one user's session and asks for another's operation: the sender's owner
   * (EVM) is not the stamp's user, or the stamp's user signs nothing in the transaction (Solana).
   */
  STAMP_USER_MISMATCH: "STAMP_USER_MISMATCH",
  /**
   * The operation's (or the Solana transaction's) user is disabled by an admin of the app: nothing of
   * theirs is sponsored until they are enabled again.
   */
  USER_DISABLED: "USER_DISABLED",
  /**
   * import_wallet: the encrypted bundle is malformed, names no import key of this user (from
   * init_import_wallet), or does not open with it.
   */
  INVALID_IMPORT_BUNDLE: "INVALID_IMPORT_BUNDLE",
  /** import_wallet: the import key was used already (each key imports once); ask for a new one. */
  IMPORT_KEY_USED: "IMPORT_KEY_USED",
  /** import_wallet: the import key is past its life (`IMPORT_KEY_TTL_MS`); ask for a new one. */
  IMPORT_KEY_EXPIRED: "IMPORT_KEY_EXPIRED",
  /** import_wallet: the sealed secret is not a 12- or 24-word BIP-39 phrase, or not a key of its kind. */
  INVALID_IMPORT_SECRET: "INVALID_IMPORT_SECRET",
  /** import_wallet: the imported accounts are already in this user's account. */
  WALLET_ALREADY_IMPORTED: "WALLET_ALREADY_IMPORTED",
  /** Admin API pregenerate_user: the external id is another user's (with another email). */
  EXTERNAL_ID_IN_USE: "EXTERNAL_ID_IN_USE",
  INTERNAL: "INTERNAL",
} as const;
export type SponsorshipErrorCode = (typeof SponsorshipErrorCode)[keyof typeof SponsorshipErrorCode];
