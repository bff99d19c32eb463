import {
  type AuthorizationRequest,
  hashMessage,
  hashTypedData,
  keccak256,
  type LocalAccount,
  parseSignature,
  type SignableMessage,
  serializeTransaction,
  type TransactionSerializable,
  type TypedDataDefinition,
} from "viem";
import { toAccount } from "viem/accounts";
import { hashAuthorization } from "viem/utils";
import { SignerError } from "../errors";
import type { SignerBase } from "../signer/types";
import { signRawMessage } from "./signRawMessage";

/**
 * The signed-in user's EVM wallet as a viem LocalAccount: `signMessage` (EIP-191), `signTypedData`
 * (EIP-712), `signTransaction` (legacy, EIP-1559, EIP-7702, ...) and `signAuthorization` (EIP-7702).
 * Every signature is made by the service with the session held by the key holder.
 *
 * @example
 * const client = createWalletClient({ account: toViemAccount(signer), chain, transport: http() });
 */
export function toViemAccount(signer: SignerBase): LocalAccount {
  const user = signer.store.getState().user;
  if (!user) throw new SignerError("NOT_AUTHENTICATED");
  const sign = (hash: `0x${string}`) => signRawMessage(signer, { message: hash, mode: "ETHEREUM" });
  return toAccount({
    address: user.address,
    sign: ({ hash }) => sign(hash),
    signMessage: ({ message }: { message: SignableMessage }) => sign(hashMessage(message)),
    signTypedData: (typedData) => sign(hashTypedData(typedData as TypedDataDefinition)),
    async signTransaction(transaction, options) {
      const serializer = options?.serializer ?? serializeTransaction;
      const tx = transaction as TransactionSerializable;
      // EIP-4844 signs the payload body without the sidecars (as viem's own signTransaction does).
      const signable = tx.type === "eip4844" ? { ...tx, sidecars: false as const } : tx;
      const signature = parseSignature(await sign(keccak256(await serializer(signable as never))));
      return serializer(transaction as never, signature);
    },
    async signAuthorization(authorization: AuthorizationRequest) {
      const address = authorization.contractAddress ?? authorization.address;
      const { r, s, v, yParity } = parseSignature(
        await sign(
          hashAuthorization({ address, chainId: authorization.chainId, nonce: authorization.nonce }),
        ),
      );
      return { address, chainId: authorization.chainId, nonce: authorization.nonce, r, s, v, yParity };
    },
  });
}
