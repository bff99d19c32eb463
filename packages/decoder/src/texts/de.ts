import type { DecoderTexts } from "./types";

/** Deutsch. */
export const de: DecoderTexts = {
  transactionTitle: ({ chain }) => `Transaktion auf ${chain}`,
  userOperationTitle: ({ chain }) => `Smart-Account-Vorgang auf ${chain}`,
  typedDataTitle: ({ primaryType, app }) => `${primaryType} für ${app} signieren`,
  authorizationTitle: ({ chain }) => `Kontodelegation auf ${chain}`,
  siweTitle: ({ domain }) => `Bei ${domain} anmelden`,
  messageTitle: "Eine Nachricht signieren",
  solanaTitle: "Solana-Transaktion",
  unreadableTitle: "Nicht lesbare Anfrage",
  anyChain: "allen Chains",
  chain: ({ chainId }) => `Chain ${chainId}`,

  nativeTransfer: ({ amount, to }) => `${amount} an ${to} senden`,
  contractCreation: ({ amount }) => `Einen Vertrag bereitstellen und ${amount} senden`,
  contractCreationNoValue: "Einen Vertrag bereitstellen",
  erc20Transfer: ({ amount, to }) => `${amount} an ${to} senden`,
  erc20TransferFrom: ({ amount, from, to }) => `${amount} von ${from} an ${to} übertragen`,
  erc20Approve: ({ spender, amount }) => `${spender} erlauben, ${amount} auszugeben`,
  erc20ApproveUnlimited: ({ spender, token }) => `${spender} erlauben, UNBEGRENZT ${token} auszugeben`,
  erc20Revoke: ({ spender, token }) => `Die ${token}-Freigabe für ${spender} widerrufen`,
  erc20IncreaseAllowance: ({ spender, amount }) => `${spender} erlauben, weitere ${amount} auszugeben`,
  erc721Transfer: ({ token, tokenId, from, to }) => `${token} #${tokenId} von ${from} an ${to} übertragen`,
  erc721Approve: ({ spender, token, tokenId }) => `${spender} erlauben, ${token} #${tokenId} zu nehmen`,
  tokenTransferFrom: ({ token, value, from, to }) =>
    `${token} (Betrag oder Token-ID ${value}) von ${from} an ${to} übertragen`,
  tokenApprove: ({ spender, token, value }) =>
    `${spender} erlauben, ${token} zu verwenden (Betrag oder Token-ID ${value})`,
  operatorApproval: ({ operator, token }) => `${operator} erlauben, ALLE deine ${token}-Token zu bewegen`,
  operatorRevoke: ({ operator, token }) => `Den Zugriff von ${operator} auf deine ${token}-Token widerrufen`,
  erc1155Transfer: ({ amount, token, tokenId, from, to }) =>
    `${amount} × ${token} #${tokenId} von ${from} an ${to} übertragen`,
  erc1155BatchTransfer: ({ count, token, from, to }) =>
    `${count} Arten von ${token}-Token von ${from} an ${to} übertragen`,
  permit: ({ spender, amount }) => `${spender} erlauben, ${amount} auszugeben`,
  permitUnlimited: ({ spender, token }) => `${spender} erlauben, UNBEGRENZT ${token} auszugeben`,
  permitNft: ({ spender, token, tokenId }) => `${spender} erlauben, ${token} #${tokenId} zu nehmen`,
  permitTransfer: ({ spender, amount }) => `${spender} erlauben, einmalig ${amount} zu übertragen`,
  until: ({ date }) => `bis ${date}`,
  accountCalls: ({ account }) => `Über das Konto ${account}:`,
  unknownCall: ({ to, selector }) => `Ein Aufruf von ${to} (Funktion ${selector})`,
  unknownCallNoData: ({ to }) => `Ein Aufruf von ${to}`,
  sending: ({ amount }) => `mit ${amount}`,
  tooDeep: "zu tief verschachtelt, um es zu lesen",
  unlimited: "UNBEGRENZT",
  tokenAmount: ({ amount, token }) => `${amount} ${token}`,
  rawAmount: ({ amount, token }) => `${amount} Einheiten von ${token}`,
  named: ({ name, address }) => `${name} (${address})`,

  delegate: ({ delegate }) => `${delegate} den Code deines Kontos ausführen lassen`,
  revokeDelegation: "Die Delegation deines Kontos entfernen",
  siweSignIn: ({ domain, address }) => `Bei ${domain} als ${address} anmelden`,
  siweStatement: ({ statement }) => `„${statement}“`,
  siweUri: ({ uri }) => `Für ${uri}`,
  siweChain: ({ chain }) => `Auf ${chain}`,
  siweExpires: ({ date }) => `Läuft ab am ${date}`,
  messageText: ({ text }) => text,
  field: ({ name, value }) => `${name}: ${value}`,

  solTransfer: ({ amount, to }) => `${amount} an ${to} senden`,
  solCreateAccount: ({ account, amount, owner }) =>
    `Das Konto ${account} mit ${amount} anlegen, im Besitz des Programms ${owner}`,
  splTransfer: ({ amount, to }) => `${amount} an das Token-Konto ${to} senden`,
  splApprove: ({ delegate, amount }) => `${delegate} erlauben, ${amount} auszugeben`,
  splApproveUnlimited: ({ delegate }) => `${delegate} erlauben, UNBEGRENZT Token auszugeben`,
  splCloseAccount: ({ account, to }) => `Das Token-Konto ${account} schließen, seine SOL gehen an ${to}`,
  unknownInstruction: ({ program }) => `Eine Anweisung des Programms ${program}`,
  lookupTableAccount: "eine Adresse aus einer Lookup-Tabelle",
  tokens: ({ amount }) => `${amount} Token`,

  warnUnlimitedApproval: ({ spender, token }) =>
    `${spender} könnte dein gesamtes ${token} ausgeben, jetzt und später.`,
  warnOperatorApproval: ({ operator, token }) => `${operator} könnte jeden deiner ${token}-Token bewegen.`,
  warnPermitToUnknownSpender: ({ spender }) =>
    `Die Erlaubnis gilt für ${spender}, das diese App nicht kennt.`,
  warnDelegationNotAllowed: ({ delegate }) =>
    `${delegate} ist kein erlaubter Delegat: Es könnte mit deinem Konto alles tun.`,
  warnTransferToZeroAddress: "An die Nulladresse gesendete Token sind verloren.",
  warnValueAboveThreshold: ({ amount, threshold }) => `Dies sendet ${amount}, mehr als ${threshold}.`,

  unreadable: ({ reason }) => `Diese Anfrage konnte nicht gelesen werden: ${reason}.`,
  reasons: {
    malformedTransaction: "die Transaktion ist fehlerhaft",
    malformedUserOperation: "der Vorgang ist fehlerhaft",
    malformedTypedData: "die strukturierten Daten sind fehlerhaft",
    malformedAuthorization: "die Autorisierung ist fehlerhaft",
    malformedMessage: "die Nachricht ist fehlerhaft",
    malformedSolanaTransaction: "die Solana-Transaktion ist fehlerhaft",
    unsupportedSolanaVersion: "diese Version der Solana-Transaktion wird nicht unterstützt",
  },
};
