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
}
