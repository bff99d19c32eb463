import {
  type Address,
  type Hex,
  hashTypedData,
  isAddress,
  isAddressEqual,
  isHex,
  type TypedDataDefinition,
} from "viem";
import { toViemAccount } from "../../accounts/toViemAccount";
import { getSmartAccountClient } from "../../actions/getSmartAccountClient";
import { requireUser } from "../../signer/guards";
import { invalidParams, unauthorizedAddress } from "../errors";
import type { MethodHandler, ProviderContext } from "../types";
import { asAddress } from "./params";

/**
 * Who signs for `address`, which must be this wallet's: the smart account (what `eth_accounts` answers)
 * or its owner, the embedded EOA. A LatchkeySimpleAccount (a 4337 account) signs as itself: its
 * signatures verify for its address (ERC-6492 while undeployed, ERC-1271 once deployed). Otherwise the
 * owner signs: for a 7702 account that is the account itself. 4100 for another address, or when nobody
 * is signed in.
 */
async function signerFor(
  ctx: ProviderContext,
  address: Address,
): Promise<{
  signMessage(args: { message: string | { raw: Hex } }): Promise<Hex>;
  signTypedData(typedData: TypedDataDefinition): Promise<Hex>;
}> {
  const user = await requireUser(ctx.signer);
  const owner = () => toViemAccount(ctx.signer);
  if (isAddressEqual(address, user.address)) return owner();
  if (!isAddressEqual(address, await ctx.account())) throw unauthorizedAddress(address);
  const config = ctx.chain();
  if (!config.bundlerUrl) return owner();
  const client = await getSmartAccountClient(ctx.signer, { chainId: config.chain.id });
  return client.smartAccountContract === "LatchkeySimpleAccount"
    ? {
        signMessage: (a) => client.account.signMessage(a),
        signTypedData: (t) => client.account.signTypedData(t),
      }
    : owner();
}

/**
 * `personal_sign` `[message, address]` (EIP-191; the legacy `[address, message]` order is taken too):
 * hex is signed as bytes, other text as UTF-8.
 *
 * Asked for the connected address, the signature verifies for it with viem's `verifyMessage`: for a 7702
 * account (the default) it is the EOA's own (ecrecover, or Simple7702Account's ERC-1271 once delegated);
 * for a LatchkeySimpleAccount (a 4337 account) the account's (ERC-6492 while undeployed, ERC-1271 once
 * deployed). A 4337 user's older SimpleAccount (v0.8: no ERC-1271) cannot verify anything: its owner, the
 * embedded EOA, signs, and a verifier must recover the signer and compare it with the account's `owner()`.
 */
export const personalSign: MethodHandler = async (ctx, params) => {
  let [message, address] = params;
  if (typeof address !== "string" || !isAddress(address, { strict: false })) {
    if (typeof message === "string" && isAddress(message, { strict: false }))
      [address, message] = [message, address];
  }
  const from = asAddress(address, "the address");
  if (typeof message !== "string") throw invalidParams("the message must be a string");
  const signer = await signerFor(ctx, from);
  return signer.signMessage({ message: isHex(message) ? { raw: message } : message });
};

/**
 * `eth_signTypedData_v4` `[address, typedData]` (EIP-712; the typed data as JSON or an object).
 *
 * As with `personal_sign`, it verifies for the connected address (`verifyTypedData`), except for an older
 * SimpleAccount's (its owner signs).
 */
export const ethSignTypedDataV4: MethodHandler = async (ctx, [address, data]) => {
  const from = asAddress(address, "the address");
  let typedData: unknown = data;
  if (typeof data === "string") {
    try {
      typedData = JSON.parse(data);
    } catch {
      throw invalidParams("the typed data is not JSON");
    }
  }
  const { types, primaryType, message } = (typedData ?? {}) as Record<string, unknown>;
  if (
    typeof types !== "object" ||
    types === null ||
    typeof primaryType !== "string" ||
    message === undefined
  ) {
    throw invalidParams("the typed data needs types, primaryType, domain and message (EIP-712)");
  }
  try {
    // viem checks the values against their types (addresses, integer and byte sizes) while hashing.
    hashTypedData(typedData as TypedDataDefinition);
  } catch (error) {
    throw invalidParams(`the typed data does not match its types: ${(error as Error).message}`);
  }
  const signer = await signerFor(ctx, from);
  return signer.signTypedData(typedData as TypedDataDefinition);
};
