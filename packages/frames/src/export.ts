import { storedUserShares, walletShareEntries, walletShareName } from "@latchkey/keystore";
import { decodeBase64url } from "@latchkey/protocol/codecs";
import { BundleError, generateTargetKeyPair, openExportBundle } from "@latchkey/protocol/crypto";
import {
  combineShares,
  decodeWalletSecret,
  mnemonicOfSecret,
  wipeWalletSecret,
} from "@latchkey/protocol/custody";
import {
  EXPORT_SIGNER_META,
  type ExportFrameRequest,
  type ExportFrameShown,
  type ExportFrameTexts,
} from "@latchkey/protocol/frame";
import { ed25519 } from "@noble/curves/ed25519";
import { hmac } from "@noble/hashes/hmac";
import { sha512 } from "@noble/hashes/sha2";
import { base58 } from "@scure/base";
import { HDKey } from "@scure/bip32";
import { authFrameDatabase } from "./database";
import { metaContent } from "./meta";
import { serveParent } from "./serveParent";

/**
 * The export frame (`/frames/export`): shows a wallet's recovery phrase to the user without the host
 * page ever holding it. Its target key is made when the page loads, non-extractable and never stored;
 * the host gets only its public key, asks the service for an export bundle sealed to it and hands the
 * bundle over. The frame checks it against the export-signing key the service pinned in this page, opens
 * it and renders the words in its own DOM; on the user's click it also shows the EVM private key and the
 * Solana secret key, derived here. Channels are accepted from the parent window on the app's allowed
 * origins only (the service also sends `frame-ancestors` with them). No network requests.
 */
const DEFAULT_TEXTS: Required<ExportFrameTexts> = {
  phraseTitle: "Your recovery phrase",
  showEvmKey: "Show EVM private key",
  showSolanaKey: "Show Solana secret key",
  evmKeyTitle: "EVM private key",
  solanaKeyTitle: "Solana secret key",
  invalidBundle: "The export could not be verified.",
  noUserShare: "This device does not hold your part of the wallet. Restore the wallet on this device first.",
};

/** A split wallet's export carries the service's share only (docs/split-custody.md §5). */
const SPLIT_PREFIX = "split:v1:";

/**
 * The phrase of a split wallet: the service's share from the bundle, the user's from the auth frame's
 * store for this parent origin, put together here and nowhere else. Null when this device holds no share.
 */
async function splitPhrase(
  serviceShareText: string,
  parentOrigin: string,
  organizationId: string,
  walletId: string | undefined,
): Promise<string | null> {
  // An imported wallet's share is kept under its id (docs/split-custody.md §5), the first wallet's under
  // the organisation.
  const shares = storedUserShares(authFrameDatabase(parentOrigin));
  const listed =
    walletId !== undefined &&
    (await walletShareEntries(shares, organizationId).catch(() => [])).some((e) => e.walletId === walletId);
  const userShare = await shares
    .get(listed && walletId ? walletShareName(organizationId, walletId) : organizationId)
    .catch(() => null);
  if (!userShare) return null;
  const serviceShare = decodeBase64url(serviceShareText);
  const encoded = await combineShares(userShare, serviceShare).finally(() => {
    userShare.fill(0);
    serviceShare.fill(0);
  });
  const secret = decodeWalletSecret(encoded);
  encoded.fill(0);
  try {
    const phrase = mnemonicOfSecret(secret);
    if (phrase) return phrase;
    // An imported key: shown as the service shows a whole imported key (renderKeys).
    const [only] = secret.accounts;
    if (!only || secret.accounts.length !== 1)
      throw new BundleError("the split wallet has no recovery phrase");
    if (only.curve === "CURVE_SECP256K1")
      return JSON.stringify({ evmPrivateKey: `0x${hex(only.privateKey)}` });
    const full = new Uint8Array(64);
    full.set(only.privateKey);
    full.set(ed25519.getPublicKey(only.privateKey), 32);
    return JSON.stringify({ solanaSecretKey: base58.encode(full) });
  } finally {
    wipeWalletSecret(secret);
  }
}

// Made once per page load: a bundle sealed to it opens here only, and only until the frame is closed.
const targetKey = generateTargetKeyPair(false);

const utf8 = (s: string) => new TextEncoder().encode(s);
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** BIP-39 seed: PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" (no passphrase), in WebCrypto. */
async function seedOf(phrase: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", utf8(phrase.normalize("NFKD")), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-512", salt: utf8("mnemonic"), iterations: 2048 },
    key,
    512,
  );
  return new Uint8Array(bits);
}

/** The EVM key at m/44'/60'/0'/0/0 (BIP-32, secp256k1), as 0x-hex: what wallets import. */
async function evmPrivateKey(phrase: string): Promise<string> {
  const key = HDKey.fromMasterSeed(await seedOf(phrase)).derive("m/44'/60'/0'/0/0").privateKey;
  if (!key) throw new Error("no key");
  return `0x${hex(key)}`;
}

/**
 * The Solana key at m/44'/501'/0'/0' (SLIP-0010 ed25519, hardened steps, as the service derives it) as
 * base58 of the 64-byte secret ‖ public key: what Phantom and `solana-keygen` import.
 */
