import type { DecoderTexts } from "./types";

/** Español. */
export const es: DecoderTexts = {
  transactionTitle: ({ chain }) => `Transacción en ${chain}`,
  userOperationTitle: ({ chain }) => `Operación de cuenta inteligente en ${chain}`,
  typedDataTitle: ({ primaryType, app }) => `Firmar ${primaryType} para ${app}`,
  authorizationTitle: ({ chain }) => `Delegación de la cuenta en ${chain}`,
  siweTitle: ({ domain }) => `Iniciar sesión en ${domain}`,
  messageTitle: "Firmar un mensaje",
  solanaTitle: "Transacción de Solana",
  unreadableTitle: "Solicitud ilegible",
  anyChain: "todas las cadenas",
  chain: ({ chainId }) => `la cadena ${chainId}`,

  nativeTransfer: ({ amount, to }) => `Enviar ${amount} a ${to}`,
  contractCreation: ({ amount }) => `Desplegar un contrato enviando ${amount}`,
  contractCreationNoValue: "Desplegar un contrato",
  erc20Transfer: ({ amount, to }) => `Enviar ${amount} a ${to}`,
  erc20TransferFrom: ({ amount, from, to }) => `Transferir ${amount} de ${from} a ${to}`,
  erc20Approve: ({ spender, amount }) => `Permitir a ${spender} gastar ${amount}`,
  erc20ApproveUnlimited: ({ spender, token }) => `Permitir a ${spender} gastar ${token} SIN LÍMITE`,
  erc20Revoke: ({ spender, token }) => `Revocar el permiso de ${token} de ${spender}`,
  erc20IncreaseAllowance: ({ spender, amount }) => `Permitir a ${spender} gastar ${amount} más`,
  erc721Transfer: ({ token, tokenId, from, to }) => `Transferir ${token} #${tokenId} de ${from} a ${to}`,
  erc721Approve: ({ spender, token, tokenId }) => `Permitir a ${spender} tomar ${token} #${tokenId}`,
  tokenTransferFrom: ({ token, value, from, to }) =>
    `Transferir ${token} (cantidad o ID de token ${value}) de ${from} a ${to}`,
  tokenApprove: ({ spender, token, value }) =>
    `Permitir a ${spender} usar ${token} (cantidad o ID de token ${value})`,
  operatorApproval: ({ operator, token }) => `Permitir a ${operator} mover TODOS tus tokens ${token}`,
  operatorRevoke: ({ operator, token }) => `Revocar el acceso de ${operator} a tus tokens ${token}`,
  erc1155Transfer: ({ amount, token, tokenId, from, to }) =>
    `Transferir ${amount} × ${token} #${tokenId} de ${from} a ${to}`,
  erc1155BatchTransfer: ({ count, token, from, to }) =>
    `Transferir ${count} tipos de tokens ${token} de ${from} a ${to}`,
  permit: ({ spender, amount }) => `Autorizar a ${spender} a gastar ${amount}`,
  permitUnlimited: ({ spender, token }) => `Autorizar a ${spender} a gastar ${token} SIN LÍMITE`,
  permitNft: ({ spender, token, tokenId }) => `Autorizar a ${spender} a tomar ${token} #${tokenId}`,
  permitTransfer: ({ spender, amount }) => `Autorizar a ${spender} a transferir ${amount} una vez`,
  until: ({ date }) => `hasta el ${date}`,
  accountCalls: ({ account }) => `A través de la cuenta ${account}:`,
  unknownCall: ({ to, selector }) => `Una llamada a ${to} (función ${selector})`,
  unknownCallNoData: ({ to }) => `Una llamada a ${to}`,
  sending: ({ amount }) => `enviando ${amount}`,
  tooDeep: "anidada demasiado profundo para leerla",
  unlimited: "SIN LÍMITE",
  tokenAmount: ({ amount, token }) => `${amount} ${token}`,
  rawAmount: ({ amount, token }) => `${amount} unidades de ${token}`,
  named: ({ name, address }) => `${name} (${address})`,

  delegate: ({ delegate }) => `Dejar que ${delegate} ejecute el código de tu cuenta`,
  revokeDelegation: "Quitar la delegación de tu cuenta",
  siweSignIn: ({ domain, address }) => `Iniciar sesión en ${domain} como ${address}`,
  siweStatement: ({ statement }) => `«${statement}»`,
  siweUri: ({ uri }) => `Para ${uri}`,
  siweChain: ({ chain }) => `En ${chain}`,
  siweExpires: ({ date }) => `Caduca el ${date}`,
  messageText: ({ text }) => text,
  field: ({ name, value }) => `${name}: ${value}`,

  solTransfer: ({ amount, to }) => `Enviar ${amount} a ${to}`,
  solCreateAccount: ({ account, amount, owner }) =>
    `Crear la cuenta ${account} con ${amount}, propiedad del programa ${owner}`,
  splTransfer: ({ amount, to }) => `Enviar ${amount} a la cuenta de tokens ${to}`,
  splApprove: ({ delegate, amount }) => `Permitir a ${delegate} gastar ${amount}`,
  splApproveUnlimited: ({ delegate }) => `Permitir a ${delegate} gastar tokens SIN LÍMITE`,
  splCloseAccount: ({ account, to }) => `Cerrar la cuenta de tokens ${account}; sus SOL van a ${to}`,
  unknownInstruction: ({ program }) => `Una instrucción del programa ${program}`,
  lookupTableAccount: "una dirección de una tabla de búsqueda",
  tokens: ({ amount }) => `${amount} tokens`,

  warnUnlimitedApproval: ({ spender, token }) =>
    `${spender} podría gastar todo tu ${token}, ahora y más adelante.`,
  warnOperatorApproval: ({ operator, token }) => `${operator} podría mover cada uno de tus tokens ${token}.`,
  warnPermitToUnknownSpender: ({ spender }) => `El permiso es para ${spender}, que esta app no conoce.`,
  warnDelegationNotAllowed: ({ delegate }) =>
    `${delegate} no es un delegado permitido: podría hacer cualquier cosa con tu cuenta.`,
  warnTransferToZeroAddress: "Los tokens enviados a la dirección cero se pierden.",
  warnValueAboveThreshold: ({ amount, threshold }) => `Esto envía ${amount}, más de ${threshold}.`,

  unreadable: ({ reason }) => `No se pudo leer esta solicitud: ${reason}.`,
  reasons: {
    malformedTransaction: "la transacción está mal formada",
    malformedUserOperation: "la operación está mal formada",
    malformedTypedData: "los datos estructurados están mal formados",
    malformedAuthorization: "la autorización está mal formada",
    malformedMessage: "el mensaje está mal formado",
    malformedSolanaTransaction: "la transacción de Solana está mal formada",
    unsupportedSolanaVersion: "esta versión de transacción de Solana no es compatible",
  },
};
