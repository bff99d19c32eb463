import { LatchkeyError } from "../errors";
import type { Emitter, SignerEvents, SignerStateError } from "./events";
import { SignerStatus } from "./status";
import type { Store } from "./store";
import type { SignerBase, SignerState } from "./types";

/** A signer before `init()`: nobody signed in yet, status INITIALIZING. */
export function initialSignerState(): SignerState {
  return {
    user: null,
    status: SignerStatus.INITIALIZING,
    error: null,
    mfaStatus: { mfaRequired: false },
    externalWallet: { status: "disconnected" },
  };
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

/**
 * The state notifications are derived from the store: `statusChanged`, `errorChanged`, `userChanged`,
 * and (spec §4) `connected` on the first user, `disconnected` on clearing it. Subscribed in this order,
 * so one change that sets a status and a user announces the status first.
 */
export function deriveEvents(store: Store<SignerState>, emitter: Emitter<SignerEvents>): void {
  store.subscribe(
    (s) => s.status,
    (status) => emitter.emit("statusChanged", status),
  );
  store.subscribe(
    (s) => s.error,
    (error) => emitter.emit("errorChanged", error),
  );
  store.subscribe(
    (s) => s.user,
    (user, previous) => {
      emitter.emit("userChanged", user);
      if (!previous && user) emitter.emit("connected", user);
      if (previous && !user) emitter.emit("disconnected", undefined);
    },
  );
}
