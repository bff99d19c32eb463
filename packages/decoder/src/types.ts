import type { Address, Hex } from "viem";

/**
 * What the decoder knows of a token contract: read from the chain by a `TokenInfoReader`, or given by
 * the app's token list. Any field may be missing (a contract without `symbol()`, a revert, no reader).
 */
export interface TokenInfo {
  chainId: number;
  address: Address;
  symbol?: string;
  name?: string;
  decimals?: number;
  /** `decimals()` answered → erc20; else ERC-165 said ERC-721 → erc721; else unknown. */
  standard?: "erc20" | "erc721";
}

/** A token an action names, with what is known of it when it was decoded. */
export interface TokenRef {
  address: Address;
  symbol?: string;
  name?: string;
  decimals?: number;
}

/** A known contract the caller names: an allow-listed delegate, a known spender. */
export type KnownAddress = Address | { address: Address; name: string };

/**
 * One thing a call does. EVM actions carry the contract (`token`) they call; amounts are raw units
 * (`bigint`); a summary formats them with the token's decimals when known.
 */
export type Action =
  | { kind: "nativeTransfer"; to: Address; value: bigint }
  | { kind: "contractCreation"; value: bigint }
  /** `transfer(to, amount)`, or `transferFrom(from, to, amount)` on a token known to be ERC-20. */
  | { kind: "erc20Transfer"; token: TokenRef; from?: Address; to: Address; amount: bigint }
  /** `approve(spender, amount)` on a token known to be ERC-20: `unlimited` from 2^255 up. */
  | { kind: "erc20Approve"; token: TokenRef; spender: Address; amount: bigint; unlimited: boolean }
  | { kind: "erc20IncreaseAllowance"; token: TokenRef; spender: Address; amount: bigint; unlimited: boolean }
  | {
      kind: "erc721Transfer";
      token: TokenRef;
      from: Address;
      to: Address;
      tokenId: bigint;
      /** safeTransferFrom (either overload) rather than transferFrom. */
      safe: boolean;
    }
  | { kind: "erc721Approve"; token: TokenRef; spender: Address; tokenId: bigint }
  /**
   * `transferFrom(a, b, n)` / `approve(a, n)` on a contract not known to be ERC-20 or ERC-721 (the two
   * share these selectors): `value` is an amount or a token id. An approval from 2^255 up is flagged
   * `unlimited`, the safe reading.
   */
  | { kind: "tokenTransferFrom"; token: TokenRef; from: Address; to: Address; value: bigint }
  | { kind: "tokenApprove"; token: TokenRef; spender: Address; value: bigint; unlimited: boolean }
  /** `setApprovalForAll(operator, approved)` (ERC-721 and ERC-1155 share it). */
  | { kind: "operatorApproval"; token: TokenRef; operator: Address; approved: boolean }
  | {
      kind: "erc1155Transfer";
      token: TokenRef;
      from: Address;
      to: Address;
      ids: bigint[];
      amounts: bigint[];
      batch: boolean;
    }
  /** A signed permit: the approval a contract grants when this signature is submitted. */
  | {
      kind: "permit";
      standard: "erc2612" | "dai" | "erc4494" | "permit2" | "permit2Transfer";
      token: TokenRef;
      spender: Address;
      /** An amount (ERC-20 permits, Permit2) or, for EIP-4494, the NFT's token id. */
      amount: bigint;
      unlimited: boolean;
      /** Unix seconds after which the permit (or, Permit2, the allowance) ends; undefined when none. */
      deadline?: bigint;
    }
  /** `execute`/`executeBatch` of a smart account that is not the signer's own: the calls it runs. */
  | { kind: "accountCalls"; account: Address; calls: Action[] }
  /** A call whose effect cannot be told: its selector (null without data) and the value it sends. */
  | { kind: "unknownCall"; to: Address; selector: Hex | null; value: bigint; reason?: "tooDeep" }
  // Solana: addresses are base58; an account read from an address lookup table is null.
  | { kind: "solTransfer"; from: string | null; to: string | null; lamports: bigint }
  | {
      kind: "solCreateAccount";
      from: string | null;
      account: string | null;
      lamports: bigint;
      space: bigint;
      owner: string;
    }
  | {
      kind: "splTransfer";
      program: "token" | "token2022";
      source: string | null;
      destination: string | null;
      authority: string | null;
      amount: bigint;
      /** transferChecked only. */
      mint?: string | null;
      decimals?: number;
    }
  | {
      kind: "splApprove";
      program: "token" | "token2022";
      source: string | null;
      delegate: string | null;
      amount: bigint;
      unlimited: boolean;
      mint?: string | null;
      decimals?: number;
    }
  | {
      kind: "splCloseAccount";
      program: "token" | "token2022";
      account: string | null;
      destination: string | null;
    }
  | { kind: "unknownInstruction"; programId: string };

