import type { ConfirmationKind, PreviewSigningRequest } from "@latchkey/protocol";
import type { Address, Hex } from "viem";
import { SignerError } from "../errors";
import { signerConfigOf } from "./custody";
import type { SignerBase } from "./types";

/**
 * What the user is asked to sign, as the wallet received it: the confirmation step decodes it (with
 * @latchkey/decoder) into the sentences the user reads. `activity` is the signing request exactly as the
 * service will get it, when the service reads it: `previewSigning` asks the service what it does (its
 * simulation, the policy's verdict).
 */
export type SigningRequest =
  /** An EIP-191 message: its bytes as hex. */
  (
    | { kind: "message"; message: Hex }
    /** EIP-712 typed data (a smart account's user operation is one: a PackedUserOperation). */
    | {
        kind: "typedData";
        typedData: {
          domain?: Record<string, unknown>;
          types: Record<string, readonly { name: string; type: string }[]>;
          primaryType: string;
          message: Record<string, unknown>;
        };
      }
    /** A transaction from the user's EOA. */
    | {
        kind: "transaction";
        chainId: number;
        from: Address;
        to?: Address | null;
        value?: bigint;
        data?: Hex;
        authorizationList?: readonly { chainId: number; address: Address; nonce: number }[];
      }
    /** An EIP-7702 authorization: the code the account will run. */
    | { kind: "authorization"; chainId: number; address: Address; nonce: number }
  ) & { activity?: PreviewSigningRequest };

/** One confirmation asked of the handler. */
export interface SigningConfirmation {
  request: SigningRequest;
  /** The call itself asked for a confirmation (`confirm: true`); else only the app's config may. */
  requested: boolean;
}

/**
 * Shows a signing request to the user and settles when they decide: true to sign, false to refuse. A
 * handler that does not confirm this request (its app does not ask for confirmations) answers true at
 * once. `@latchkey/react`'s provider sets one: the modal's confirmation step.
 */
export type SigningConfirmationHandler = (confirmation: SigningConfirmation) => Promise<boolean>;

/** Simple7702Account v0.8 (eth-infinitism), the delegate of every Latchkey 7702 account; lower case. */
const SIMPLE_7702_ACCOUNT_V08 = "0xe6cae83bde06e4c305530e199d7217f42808555b";

interface ConfirmationState {
  handler?: SigningConfirmationHandler;
  /** Signatures made inside `withSigningConfirmation`: each one is confirmed. */
  forced: number;
}
const states = new WeakMap<SignerBase, ConfirmationState>();
const stateOf = (signer: SignerBase): ConfirmationState => {
  let state = states.get(signer);
  if (!state) {
    state = { forced: 0 };
    states.set(signer, state);
  }
  return state;
};

/**
 * Sets who confirms this signer's signatures (the modal, for `@latchkey/react`); answers a function that
 * takes it away again.
 *
 * @example
 * const off = setSigningConfirmation(signer, async ({ request }) => window.confirm(JSON.stringify(request)));
 */
export function setSigningConfirmation(signer: SignerBase, handler: SigningConfirmationHandler): () => void {
  const state = stateOf(signer);
  state.handler = handler;
  return () => {
    if (state.handler === handler) delete state.handler;
  };
}

/**
 * Runs `fn` with every signature it makes confirmed by the user (the per-call `confirm: true`). While it
 * runs, another signature of the same signer is confirmed too: the safe side.
 *
 * @example
 * const hash = await withSigningConfirmation(signer, true, () => walletClient.sendTransaction(tx));
 */
export async function withSigningConfirmation<T>(
  signer: SignerBase,
  confirm: boolean | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (!confirm) return fn();
  const state = stateOf(signer);
  state.forced++;
  try {
    return await fn();
  } finally {
    state.forced--;
  }
}

/**
 * Asks the handler before a signature; throws USER_REJECTED when the user refuses, and
 * CONFIRMATION_UNAVAILABLE when a call asked for a confirmation that nobody can show.
 */
export async function confirmSigning(
  signer: SignerBase,
  request: SigningRequest,
  confirm?: boolean,
): Promise<void> {
  // The delegation a 7702 smart account's first operation carries goes to its own implementation, never one
  // the app or the page chooses: the operation it comes with is what the user confirms.
  if (request.kind === "authorization" && request.address.toLowerCase() === SIMPLE_7702_ACCOUNT_V08) return;
  const state = stateOf(signer);
  const requested = confirm === true || state.forced > 0;
  // The service makes the user confirm this in its auth frame (enforced confirmations): the frame's
  // step is the one that counts, so the page does not ask first.
  if (await confirmedInFrame(signer, request)) return;
  if (!state.handler) {
    if (requested) throw new SignerError("CONFIRMATION_UNAVAILABLE");
    return;
  }
  let confirmed: boolean;
  try {
    confirmed = await state.handler({ request, requested });
  } catch (cause) {
    throw new SignerError("USER_REJECTED", { cause });
  }
  if (!confirmed) throw new SignerError("USER_REJECTED");
}

/** The kind `signingPolicy.confirmation.required` names for a request the page would confirm. */
function kindOf(request: SigningRequest): ConfirmationKind {
  if (request.kind === "typedData")
    return request.typedData.primaryType === "PackedUserOperation" ? "userOperation" : "typedData";
  return request.kind;
}

/**
 * Whether the service enforces this request's confirmation in the auth frame (its signer config says
 * so) and the key holder can show it there. A signer config that cannot be read says no: the page's step
 * then runs as before.
 */
async function confirmedInFrame(signer: SignerBase, request: SigningRequest): Promise<boolean> {
  if (!signer.keyHolder.confirmStamp) return false;
  const required = await signerConfigOf(signer).then(
    (config) => config.confirmation?.required,
    () => undefined,
  );
  if (!required) return false;
  return required === true || required.includes(kindOf(request));
}
