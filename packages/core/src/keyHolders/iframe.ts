import type { FrameMethod, FrameRequest } from "@latchkey/protocol/frame";
import { type CoreErrorCode, LatchkeyError, SignerError, type SignerErrorCode } from "../errors";
import { type FrameChannel, openFrameChannel } from "./frameChannel";
import type {
  CreatedSplitWallet,
  KeyHolder,
  KeyHolderStamp,
  KeyHolderStorage,
  ProtectedShare,
  SignInWallet,
  WalletShareEntry,
} from "./types";

/** The auth frame's element id unless `iframeId` says otherwise. */
export const DEFAULT_IFRAME_ID = "latchkey-signer-iframe";

/** Where the auth frame is, where its hidden iframe goes, and how long to wait for it. */
export interface IframeKeyHolderOptions {
  /** The frame page, `<service>/frames/auth` (an `appId` query parameter narrows its frame-ancestors). */
  frameUrl: string;
  /** Where the hidden iframe goes; `document.body` by default. */
  container?: HTMLElement;
  iframeId?: string;
  /** How long to wait for the frame to load (ms, default 15 s: a slow network may need it). */
  timeoutMs?: number;
  /**
   * How long a loaded frame has to answer (ms, default 1.5 s). A frame that loaded but stays silent was
   * refused (frame-ancestors), is not the auth frame (wrong URL), or refused this page's origin.
   */
  answerTimeoutMs?: number;
}

/**
 * Keys held by the auth frame, a page of the signer service on its own origin: its target key is a
 * non-extractable WebCrypto key in the frame's IndexedDB and the session key lives only in the frame's
 * memory, so the host page's scripts can ask for stamps but never read a key. Requests go over a
 * MessageChannel handed to the frame's exact origin and are matched to answers by id.
 *
 * @example
 * const keyHolder = createIframeKeyHolder({ frameUrl: "https://auth.example.com/frames/auth" });
 */
export function createIframeKeyHolder(options: IframeKeyHolderOptions): KeyHolder {
  const frameOrigin = new URL(options.frameUrl).origin;
  let connection: Promise<{ channel: FrameChannel; storage: KeyHolderStorage }> | undefined;

  function connect() {
    connection ??= openFrameChannel({
      frameUrl: options.frameUrl,
      container: options.container,
      iframeId: options.iframeId ?? DEFAULT_IFRAME_ID,
      title: "Latchkey signer",
      name: "auth frame",
      hidden: true,
      timeoutMs: options.timeoutMs ?? 15_000,
      answerTimeoutMs: options.answerTimeoutMs ?? 1_500,
      toError: (code, message) =>
        code in SIGNER_ERROR_CODES
          ? new SignerError(code as SignerErrorCode)
          : new LatchkeyError(code as CoreErrorCode, message),
    }).then(
      (channel) => {
        const { ready } = channel;
        const storage: KeyHolderStorage =
          ready.storage === "memory"
            ? { storage: "memory", ...(ready.storageError ? { storageError: ready.storageError } : {}) }
            : { storage: "persistent" };
        if (storage.storage === "memory") {
          console.warn(
            `[latchkey] The auth frame at ${frameOrigin} may not use storage here` +
              `${storage.storageError ? ` (${storage.storageError})` : ""}. Sign-in works, but the ` +
              "session ends when this page is reloaded. Some browsers refuse storage to a frame from another " +
              "site, and the others keep it apart for each site that embeds it (partitioned): serve the " +
              "service on the app's own site (e.g. auth.example.com for example.com).",
          );
        }
        return { channel, storage };
      },
      (error: unknown) => {
        connection = undefined;
        throw error;
      },
    );
    return connection;
  }

  async function call<T>(method: FrameMethod, params: FrameRequest["params"] = {}): Promise<T> {
    const { channel } = await connect();
    return channel.call<T>(method, params);
  }

  return {
    kind: "iframe",
    ready: async () => (await connect()).storage,
    initTargetKey: () => call<string>("initTargetKey"),
    getTargetPublicKey: () => call<string | null>("getTargetPublicKey"),
    injectCredentialBundle: (bundle) => call<string>("injectCredentialBundle", { bundle }),
    stamp: (body) => call<KeyHolderStamp>("stamp", { body }),
    // The frame draws the request over the page while the user decides, then hides again.
    confirmStamp: async (body, confirmOptions) => {
      const { channel } = await connect();
      const { iframe } = channel;
      const previous = iframe.getAttribute("style") ?? "";
      iframe.removeAttribute("aria-hidden");
      iframe.setAttribute(
        "style",
        "display:block;position:fixed;inset:0;width:100%;height:100%;border:0;z-index:2147483647;" +
          "background:transparent;color-scheme:normal",
      );
      iframe.focus();
      try {
        return await channel.call<KeyHolderStamp>("confirmSigning", {
          body,
          ...(confirmOptions?.locale ? { locale: confirmOptions.locale } : {}),
        });
      } finally {
        iframe.setAttribute("style", previous);
        iframe.setAttribute("aria-hidden", "true");
      }
    },
    // The frame keeps the user shares of split wallets across a sign-out: they are the device's.
    clear: async (clearOptions) => {
      await call<void>("clear", { targetKey: clearOptions?.targetKey ?? true });
    },
    // The frame seals to the share key its own page carries, never to one the host page names (it
    // reads only the fields it knows of each request).
    custody: {
      createSplitWallet: (p) => call<CreatedSplitWallet>("createSplitWallet", p),
      prepareSignInWallet: (p) => call<SignInWallet>("prepareSignInWallet", p),
      keepSignInWallet: (p) => call<boolean>("keepSignInWallet", p),
      hasUserShare: (p) => call<boolean>("hasUserShare", p),
      beginSplit: (p) => call<{ targetPublicKey: string }>("beginSplit", p),
      acceptSplitShare: (p) => call<void>("acceptSplitShare", p),
      protectShare: (p) => call<ProtectedShare>("protectShare", p),
      restoreShare: (p) => call<void>("restoreShare", p),
      walletShares: (p) => call<WalletShareEntry[]>("walletShares", p),
    },
    destroy() {
      const current = connection;
      connection = undefined;
      void current?.then(({ channel }) => channel.close()).catch(() => {});
    },
  };
}

const SIGNER_ERROR_CODES: Record<string, true> = {
  NOT_AUTHENTICATED: true,
  // The user pressed Cancel in the frame's confirmation step.
  USER_REJECTED: true,
  CREATE_API_KEY_FAILED: true,
  INJECT_BUNDLE_FAILED: true,
};
