import { type Address, numberToHex } from "viem";
import { ProviderRpcError, ProviderRpcErrorCode } from "./errors";
import type { ProviderContext, ProviderEventName } from "./types";

type Listener = (payload: never) => void;

/**
 * The provider's listeners (EIP-1193 `on` / `removeListener`). A throwing listener does not stop the
 * others (its error is rethrown in a microtask). `onFirst` runs when the first listener is added,
 * `onLast` when the last is removed: the provider watches the signer only while somebody listens.
 */
export function createListeners(hooks: { onFirst(): void; onLast(): void }) {
  const listeners = new Map<ProviderEventName, Set<Listener>>();
  let count = 0;
  return {
    on(event: ProviderEventName, listener: Listener) {
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      if (set.has(listener)) return;
      set.add(listener);
      if (++count === 1) hooks.onFirst();
    },
    removeListener(event: ProviderEventName, listener: Listener) {
      if (!listeners.get(event)?.delete(listener)) return;
      if (--count === 0) hooks.onLast();
    },
    emit(event: ProviderEventName, payload: unknown) {
      for (const listener of [...(listeners.get(event) ?? [])]) {
        try {
          (listener as (payload: unknown) => void)(payload);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
  };
}

/**
 * Turns sign-ins and sign-outs into EIP-1193 events: a sign-in emits `connect` `{chainId}` then
 * `accountsChanged` `[smart account]`; another user signing in emits `accountsChanged`; a sign-out emits
 * `accountsChanged` `[]` then `disconnect` (4900). Answers the unsubscribe function.
 */
export function watchSigner(ctx: ProviderContext): () => void {
  let generation = 0;
  return ctx.signer.store.subscribe(
    (state) => state.user?.address.toLowerCase() ?? null,
    (owner, previous) => {
      const current = ++generation;
      if (!owner) {
        ctx.emit("accountsChanged", []);
        ctx.emit(
          "disconnect",
          new ProviderRpcError(
            ProviderRpcErrorCode.DISCONNECTED,
            "The user signed out of the Latchkey wallet",
          ),
        );
        return;
      }
      ctx.account().then(
        (account: Address) => {
          if (current !== generation) return; // signed out or in again meanwhile
          if (!previous && ctx.chains().length > 0)
            ctx.emit("connect", { chainId: numberToHex(ctx.chainId()) });
          ctx.emit("accountsChanged", [account]);
        },
        () => {
          // Signed out meanwhile, or the chain cannot be reached: `eth_accounts` will tell.
        },
      );
    },
  );
}
