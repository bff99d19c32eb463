/**
 * Split custody in the benchmarks (docs/split-custody.md): a second app of the bench service with
 * `custody: "split"`, its users' sessions, and their wallets made as a key holder makes them (the phrase,
 * the 2-of-2 split, the service share sealed to the share key; `create_split_wallet` with the user
 * share sealed to the request's body). Signing requests carry the user share in
 * `stampedRequest.userShare`, sealed per body before the run as the stamps are.
 */

import {
  encodeWalletSecret,
  newWalletSecret,
  type PublicAccount,
  type SignInBinding,
  sealServiceShare,
  sealSignInWallet,
  sealUserShare,
  splitWalletSecret,
  wipeWalletSecret,
} from "../../packages/protocol/src/custody/index";
import {
  generateP256PrivateKey,
  openCredentialBundle,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "../../packages/protocol/src/index";
import type { PreparedRequest } from "./load";
import type { ServiceHandle } from "./service";
import { readOtpCode } from "./signerApi";

export const SPLIT_API_KEY = "lk_bench_split_0123456789abcdef";
/** The split app, as the bench service's config file declares it (one process: beside the dev app). */
export const SPLIT_APP = {
  id: "bench-split",
  name: "Bench split",
  apiKeys: [SPLIT_API_KEY],
  allowedOrigins: [],
  emailMode: "OTP",
  custody: "split",
};

export async function postSplit<T = unknown>(svc: ServiceHandle, path: string, body: unknown): Promise<T> {
  const r = await fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${SPLIT_API_KEY}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`POST ${path} → ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

export interface SplitSession {
  orgId: string;
  sessionKey: Uint8Array;
}

/** A split app's user signed up and signed in by code: no wallet yet. */
export async function createSplitSession(svc: ServiceHandle, email: string): Promise<SplitSession> {
  const targetPrivateKey = generateP256PrivateKey();
  const targetPublicKey = toHex(p256PublicKeyFromPrivate(targetPrivateKey, false));
  const signup = await postSplit<{ orgId: string; otpId: string }>(svc, "/signer/v1/signup", {
    email,
    targetPublicKey,
  });
  const otpCode = await readOtpCode(svc, email);
  const otp = await postSplit<{ credentialBundle?: string }>(svc, "/signer/v1/otp", {
    orgId: signup.orgId,
    otpId: signup.otpId,
    otpCode,
    targetPublicKey,
  });
  if (!otp.credentialBundle) throw new Error(`OTP did not succeed: ${JSON.stringify(otp)}`);
  const sessionKey = await openCredentialBundle({
    bundle: otp.credentialBundle,
    targetPrivateKey,
    targetPublicKey,
  });
  return { orgId: signup.orgId, sessionKey };
}

export async function shareKeyOf(svc: ServiceHandle): Promise<string> {
  const config = await postSplit<{ custody: { shareKey: string } }>(svc, "/signer/v1/signer-config", {});
  return config.custody.shareKey;
}

/** The key holder's side of a new wallet: the request that makes it (stamped, share attached), and its shares. */
export async function createWalletRequest(
  session: SplitSession,
  shareKey: string,
): Promise<{ request: PreparedRequest; userShare: Uint8Array; address: string }> {
  const { secret, accounts } = await newWalletSecret();
  const encoded = encodeWalletSecret(secret);
  wipeWalletSecret(secret);
  const { userShare, serviceShare } = await splitWalletSecret(encoded);
  encoded.fill(0);
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
    timestampMs: String(Date.now()),
    organizationId: session.orgId,
    parameters: {
      serviceShare: await sealServiceShare({ serviceShare, shareKey, organizationId: session.orgId }),
      accounts,
    },
  });
  serviceShare.fill(0);
  const stampedRequest = {
    body,
    stamp: stampWithPrivateKey(body, session.sessionKey),
    url: "https://x/public/v1/submit/create_split_wallet",
    userShare: await sealUserShare({ userShare, shareKey, body }),
  };
  return {
    request: {
      path: "/signer/v1/create-split-wallet",
      body: Buffer.from(JSON.stringify({ stampedRequest })),
    },
    userShare,
    address: accounts[0]?.address ?? "",
  };
}

/**
 * The key holder's side of a new user's wallet carried by the code's sign-in (`/v1/otp`'s `splitWallet`):
 * both shares sealed to the share key for that sign-in, and the public accounts.
 */
export async function signInWalletOf(
  binding: SignInBinding,
  shareKey: string,
): Promise<{ sealed: string; accounts: PublicAccount[] }> {
  const { secret, accounts } = await newWalletSecret();
  const encoded = encodeWalletSecret(secret);
  wipeWalletSecret(secret);
  const { userShare, serviceShare } = await splitWalletSecret(encoded);
  encoded.fill(0);
  try {
    return { sealed: await sealSignInWallet({ userShare, serviceShare, shareKey, ...binding }), accounts };
  } finally {
    userShare.fill(0);
    serviceShare.fill(0);
  }
}

/** A split user ready to sign: session, wallet made, the user share kept. */
export interface SplitSigner extends SplitSession {
  address: string;
  userShare: Uint8Array;
  shareKey: string;
}

export async function createSplitSigner(svc: ServiceHandle, email: string): Promise<SplitSigner> {
  const session = await createSplitSession(svc, email);
  const shareKey = await shareKeyOf(svc);
  const made = await createWalletRequest(session, shareKey);
  const r = await fetch(`${svc.baseUrl}${made.request.path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${SPLIT_API_KEY}`, "content-type": "application/json" },
    body: made.request.body.toString("utf8"),
  });
  if (!r.ok) throw new Error(`create-split-wallet → ${r.status}: ${await r.text()}`);
  return { ...session, address: made.address, userShare: made.userShare, shareKey };
}

/** A sign-payload request of a split user: stamped, and the user share sealed to its body. */
export async function splitSignRequest(s: SplitSigner, payloadHex: string): Promise<PreparedRequest> {
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    timestampMs: String(Date.now()),
    organizationId: s.orgId,
    parameters: {
      signWith: s.address,
      payload: payloadHex,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
    },
  });
  const stampedRequest = {
    body,
    stamp: stampWithPrivateKey(body, s.sessionKey),
    url: "https://x/public/v1/submit/sign_raw_payload",
    userShare: await sealUserShare({ userShare: s.userShare, shareKey: s.shareKey, body }),
  };
  return { path: "/signer/v1/sign-payload", body: Buffer.from(JSON.stringify({ stampedRequest })) };
}
