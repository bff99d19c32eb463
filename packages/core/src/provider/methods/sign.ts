import {
  type Address,
  hashTypedData,
  isAddress,
  isAddressEqual,
  isHex,
  type TypedDataDefinition,
} from "viem";
import { toViemAccount } from "../../actions/toViemAccount";
import { requireUser } from "../../signer/guards";
import { invalidParams, unauthorizedAddress } from "../errors";
import type { MethodHandler, ProviderContext } from "../types";
import { asAddress } from "./params";

/**
 * The address a signature is asked for must be this wallet's: the smart account (what `eth_accounts`
 * answers) or its owner, the embedded EOA. 4100 otherwise, or when nobody is signed in.
 */
async function assertOwnAddress(ctx: ProviderContext, address: Address): Promise<void> {
  const user = await requireUser(ctx.signer);
  if (isAddressEqual(address, user.address)) return;
  if (isAddressEqual(address, await ctx.account())) return;
  throw unauthorizedAddress(address);
}

/**
 * `personal_sign` `[message, address]` (EIP-191; the legacy `[address, message]` order is taken too):
 * hex is signed as bytes, other text as UTF-8.
 *
 * The signature is the OWNER's, the embedded EOA's. For a 7702 account (the default) that is the account
 * itself, so it verifies against the connected address (ecrecover, or Simple7702Account's ERC-1271 once
 * delegated). For a 4337 SimpleAccount (v0.8: no ERC-1271 `isValidSignature`) nothing could verify it
 * against the smart account's address: recover the signer and compare it with the account's owner.
 */
export const personalSign: MethodHandler = async (ctx, params) => {
  let [message, address] = params;
  if (typeof address !== "string" || !isAddress(address, { strict: false })) {
    if (typeof message === "string" && isAddress(message, { strict: false }))
      [address, message] = [message, address];
  }
  const from = asAddress(address, "the address");
  if (typeof message !== "string") throw invalidParams("the message must be a string");
  await assertOwnAddress(ctx, from);
  return toViemAccount(ctx.signer).signMessage({ message: isHex(message) ? { raw: message } : message });
};

/**
 * `eth_signTypedData_v4` `[address, typedData]` (EIP-712; the typed data as JSON or an object).
 *
 * As with `personal_sign`, the signature recovers to the OWNER (the embedded EOA): the account itself for
 * a 7702 account; for a 4337 SimpleAccount (not ERC-1271 compliant) not the smart account's address.
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
  await assertOwnAddress(ctx, from);
  return toViemAccount(ctx.signer).signTypedData(typedData as TypedDataDefinition);
};
