/** The signed-in user as the service knows them: ids, email and wallet addresses. */
export interface WhoamiResponse {
  email?: string;
  orgId: string;
  userId: string;
  /** The EVM address; absent while a split-custody user has no wallet yet (`walletState: "none"`). */
  address?: string;
  solanaAddress?: string;
  /** How the user's wallet is kept: "split" (every signature needs the user's share) or "service". */
  custody: "split" | "service";
  /**
   * "none": a split user whose key holder has not made the wallet yet (create_split_wallet); "whole": a
   * split app's user whose wallet the service still holds whole (pregenerated, imported, or made before
   * the app moved to split) until their key holder splits it (begin/complete_split_wallet); else "ready".
   */
  walletState: "none" | "whole" | "ready";
  /** The user's wallet, once it exists. */
  walletId?: string;
  /** The recovery factors stored for the user's share (set_recovery_share); empty for a service wallet. */
  recovery: ("passkey" | "code")[];
  idToken?: string;
  /** Set when a passkey stamped the request. */
  credentialId?: string;
  /**
   * The smart-account kind recorded for the user (the first one they used, kept when the app's default
   * changes): "7702" (their EOA delegated to Simple7702Account) or "4337" (a SimpleAccount it owns).
   */
  smartAccountKind?: "7702" | "4337";
  /**
   * For a "4337" user, the account contract (set with `smartAccountKind` since it has been recorded):
   * "LatchkeySimpleAccount" (SimpleAccount with ERC-1271, its signatures verify for the account) or
   * "SimpleAccount" (eth-infinitism's, for users who got one before; absent means the same).
   */
  smartAccountContract?: "SimpleAccount" | "LatchkeySimpleAccount";
}
