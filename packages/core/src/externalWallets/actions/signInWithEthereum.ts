import { getAccount } from "@wagmi/core";
import { ExternalWalletError } from "../../errors/externalWallet";
import type { SiweSession } from "../../types/externalWallets";
import { requireWagmi } from "../config";
import { saveSiwe } from "../storage";
import { toExternalWalletError } from "../toExternalWalletError";
import type { WalletsConfig } from "../types";

/** Proves the connected wallet's address again (EIP-4361), and keeps the proof in the state and storage. */
export async function signInWithEthereum(config: WalletsConfig): Promise<SiweSession> {
  const account = getAccount(requireWagmi(config));
  if (account.status !== "connected" || !account.address || !account.chainId)
    throw new ExternalWalletError("CONNECTOR_NOT_CONNECTED");
  const siwe = await config.proveAddress(account.address, account.chainId).catch((error) => {
    throw toExternalWalletError(error);
  });
  saveSiwe(siwe);
  config.patchWallet({ siwe });
  return siwe;
}
