/** The languages the product ships. */
export type LocaleCode = "en" | "de" | "fr" | "es";

/**
 * Every sentence a summary says, keyed by message id: amounts, addresses and tokens come in already
 * formatted (the locale's number format, "0x1234…abcd", "1.5 USDC"). A new language is one more table.
 */
export interface DecoderTexts {
  // Titles
  transactionTitle: (p: { chain: string }) => string;
  userOperationTitle: (p: { chain: string }) => string;
  typedDataTitle: (p: { primaryType: string; app: string }) => string;
  authorizationTitle: (p: { chain: string }) => string;
  siweTitle: (p: { domain: string }) => string;
  messageTitle: string;
  solanaTitle: string;
  unreadableTitle: string;
  anyChain: string;
  chain: (p: { chainId: number }) => string;

  // EVM actions
  nativeTransfer: (p: { amount: string; to: string }) => string;
  contractCreation: (p: { amount: string }) => string;
  contractCreationNoValue: string;
  erc20Transfer: (p: { amount: string; to: string }) => string;
  erc20TransferFrom: (p: { amount: string; from: string; to: string }) => string;
  erc20Approve: (p: { spender: string; amount: string }) => string;
  erc20ApproveUnlimited: (p: { spender: string; token: string }) => string;
  erc20Revoke: (p: { spender: string; token: string }) => string;
  erc20IncreaseAllowance: (p: { spender: string; amount: string }) => string;
  erc721Transfer: (p: { token: string; tokenId: string; from: string; to: string }) => string;
  erc721Approve: (p: { spender: string; token: string; tokenId: string }) => string;
  tokenTransferFrom: (p: { token: string; value: string; from: string; to: string }) => string;
  tokenApprove: (p: { spender: string; token: string; value: string }) => string;
  operatorApproval: (p: { operator: string; token: string }) => string;
  operatorRevoke: (p: { operator: string; token: string }) => string;
  erc1155Transfer: (p: {
    amount: string;
    token: string;
    tokenId: string;
    from: string;
    to: string;
  }) => string;
  erc1155BatchTransfer: (p: { count: number; token: string; from: string; to: string }) => string;
  permit: (p: { spender: string; amount: string }) => string;
  permitUnlimited: (p: { spender: string; token: string }) => string;
  permitNft: (p: { spender: string; token: string; tokenId: string }) => string;
  permitTransfer: (p: { spender: string; amount: string }) => string;
  until: (p: { date: string }) => string;
  accountCalls: (p: { account: string }) => string;
  unknownCall: (p: { to: string; selector: string }) => string;
  unknownCallNoData: (p: { to: string }) => string;
  sending: (p: { amount: string }) => string;
  tooDeep: string;
  unlimited: string;
  /** An amount in a token's units: "1.5 USDC". */
  tokenAmount: (p: { amount: string; token: string }) => string;
  /** An amount whose decimals are unknown: "1500000 units of USDC". */
  rawAmount: (p: { amount: string; token: string }) => string;
  /** A known address: "Uniswap (0x1234…abcd)". */
  named: (p: { name: string; address: string }) => string;

  // EIP-7702, SIWE, messages, typed data
  delegate: (p: { delegate: string }) => string;
  revokeDelegation: string;
  siweSignIn: (p: { domain: string; address: string }) => string;
  siweStatement: (p: { statement: string }) => string;
  siweUri: (p: { uri: string }) => string;
  siweChain: (p: { chain: string }) => string;
  siweExpires: (p: { date: string }) => string;
  messageText: (p: { text: string }) => string;
  field: (p: { name: string; value: string }) => string;

  // Solana
  solTransfer: (p: { amount: string; to: string }) => string;
  solCreateAccount: (p: { account: string; amount: string; owner: string }) => string;
  splTransfer: (p: { amount: string; to: string }) => string;
  splApprove: (p: { delegate: string; amount: string }) => string;
  splApproveUnlimited: (p: { delegate: string }) => string;
  splCloseAccount: (p: { account: string; to: string }) => string;
  unknownInstruction: (p: { program: string }) => string;
  lookupTableAccount: string;
  tokens: (p: { amount: string }) => string;

  // Warnings
  warnUnlimitedApproval: (p: { spender: string; token: string }) => string;
  warnOperatorApproval: (p: { operator: string; token: string }) => string;
  warnPermitToUnknownSpender: (p: { spender: string }) => string;
  warnDelegationNotAllowed: (p: { delegate: string }) => string;
  warnTransferToZeroAddress: string;
  warnValueAboveThreshold: (p: { amount: string; threshold: string }) => string;

  // Unreadable
  unreadable: (p: { reason: string }) => string;
  reasons: Record<
    | "malformedTransaction"
    | "malformedUserOperation"
    | "malformedTypedData"
    | "malformedAuthorization"
    | "malformedMessage"
    | "malformedSolanaTransaction"
    | "unsupportedSolanaVersion",
    string
  >;
}