/** A reason to look twice, as data: the modal, the console and the policy engine each word or weigh it. */
export type Warning =
  | { kind: "unlimitedApproval"; token: string; spender: string }
  | { kind: "operatorApproval"; token: Address; operator: Address }
  | { kind: "permitToUnknownSpender"; token: Address; spender: Address }
  | { kind: "delegationNotAllowed"; delegate: Address }
  | { kind: "transferToZeroAddress"; token?: Address }
  | { kind: "valueAboveThreshold"; value: bigint; threshold: bigint };

/** Fields of EIP-712 typed data, as text: the key fields a person reads. */
export interface TypedDataField {
  name: string;
  type: string;
  value: string;
}

/** An EIP-7702 authorization: the code the account delegates to. */
export interface DecodedAuthorization {
  kind: "authorization";
  /** 0: valid on every chain. */
  chainId: number;
  delegate: Address;
  /** The delegate's name when the allow list names it. */
  delegateName?: string;
  nonce: bigint;
  /** Delegation to the zero address: clears the account's code. */
  revoke: boolean;
  warnings: Warning[];
}

/** What one signing request does. Every decoder answers one of these and never throws. */
export type Decoded =
  | {
      kind: "transaction";
      chainId: number;
      from: Address;
      actions: Action[];
      /** EIP-7702 authorizations the transaction carries. */
      authorizations: DecodedAuthorization[];
      warnings: Warning[];
    }
  | { kind: "userOperation"; chainId: number; sender: Address; actions: Action[]; warnings: Warning[] }
  | {
      kind: "typedData";
      chainId?: number;
      primaryType: string;
      domain: { name?: string; version?: string; verifyingContract?: Address };
      /** Permits read from the typed data; empty for other typed data. */
      actions: Action[];
      /** The message's top-level fields (other typed data), at most 12. */
      fields: TypedDataField[];
      warnings: Warning[];
    }
  | DecodedAuthorization
  | {
      kind: "siwe";
      domain: string;
      address: Address;
      uri: string;
      chainId: number;
      statement?: string;
      nonce: string;
      issuedAt?: Date;
      expirationTime?: Date;
      warnings: Warning[];
    }
  | { kind: "message"; text: string; warnings: Warning[] }
  | {
      kind: "solanaTransaction";
      version: "legacy" | 0;
      feePayer: string;
      actions: Action[];
      warnings: Warning[];
    }
  | { kind: "unreadable"; reason: UnreadableReason; detail?: string; warnings: Warning[] };

/** Why a request could not be read. */
export type UnreadableReason =
  | "malformedTransaction"
  | "malformedUserOperation"
  | "malformedTypedData"
  | "malformedAuthorization"
  | "malformedMessage"
  | "malformedSolanaTransaction"
  | "unsupportedSolanaVersion";

/** What the caller tells the decoder about its world: all optional. */
export interface DecodeOptions {
  /** Reads token metadata (symbol, decimals, standard); without it amounts stay raw units. */
  tokens?: TokenInfoReader;
  /** Spenders the app trusts (a router, its own contract): a permit to another one is flagged. */
  knownSpenders?: readonly KnownAddress[];
  /** EIP-7702 delegates the app allows: a delegation to another one is flagged. */
  allowedDelegates?: readonly KnownAddress[];
  /** Native value above which a request is flagged, summed over its calls: wei, or lamports for Solana. */
  valueThreshold?: bigint;
}

/** Reads a token's metadata; see createTokenInfoReader. */
export interface TokenInfoReader {
  read(chainId: number, address: Address): Promise<TokenInfo>;
}
