/**
 * What the service is asked to sign, as a signing policy reads it. Built by transactionSigningRequest,
 * payloadSigningRequest and typedDataRequest; callsOf.ts reads the calls it makes.
 */

/** A call an account makes: a transaction's, or one of a user operation's. */
export interface Call {
  /** Lower-case; null for a contract creation. */
  to: `0x${string}` | null;
  /** The call data (0x for none). */
  data: `0x${string}`;
  value: bigint;
}

/** An allowance a signature grants: an `approve` call, or a permit (EIP-2612, DAI, Permit2). */
export interface Approval {
  /** Lower-case addresses. */
  token: `0x${string}`;
  spender: `0x${string}`;
  amount: bigint;
}

/** Tokens a signature itself moves (an EIP-3009 authorization): to `to`, `amount` of `token`. */
export interface TokenTransfer {
  /** Lower-case addresses. */
  token: `0x${string}`;
  to: `0x${string}`;
  amount: bigint;
}

/** What the service is asked to sign, as a policy sees it. */
export type SigningRequest =
  | ({
      kind: "transaction";
      /** Undefined for a legacy transaction without EIP-155 replay protection (valid on every chain). */
      chainId: number | undefined;
      /** The delegates of an EIP-7702 transaction's authorization list (lower-case). */
      delegates?: `0x${string}`[];
      /**
       * The EVM account that signs (lower-case): a call to it, or to its smart accounts, is read as the
       * calls they run for it (callsOf.ts). Left out: no account is known to be the signer's.
       */
      signer?: `0x${string}`;
    } & Call)
  | {
      /**
       * An ERC-4337 PackedUserOperation (EIP-712): the calls the EntryPoint makes to its account, one
       * call to `sender` with the operation's `callData` (callsOf.ts reads what the account runs).
       */
      kind: "userOperation";
      chainId: number | undefined;
      sender: `0x${string}`;
      calls: Call[];
      /** The account's owner that signs (lower-case), as for a transaction. */
      signer?: `0x${string}`;
    }
  | {
      /** Other EIP-712 typed data; a permit's approvals are decided as `approve` calls. */
      kind: "typedData";
      chainId: number | undefined;
      primaryType: string;
      verifyingContract: `0x${string}` | null;
      approvals: Approval[];
      /**
       * The tokens it lets anyone who holds the signature move (EIP-3009 `transferWithAuthorization`,
       * `receiveWithAuthorization`): read by grants' token limits (features/grants/tokenMoves.ts).
       */
      transfers?: TokenTransfer[];
    }
  | { kind: "authorization"; chainId: number; delegate: `0x${string}` }
  /** An EIP-191 message (personal_sign). */
  | { kind: "message" }
  /** A bare digest on an EVM account: nothing a rule can read. */
  | { kind: "rawPayload" }
  /** Bytes for a Solana (ed25519) account. */
  | { kind: "solanaPayload" }
  /** Several payloads signed in one activity (sign_raw_payloads): the strictest decides. */
  | { kind: "several"; requests: SigningRequest[] };
