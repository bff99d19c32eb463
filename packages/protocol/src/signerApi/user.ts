/** The signed-in user as the service knows them: ids, email and wallet addresses. */
export interface WhoamiResponse {
  email?: string;
  orgId: string;
  userId: string;
  address: string;
  solanaAddress?: string;
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
