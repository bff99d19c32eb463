import type { DecoderTexts } from "./types";

/** Français. */
export const fr: DecoderTexts = {
  transactionTitle: ({ chain }) => `Transaction sur ${chain}`,
  userOperationTitle: ({ chain }) => `Opération de compte intelligent sur ${chain}`,
  typedDataTitle: ({ primaryType, app }) => `Signer ${primaryType} pour ${app}`,
  authorizationTitle: ({ chain }) => `Délégation du compte sur ${chain}`,
  siweTitle: ({ domain }) => `Se connecter à ${domain}`,
  messageTitle: "Signer un message",
  solanaTitle: "Transaction Solana",
  unreadableTitle: "Demande illisible",
  anyChain: "toutes les chaînes",
  chain: ({ chainId }) => `la chaîne ${chainId}`,

  nativeTransfer: ({ amount, to }) => `Envoyer ${amount} à ${to}`,
  contractCreation: ({ amount }) => `Déployer un contrat en envoyant ${amount}`,
  contractCreationNoValue: "Déployer un contrat",
  erc20Transfer: ({ amount, to }) => `Envoyer ${amount} à ${to}`,
  erc20TransferFrom: ({ amount, from, to }) => `Transférer ${amount} de ${from} à ${to}`,
  erc20Approve: ({ spender, amount }) => `Autoriser ${spender} à dépenser ${amount}`,
  erc20ApproveUnlimited: ({ spender, token }) => `Autoriser ${spender} à dépenser des ${token} SANS LIMITE`,
  erc20Revoke: ({ spender, token }) => `Révoquer l’autorisation ${token} de ${spender}`,
  erc20IncreaseAllowance: ({ spender, amount }) => `Autoriser ${spender} à dépenser ${amount} de plus`,
  erc721Transfer: ({ token, tokenId, from, to }) => `Transférer ${token} #${tokenId} de ${from} à ${to}`,
  erc721Approve: ({ spender, token, tokenId }) => `Autoriser ${spender} à prendre ${token} #${tokenId}`,
  tokenTransferFrom: ({ token, value, from, to }) =>
    `Transférer ${token} (montant ou identifiant ${value}) de ${from} à ${to}`,
  tokenApprove: ({ spender, token, value }) =>
    `Autoriser ${spender} à utiliser ${token} (montant ou identifiant ${value})`,
  operatorApproval: ({ operator, token }) => `Autoriser ${operator} à déplacer TOUS vos jetons ${token}`,
  operatorRevoke: ({ operator, token }) => `Révoquer l’accès de ${operator} à vos jetons ${token}`,
  erc1155Transfer: ({ amount, token, tokenId, from, to }) =>
    `Transférer ${amount} × ${token} #${tokenId} de ${from} à ${to}`,
  erc1155BatchTransfer: ({ count, token, from, to }) =>
    `Transférer ${count} sortes de jetons ${token} de ${from} à ${to}`,
  permit: ({ spender, amount }) => `Permettre à ${spender} de dépenser ${amount}`,
  permitUnlimited: ({ spender, token }) => `Permettre à ${spender} de dépenser des ${token} SANS LIMITE`,
  permitNft: ({ spender, token, tokenId }) => `Permettre à ${spender} de prendre ${token} #${tokenId}`,
  permitTransfer: ({ spender, amount }) => `Permettre à ${spender} de transférer ${amount} une fois`,
  until: ({ date }) => `jusqu’au ${date}`,
  accountCalls: ({ account }) => `Par le compte ${account} :`,
  unknownCall: ({ to, selector }) => `Un appel à ${to} (fonction ${selector})`,
  unknownCallNoData: ({ to }) => `Un appel à ${to}`,
  sending: ({ amount }) => `avec ${amount}`,
  tooDeep: "trop imbriqué pour être lu",
  unlimited: "SANS LIMITE",
  tokenAmount: ({ amount, token }) => `${amount} ${token}`,
  rawAmount: ({ amount, token }) => `${amount} unités de ${token}`,
  named: ({ name, address }) => `${name} (${address})`,

  delegate: ({ delegate }) => `Laisser ${delegate} exécuter le code de votre compte`,
  revokeDelegation: "Retirer la délégation de votre compte",
  siweSignIn: ({ domain, address }) => `Se connecter à ${domain} en tant que ${address}`,
  siweStatement: ({ statement }) => `« ${statement} »`,
  siweUri: ({ uri }) => `Pour ${uri}`,
  siweChain: ({ chain }) => `Sur ${chain}`,
  siweExpires: ({ date }) => `Expire le ${date}`,
  messageText: ({ text }) => text,
  field: ({ name, value }) => `${name} : ${value}`,

  solTransfer: ({ amount, to }) => `Envoyer ${amount} à ${to}`,
  solCreateAccount: ({ account, amount, owner }) =>
    `Créer le compte ${account} avec ${amount}, détenu par le programme ${owner}`,
  splTransfer: ({ amount, to }) => `Envoyer ${amount} au compte de jetons ${to}`,
  splApprove: ({ delegate, amount }) => `Autoriser ${delegate} à dépenser ${amount}`,
  splApproveUnlimited: ({ delegate }) => `Autoriser ${delegate} à dépenser des jetons SANS LIMITE`,
  splCloseAccount: ({ account, to }) => `Fermer le compte de jetons ${account}, ses SOL allant à ${to}`,
  unknownInstruction: ({ program }) => `Une instruction du programme ${program}`,
  lookupTableAccount: "une adresse d’une table de correspondance",
  tokens: ({ amount }) => `${amount} jetons`,

  warnUnlimitedApproval: ({ spender, token }) =>
    `${spender} pourrait dépenser tous vos ${token}, maintenant et plus tard.`,
  warnOperatorApproval: ({ operator, token }) =>
    `${operator} pourrait déplacer chacun de vos jetons ${token}.`,
  warnPermitToUnknownSpender: ({ spender }) =>
    `L’autorisation est pour ${spender}, que cette app ne connaît pas.`,
  warnDelegationNotAllowed: ({ delegate }) =>
    `${delegate} n’est pas un délégué autorisé : il pourrait tout faire avec votre compte.`,
  warnTransferToZeroAddress: "Les jetons envoyés à l’adresse zéro sont perdus.",
  warnValueAboveThreshold: ({ amount, threshold }) => `Ceci envoie ${amount}, plus que ${threshold}.`,

  unreadable: ({ reason }) => `Cette demande n’a pas pu être lue : ${reason}.`,
  reasons: {
    malformedTransaction: "la transaction est mal formée",
    malformedUserOperation: "l’opération est mal formée",
    malformedTypedData: "les données structurées sont mal formées",
    malformedAuthorization: "l’autorisation est mal formée",
    malformedMessage: "le message est mal formé",
    malformedSolanaTransaction: "la transaction Solana est mal formée",
    unsupportedSolanaVersion: "cette version de transaction Solana n’est pas prise en charge",
  },
};
