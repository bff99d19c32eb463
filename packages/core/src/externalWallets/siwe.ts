import { signerRoutes } from "@latchkey/protocol/wire";
import { type Config, signMessage } from "@wagmi/core";
import type { Address, Hex } from "viem";
import { createSiweMessage } from "viem/siwe";
import { ExternalWalletError } from "../errors/externalWallet";
import type { SignerBase } from "../signer/types";
import type { SiweSession } from "../types/externalWallets";
import { toExternalWalletError } from "./toExternalWalletError";
import type { ExternalWalletsParameters } from "./types";

/** The message, and so the service's token, lasts a day (the service's own cap) unless configured. */
const DEFAULT_EXPIRATION_SECONDS = 86_400;
const DEFAULT_STATEMENT = "Sign in with your wallet.";

/**
 * Sign-In with Ethereum (EIP-4361): the service issues a single-use nonce for this app, address and
 * chain; the wallet signs a message for this page's origin; the service verifies it (EOA, ERC-1271 or
 * ERC-6492) and answers a token the app's backend can check.
 */
export async function signInWithEthereum(
  signer: SignerBase,
  options: ExternalWalletsParameters,
  config: Config,
  address: Address,
  chainId: number,
): Promise<SiweSession> {
  const location = (globalThis as { location?: { host: string; origin: string } }).location;
  if (!location) throw new ExternalWalletError("SIWE_FAILED", { details: "needs a browser page" });
  const settings = typeof options.siwe === "object" ? options.siwe : {};
  let nonce: { nonce: string };
  try {
    nonce = await signer.client.call(signerRoutes.siweNonce, { address, chainId });
  } catch (error) {
    throw new ExternalWalletError("SIWE_FAILED", { cause: error, details: (error as Error).message });
  }
  const issuedAt = new Date();
  const message = createSiweMessage({
    domain: location.host,
    address,
    statement: settings.statement ?? DEFAULT_STATEMENT,
    uri: location.origin,
    version: "1",
    chainId,
    nonce: nonce.nonce,
    issuedAt,
    expirationTime: new Date(
      issuedAt.getTime() + (settings.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS) * 1000,
    ),
  });
  let signature: Hex;
  try {
    signature = await signMessage(config, { message });
  } catch (error) {
    throw toExternalWalletError(error);
  }
  try {
    const verified = await signer.client.call(signerRoutes.siweVerify, { message, signature });
    return { ...verified, address: verified.address as Address };
  } catch (error) {
    throw new ExternalWalletError("SIWE_FAILED", { cause: error, details: (error as Error).message });
  }
}
