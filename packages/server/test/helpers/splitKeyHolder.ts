/**
 * A split-custody key holder for the server's tests (docs/split-custody.md): what the auth frame or
 * core's memory holder does, made from `@latchkey/protocol/custody` and a session key. It makes the
 * wallet, keeps the user share, sends the service its share sealed, and seals its share to every
 * signing request's exact body (`X-User-Share`).
 */
import {
  encodeSplitImport,
  encryptToImportKey,
  generateP256PrivateKey,
  type ImportSecret,
  openExportBundle,
  p256PublicKeyFromPrivate,
  SPLIT_EXPORT_PREFIX,
  stampWithPrivateKey,
  toHex,
  verifyImportBundle,
} from "@latchkey/protocol";
import {
  encodeWalletSecret,
  mnemonicOfSecret,
  newWalletSecret,
  openSplitShare,
  type PublicAccount,
  sealServiceShare,
  sealUserShare,
  splitWalletSecret,
  USER_SHARE_HEADER_NAME,
  walletOfImport,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import { post } from "../helpers";

export interface SplitUser {
  orgId: string;
  userId: string;
  sessionKey: Uint8Array;
}

/** What a submit may carry: the holder's share for its body (default), none, or a given sealed share. */
export type ShareOption = { share?: "own" | "none" | string };

export interface SplitKeyHolder {
  orgId: string;
  userId: string;
  walletId: string;
  address: string;
  solanaAddress: string;
  accounts: PublicAccount[];
  /** The phrase the holder made (a test compares the export with it). */
  mnemonic: string;
  /** The user's share (kept by the holder, as the browser's storage keeps it). */
  userShare: Uint8Array;
  shareKey: string;
  /** The user share sealed for `body`: what `X-User-Share` carries. */
  sealFor(body: string): Promise<string>;
  /** A stamped key-management submit (`/public/v1/submit/<path>`), with the holder's share by default. */
  submit(
    path: string,
    body: Record<string, unknown>,
    opts?: ShareOption,
  ): Promise<{ status: number; json: Record<string, unknown>; text: string; share?: string }>;
}

/** The service's share key, as signer-config publishes it. */
export async function fetchShareKey(url: string, headers: Record<string, string>): Promise<string> {
  const res = await post(url, "/signer/v1/signer-config", {}, headers);
  const custody = res.json.custody as { mode: string; shareKey: string } | undefined;
  if (!custody) throw new Error(`signer-config has no custody: ${JSON.stringify(res.json)}`);
  return custody.shareKey;
}

/** A stamped submit with an optional sealed user share. */
export async function submitStamped(
  url: string,
  path: string,
  text: string,
  sessionKey: Uint8Array,
  share?: string,
) {
  const res = await post(url, `/public/v1/submit/${path}`, text, {
    "X-Stamp": stampWithPrivateKey(text, sessionKey).stampHeaderValue,
    ...(share ? { [USER_SHARE_HEADER_NAME]: share } : {}),
  });
  return { ...res, text };
}

/**
 * Makes the user's split wallet as a key holder does: a new phrase, its accounts, the 2-of-2 split, the
 * service share sealed to the share key for this organisation, and `create_split_wallet` stamped by the
 * session key with the user share sealed to its body. Throws unless the service answers COMPLETED.
 */
export async function makeSplitWallet(
  h: { url: string; now?: () => number },
  user: SplitUser,
  headers: Record<string, string>,
): Promise<SplitKeyHolder> {
  const shareKey = await fetchShareKey(h.url, headers);
  const { secret, accounts } = await newWalletSecret();
  const mnemonic = mnemonicOfSecret(secret) ?? "";
  const encoded = encodeWalletSecret(secret);
  wipeWalletSecret(secret);
  const { userShare, serviceShare } = await splitWalletSecret(encoded);
  encoded.fill(0);
  const sealedServiceShare = await sealServiceShare({ serviceShare, shareKey, organizationId: user.orgId });
  serviceShare.fill(0);
  const now = () => h.now?.() ?? Date.now();
  const sealFor = (body: string) => sealUserShare({ userShare, shareKey, body });
  const holder: Omit<SplitKeyHolder, "walletId" | "address" | "solanaAddress"> = {
    orgId: user.orgId,
    userId: user.userId,
    accounts,
    mnemonic,
    userShare,
    shareKey,
    sealFor,
    async submit(path, body, opts = {}) {
      const text = JSON.stringify({ timestampMs: String(now()), organizationId: user.orgId, ...body });
      const share =
        opts.share === "none"
          ? undefined
          : opts.share && opts.share !== "own"
            ? opts.share
            : await sealFor(text);
      return {
        ...(await submitStamped(h.url, path, text, user.sessionKey, share)),
        ...(share ? { share } : {}),
      };
    },
  };
  const made = await holder.submit("create_split_wallet", {
    type: "ACTIVITY_TYPE_CREATE_SPLIT_WALLET",
    parameters: { serviceShare: sealedServiceShare, accounts },
  });
  const activity = made.json.activity as { status: string; result: Record<string, unknown> } | undefined;
  if (made.status !== 200 || activity?.status !== "ACTIVITY_STATUS_COMPLETED") {
    throw new Error(`create_split_wallet answered ${made.status}: ${JSON.stringify(made.json)}`);
  }
  const result = activity.result.createSplitWalletResult as { walletId: string; addresses: string[] };
  const evm = accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_ETHEREUM");
  const sol = accounts.find((a) => a.addressFormat === "ADDRESS_FORMAT_SOLANA");
  return {
    ...holder,
    walletId: result.walletId,
    address: evm?.address ?? "",
    solanaAddress: sol?.address ?? "",
  };
}

/** A holder of a user share of a wallet moved to split custody (begin/complete_split_wallet). */
export type ConvertedHolder = Pick<
  SplitKeyHolder,
  "orgId" | "userId" | "walletId" | "userShare" | "shareKey" | "sealFor" | "submit"
>;

/**
 * The first phase of moving a whole wallet to split custody, as a key holder runs it: an ephemeral P-256
 * key, `begin_split_wallet` stamped by the session (no share), and the answer's user share opened with
 * the ephemeral key. `userShare` is undefined when the service refused.
 */
export async function beginSplit(
  h: { url: string; now?: () => number },
  user: SplitUser,
  walletId: string,
  extra: Record<string, unknown> = {},
): Promise<{ status: number; json: Record<string, unknown>; userShare?: Uint8Array }> {
  const ephemeral = generateP256PrivateKey();
  const publicKey = toHex(p256PublicKeyFromPrivate(ephemeral, false));
  const text = JSON.stringify({
    timestampMs: String(h.now?.() ?? Date.now()),
    organizationId: user.orgId,
    type: "ACTIVITY_TYPE_BEGIN_SPLIT_WALLET",
    parameters: { walletId, targetPublicKey: publicKey, ...extra },
  });
  const res = await submitStamped(h.url, "begin_split_wallet", text, user.sessionKey);
  const activity = res.json.activity as { status: string; result: Record<string, unknown> } | undefined;
  if (res.status !== 200 || activity?.status !== "ACTIVITY_STATUS_COMPLETED") return res;
  const result = activity.result.beginSplitWalletResult as { userShare: string };
  const userShare = await openSplitShare({
    sealed: result.userShare,
    walletId,
    key: { privateKey: ephemeral, publicKey },
  });
  return { ...res, userShare };
}

/** A holder of `userShare` for `user`: seals it to each submit's body (`complete_split_wallet`, signing). */
export function holderOfShare(
  h: { url: string; now?: () => number },
  user: SplitUser,
  held: { walletId: string; userShare: Uint8Array; shareKey: string },
): ConvertedHolder {
  const { userShare, shareKey } = held;
  const sealFor = (body: string) => sealUserShare({ userShare, shareKey, body });
  return {
    orgId: user.orgId,
    userId: user.userId,
    walletId: held.walletId,
    userShare,
    shareKey,
    sealFor,
    async submit(path, body, opts = {}) {
      const text = JSON.stringify({
        timestampMs: String(h.now?.() ?? Date.now()),
        organizationId: user.orgId,
        ...body,
      });
      const share =
        opts.share === "none"
          ? undefined
          : opts.share && opts.share !== "own"
            ? opts.share
            : await sealFor(text);
      return {
        ...(await submitStamped(h.url, path, text, user.sessionKey, share)),
        ...(share ? { share } : {}),
      };
    },
  };
}

/**
 * Moves the user's whole wallet `walletId` to split custody as a key holder does after sign-in:
 * begin_split_wallet, then complete_split_wallet carrying the share it answered. Throws unless both
 * complete.
 */
export async function convertToSplit(
  h: { url: string; now?: () => number },
  user: SplitUser,
  walletId: string,
  headers: Record<string, string>,
): Promise<ConvertedHolder> {
  const shareKey = await fetchShareKey(h.url, headers);
  const begun = await beginSplit(h, user, walletId);
  if (!begun.userShare)
    throw new Error(`begin_split_wallet answered ${begun.status}: ${JSON.stringify(begun.json)}`);
  const holder = holderOfShare(h, user, { walletId, userShare: begun.userShare, shareKey });
  const done = await holder.submit("complete_split_wallet", completeSplitBody(walletId));
  const activity = done.json.activity as { status: string } | undefined;
  if (done.status !== 200 || activity?.status !== "ACTIVITY_STATUS_COMPLETED") {
    throw new Error(`complete_split_wallet answered ${done.status}: ${JSON.stringify(done.json)}`);
  }
  return holder;
}

/** A complete_split_wallet body (the envelope's timestamp and organisation are the holder's). */
export const completeSplitBody = (walletId: string) => ({
  type: "ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET",
  parameters: { walletId },
});

/** A sign_raw_payload body (the envelope's timestamp and organisation are the holder's). */
export function signRawBody(signWith: string, payload: string, extra: Record<string, unknown> = {}) {
  return {
    type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
    parameters: {
      signWith,
      payload,
      encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
      hashFunction: "HASH_FUNCTION_NO_OP",
      ...extra,
    },
  };
}

/** A split-custody app for the service tests (config `apps[]`), and the header its API key sends. */
export const SPLIT_APP = {
  id: "split-app",
  name: "Split App",
  apiKeys: ["lk_split_key_0123456789abcdef"],
  allowedOrigins: ["http://split.test"],
  emailMode: "OTP" as const,
  magicLinkRedirectUrls: ["http://split.test/welcome"],
  custody: "split" as const,
};
export const SPLIT = { authorization: `Bearer ${SPLIT_APP.apiKeys[0]}` };

/** A wallet imported into a split app, as the import frame split it: the user share it kept, the accounts. */
export interface SplitImport {
  status: number;
  json: Record<string, unknown>;
  /** The id the import bundle named (the import key's), under which the frame keeps the share. */
  walletId: string;
  userShare: Uint8Array;
  accounts: PublicAccount[];
  /** A holder of the imported wallet's share (seals it to each submit's body). */
  holder: ConvertedHolder;
}

/**
 * An import into a split app as the import frame and the key holder run it (docs/split-custody.md §5,
 * Import): init_import_wallet, the bundle checked against the pinned import-signing key (it says
 * `custody: "split"` and the wallet's id), the typed secret made a wallet secret and split 2-of-2, only
 * the service share sealed to the import key, and import_wallet with the public accounts, its stamp
 * carrying the user share sealed to its body. `tamper` changes what is sent, for the refusals.
 */
export async function importSplit(
  h: { url: string; now?: () => number },
  user: SplitUser,
  appId: string,
  headers: Record<string, string>,
  imported: ImportSecret,
  tamper: {
    accounts?: (accounts: PublicAccount[]) => PublicAccount[];
    plaintext?: (serviceShare: Uint8Array) => Uint8Array;
    share?: "none" | ((body: string, own: string) => Promise<string>);
  } = {},
): Promise<SplitImport> {
  const shareKey = await fetchShareKey(h.url, headers);
  const now = () => String(h.now?.() ?? Date.now());
  const initText = JSON.stringify({
    timestampMs: now(),
    organizationId: user.orgId,
    type: "ACTIVITY_TYPE_INIT_IMPORT_WALLET",
    parameters: { userId: user.userId },
  });
  const init = await submitStamped(h.url, "init_import_wallet", initText, user.sessionKey);
  const activity = init.json.activity as { result: Record<string, { importBundle: string }> } | undefined;
  const importBundle = activity?.result.initImportWalletResult?.importBundle;
  if (!importBundle) throw new Error(`init_import_wallet answered ${init.status}: ${init.text}`);
  const html = await (await fetch(`${h.url}/frames/import?appId=${appId}`)).text();
  const signer = /name="latchkey-import-signer" content="([0-9a-f]+)"/.exec(html)?.[1] ?? "";
  const checked = verifyImportBundle({
    importBundle,
    organizationId: user.orgId,
    userId: user.userId,
    signerPublicKey: signer,
    nowMs: h.now?.() ?? Date.now(),
  });
  if (!checked.split) throw new Error("the import bundle of a split user does not say split");
  const { walletId } = checked.split;
  const { secret, accounts } = await walletOfImport(imported);
  const encoded = encodeWalletSecret(secret);
  wipeWalletSecret(secret);
  const { userShare, serviceShare } = await splitWalletSecret(encoded);
  encoded.fill(0);
  const encryptedBundle = await encryptToImportKey({
    plaintext: tamper.plaintext ? tamper.plaintext(serviceShare) : encodeSplitImport(serviceShare),
    targetPublicKey: checked.targetPublicKey,
  });
  const text = JSON.stringify({
    timestampMs: now(),
    organizationId: user.orgId,
    type: "ACTIVITY_TYPE_IMPORT_WALLET",
    parameters: {
      userId: user.userId,
      encryptedBundle,
      accounts: tamper.accounts ? tamper.accounts(accounts) : accounts,
    },
  });
  const own = await sealUserShare({ userShare, shareKey, body: text });
  const share = tamper.share === "none" ? undefined : tamper.share ? await tamper.share(text, own) : own;
  const res = await submitStamped(h.url, "import_wallet", text, user.sessionKey, share);
  return {
    status: res.status,
    json: res.json,
    walletId,
    userShare,
    accounts,
    holder: holderOfShare(h, user, { walletId, userShare, shareKey }),
  };
}

/**
 * A split wallet's export as the export frame receives it: `export_wallet` (no share: the service never
 * combines), the bundle opened with a fresh target key and the frame's signer key, `split:v1:` checked;
 * answers the service share it carries.
 */
export async function exportServiceShare(
  url: string,
  holder: Pick<SplitKeyHolder, "orgId" | "submit">,
  walletId: string,
): Promise<Uint8Array> {
  const privateKey = generateP256PrivateKey();
  const publicKey = toHex(p256PublicKeyFromPrivate(privateKey, false));
  const res = await holder.submit(
    "export_wallet",
    { type: "ACTIVITY_TYPE_EXPORT_WALLET", parameters: { walletId, targetPublicKey: publicKey } },
    { share: "none" },
  );
  if (res.status !== 200) throw new Error(`export_wallet answered ${res.status}: ${res.text}`);
  const activity = res.json.activity as { result: { exportWalletResult: { exportBundle: string } } };
  const html = await (await fetch(`${url}/frames/export?appId=${SPLIT_APP.id}`)).text();
  const signer = /name="latchkey-export-signer" content="([0-9a-f]+)"/.exec(html)?.[1] ?? "";
  const plaintext = new TextDecoder().decode(
    await openExportBundle({
      exportBundle: activity.result.exportWalletResult.exportBundle,
      targetPrivateKey: privateKey,
      targetPublicKey: publicKey,
      organizationId: holder.orgId,
      signerPublicKey: signer,
    }),
  );
  if (!plaintext.startsWith(SPLIT_EXPORT_PREFIX)) throw new Error("the export bundle is not split:v1:");
  return new Uint8Array(Buffer.from(plaintext.slice(SPLIT_EXPORT_PREFIX.length), "base64url"));
}
