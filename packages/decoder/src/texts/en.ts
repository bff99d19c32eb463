import type { DecoderTexts } from "./types";

/** English, the default. */
export const en: DecoderTexts = {
  transactionTitle: ({ chain }) => `Transaction on ${chain}`,
  userOperationTitle: ({ chain }) => `Smart account operation on ${chain}`,
  typedDataTitle: ({ primaryType, app }) => `Sign ${primaryType} for ${app}`,
  authorizationTitle: ({ chain }) => `Account delegation on ${chain}`,
  siweTitle: ({ domain }) => `Sign in to ${domain}`,
  messageTitle: "Sign a message",
  solanaTitle: "Solana transaction",
  unreadableTitle: "Unreadable request",
  anyChain: "every chain",
  chain: ({ chainId }) => `chain ${chainId}`,

  nativeTransfer: ({ amount, to }) => `Send ${amount} to ${to}`,
  contractCreation: ({ amount }) => `Deploy a contract, sending ${amount}`,
  contractCreationNoValue: "Deploy a contract",
  erc20Transfer: ({ amount, to }) => `Send ${amount} to ${to}`,
  erc20TransferFrom: ({ amount, from, to }) => `Move ${amount} from ${from} to ${to}`,
  erc20Approve: ({ spender, amount }) => `Allow ${spender} to spend ${amount}`,
  erc20ApproveUnlimited: ({ spender, token }) => `Allow ${spender} to spend UNLIMITED ${token}`,
  erc20Revoke: ({ spender, token }) => `Revoke ${spender}'s allowance of ${token}`,
  erc20IncreaseAllowance: ({ spender, amount }) => `Allow ${spender} to spend ${amount} more`,
  erc721Transfer: ({ token, tokenId, from, to }) => `Move ${token} #${tokenId} from ${from} to ${to}`,
  erc721Approve: ({ spender, token, tokenId }) => `Allow ${spender} to take ${token} #${tokenId}`,
  tokenTransferFrom: ({ token, value, from, to }) =>
    `Move ${token} (amount or token ID ${value}) from ${from} to ${to}`,
  tokenApprove: ({ spender, token, value }) =>
    `Allow ${spender} to use ${token} (amount or token ID ${value})`,
  operatorApproval: ({ operator, token }) => `Allow ${operator} to move ALL your ${token} tokens`,
  operatorRevoke: ({ operator, token }) => `Revoke ${operator}'s access to your ${token} tokens`,
  erc1155Transfer: ({ amount, token, tokenId, from, to }) =>
    `Move ${amount} × ${token} #${tokenId} from ${from} to ${to}`,
  erc1155BatchTransfer: ({ count, token, from, to }) =>
    `Move ${count} kinds of ${token} tokens from ${from} to ${to}`,
  permit: ({ spender, amount }) => `Permit ${spender} to spend ${amount}`,
  permitUnlimited: ({ spender, token }) => `Permit ${spender} to spend UNLIMITED ${token}`,
  permitNft: ({ spender, token, tokenId }) => `Permit ${spender} to take ${token} #${tokenId}`,
  permitTransfer: ({ spender, amount }) => `Permit ${spender} to transfer ${amount} once`,
  until: ({ date }) => `until ${date}`,
  accountCalls: ({ account }) => `Through the account ${account}:`,
  unknownCall: ({ to, selector }) => `A call to ${to} (function ${selector})`,
  unknownCallNoData: ({ to }) => `A call to ${to}`,
  sending: ({ amount }) => `sending ${amount}`,
  tooDeep: "nested too deep to read",
  unlimited: "UNLIMITED",
  tokenAmount: ({ amount, token }) => `${amount} ${token}`,
  rawAmount: ({ amount, token }) => `${amount} units of ${token}`,
  named: ({ name, address }) => `${name} (${address})`,

  delegate: ({ delegate }) => `Let ${delegate} run your account's code`,
  revokeDelegation: "Remove your account's delegation",
  siweSignIn: ({ domain, address }) => `Sign in to ${domain} as ${address}`,
  siweStatement: ({ statement }) => `“${statement}”`,
  siweUri: ({ uri }) => `For ${uri}`,
  siweChain: ({ chain }) => `On ${chain}`,
  siweExpires: ({ date }) => `Expires ${date}`,
  messageText: ({ text }) => text,
  field: ({ name, value }) => `${name}: ${value}`,

  solTransfer: ({ amount, to }) => `Send ${amount} to ${to}`,
  solCreateAccount: ({ account, amount, owner }) =>
    `Create the account ${account} with ${amount}, owned by the program ${owner}`,
  splTransfer: ({ amount, to }) => `Send ${amount} to the token account ${to}`,
  splApprove: ({ delegate, amount }) => `Allow ${delegate} to spend ${amount}`,
  splApproveUnlimited: ({ delegate }) => `Allow ${delegate} to spend UNLIMITED tokens`,
  splCloseAccount: ({ account, to }) => `Close the token account ${account}, its SOL going to ${to}`,
  unknownInstruction: ({ program }) => `An instruction of the program ${program}`,
  lookupTableAccount: "an address from a lookup table",
  tokens: ({ amount }) => `${amount} tokens`,

  warnUnlimitedApproval: ({ spender, token }) =>
    `${spender} could spend all of your ${token}, now and later.`,
  warnOperatorApproval: ({ operator, token }) => `${operator} could move every ${token} token you own.`,
  warnPermitToUnknownSpender: ({ spender }) => `The permit is for ${spender}, which this app does not know.`,
  warnDelegationNotAllowed: ({ delegate }) =>
    `${delegate} is not an allowed delegate: it could do anything with your account.`,
  warnTransferToZeroAddress: "Tokens sent to the zero address are lost.",
  warnValueAboveThreshold: ({ amount, threshold }) => `This sends ${amount}, more than ${threshold}.`,

  unreadable: ({ reason }) => `This request could not be read: ${reason}.`,
  reasons: {
    malformedTransaction: "the transaction is malformed",
    malformedUserOperation: "the user operation is malformed",
    malformedTypedData: "the typed data is malformed",
    malformedAuthorization: "the authorization is malformed",
    malformedMessage: "the message is malformed",
    malformedSolanaTransaction: "the Solana transaction is malformed",
    unsupportedSolanaVersion: "the Solana transaction version is not supported",
  },
};