async function solanaSecretKey(phrase: string): Promise<string> {
  let I = hmac(sha512, utf8("ed25519 seed"), await seedOf(phrase));
  for (const index of [44, 501, 0, 0]) {
    const data = new Uint8Array(37);
    data.set(I.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, (index + 0x80000000) >>> 0);
    I = hmac(sha512, I.subarray(32), data);
  }
  const secret = I.subarray(0, 32);
  const out = new Uint8Array(64);
  out.set(secret);
  out.set(ed25519.getPublicKey(secret), 32);
  return base58.encode(out);
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function clear(): void {
  document.body.replaceChildren();
}

function showError(message: string): void {
  document.body.replaceChildren(el("p", { class: "error", role: "alert" }, message));
}

function keyReveal(label: string, title: string, testId: string, derive: () => Promise<string>) {
  const box = el("div", { class: "key" });
  const button = el("button", { type: "button" }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const value = await derive();
      box.replaceChildren(el("h2", {}, title), el("code", { "data-testid": testId }, value));
    } catch {
      button.disabled = false;
    }
  });
  box.append(button);
  return box;
}

function render(phrase: string, texts: Required<ExportFrameTexts>): number {
  const words = phrase.trim().split(/\s+/);
  const list = el("ol", { class: "words", "data-testid": "export-words" });
  words.forEach((word, i) => {
    const item = el("li");
    item.append(el("span", { class: "n" }, `${i + 1}`), el("span", { "data-testid": "export-word" }, word));
    list.append(item);
  });
  document.body.replaceChildren(
    el("h1", {}, texts.phraseTitle),
    list,
    keyReveal(texts.showEvmKey, texts.evmKeyTitle, "export-evm-key", () => evmPrivateKey(phrase)),
    keyReveal(texts.showSolanaKey, texts.solanaKeyTitle, "export-solana-key", () => solanaSecretKey(phrase)),
  );
  return words.length;
}

/** An imported key's export (`{evmPrivateKey?, solanaSecretKey?}`), shown as it is; no words (0). */
function renderKeys(json: string, texts: Required<ExportFrameTexts>): number {
  const keys = JSON.parse(json) as { evmPrivateKey?: unknown; solanaSecretKey?: unknown };
  const parts: HTMLElement[] = [];
  if (typeof keys.evmPrivateKey === "string")
    parts.push(
      el("h2", {}, texts.evmKeyTitle),
      el("code", { "data-testid": "export-evm-key" }, keys.evmPrivateKey),
    );
  if (typeof keys.solanaSecretKey === "string")
    parts.push(
      el("h2", {}, texts.solanaKeyTitle),
      el("code", { "data-testid": "export-solana-key" }, keys.solanaSecretKey),
    );
  document.body.replaceChildren(...parts);
  return 0;
}

function textsOf(given: ExportFrameTexts | undefined): Required<ExportFrameTexts> {
  const texts = { ...DEFAULT_TEXTS };
  for (const k of Object.keys(DEFAULT_TEXTS) as (keyof ExportFrameTexts)[]) {
    const v = given?.[k];
    if (typeof v === "string" && v.length > 0 && v.length < 200) texts[k] = v;
  }
  return texts;
}

async function handle(request: ExportFrameRequest, parentOrigin: string): Promise<unknown> {
  const { params } = request;
  switch (request.method) {
    case "getTargetPublicKey":
      return (await targetKey).publicKeyHex;
    case "injectExportBundle": {
      if (typeof params?.exportBundle !== "string") throw new TypeError("exportBundle must be a string");
      if (typeof params.organizationId !== "string") throw new TypeError("organizationId must be a string");
      const texts = textsOf(params.texts);
      const signer = metaContent(EXPORT_SIGNER_META);
      const { privateKey, publicKeyHex } = await targetKey;
      let plaintext: Uint8Array;
      try {
        if (!signer) throw new BundleError("no export-signing key pinned");
        plaintext = await openExportBundle({
          exportBundle: params.exportBundle,
          targetPrivateKey: privateKey,
          targetPublicKey: publicKeyHex,
          organizationId: params.organizationId,
          signerPublicKey: signer,
        });
      } catch (error) {
        showError(texts.invalidBundle);
        throw error;
      }
      let phrase = new TextDecoder().decode(plaintext);
      plaintext.fill(0);
      if (phrase.startsWith(SPLIT_PREFIX)) {
        const joined = await splitPhrase(
          phrase.slice(SPLIT_PREFIX.length),
          parentOrigin,
          params.organizationId,
          typeof params.walletId === "string" ? params.walletId : undefined,
        );
        if (!joined) {
          showError(texts.noUserShare);
          throw Object.assign(new Error("this device holds no share of the wallet"), {
            code: "USER_SHARE_REQUIRED",
          });
        }
        phrase = joined;
      }
      // A wallet imported as a key has no phrase: the service sends the key itself, as JSON.
      if (phrase.startsWith("{")) return { wordCount: renderKeys(phrase, texts) } satisfies ExportFrameShown;
      return { wordCount: render(phrase, texts) } satisfies ExportFrameShown;
    }
    case "clear":
      clear();
      return null;
    default:
      throw new TypeError("unknown method");
  }
}

serveParent<ExportFrameRequest>({
  handle,
  codeOf: (error) =>
    error instanceof BundleError
      ? "INVALID_EXPORT_BUNDLE"
      : (error as { code?: unknown }).code === "USER_SHARE_REQUIRED"
        ? "USER_SHARE_REQUIRED"
        : undefined,
  ready: () => ({ storage: "memory" }),
});
