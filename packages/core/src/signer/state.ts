import { LatchkeyError } from "../errors";
import type { SignerStateError } from "./events";
import { SignerStatus } from "./status";
import type { SignerBase, SignerState } from "./types";

/** A signer before `init()`: nobody signed in yet, status INITIALIZING. */
export function initialSignerState(): SignerState {
  return { user: null, status: SignerStatus.INITIALIZING, error: null, mfaStatus: { mfaRequired: false } };
}

/** An error as the state keeps it: plain data, with the stable `code` of a LatchkeyError. */
export function toStateError(error: unknown): SignerStateError {
  if (error instanceof LatchkeyError) return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: "Error", message: String(error) };
}

/** Puts `error` in the state with `status` (DISCONNECTED by default), then throws it. */
export function fail(
  signer: SignerBase,
  error: unknown,
  status: SignerStatus = SignerStatus.DISCONNECTED,
): never {
  signer.store.setState({ error: toStateError(error), status });
  throw error;
}
