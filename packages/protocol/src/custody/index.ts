/**
 * Split custody (docs/split-custody.md): the wallet secret, its 2-of-2 Shamir shares, the user share sealed
 * to the service per request, and the recovery blob. Shared by the frames, core's key holders and the
 * service, so all three make and read the same bytes. Heavy (BIP-39's word list, BIP-32): import it only
 * where a wallet is made, combined or recovered.
 */
export {
  decryptRecoveryShare,
  encryptRecoveryShare,
  newRecoveryCode,
  type RecoveryBlob,
  RecoveryError,
  type RecoveryKind,
  recoveryCodeBytes,
  recoveryPrfSalt,
} from "./recovery";
export {
  type HpkeOpen,
  type HpkeOpenArgs,
  openServiceShare,
  openSignInWallet,
  openSplitShare,
  openUserShare,
  SHARE_BEARING_ACTIVITY_TYPES,
  SHARE_KEY_META,
  type ShareKey,
  type SignInBinding,
  sealServiceShare,
  sealSignInWallet,
  sealSplitShare,
  sealUserShare,
  shareBearingOrganization,
  USER_SHARE_HEADER_NAME,
  UserShareError,
} from "./userShare";
export {
  combineShares,
  decodeWalletSecret,
  EVM_PATH,
  encodeWalletSecret,
  mnemonicOfSecret,
  newWalletSecret,
  type PublicAccount,
  publicAccountOf,
  publicKeyOf,
  type SecretAccount,
  type SecretCurve,
  SOLANA_PATH,
  seedOfMnemonic,
  splitWalletSecret,
  type WalletSecret,
  WalletSecretError,
  walletOfEntropy,
  walletOfImport,
  wipeWalletSecret,
} from "./walletSecret";
