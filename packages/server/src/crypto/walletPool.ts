import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { type DerivedAccount, deriveAccountsAsync } from "./wallet";

interface Pending {
  mnemonic: string;
  resolve(accounts: DerivedAccount[] | Promise<DerivedAccount[]>): void;
  reject(e: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

/**
 * A small pool of worker threads that derive wallets, started on first use. With N cores it keeps N-1
 * workers, so sign-ups use the other cores while the event loop answers requests; a worker that cannot
 * start (or a one-core machine) falls back to deriving on the event loop (PBKDF2 still on libuv's pool).
 */
export class WalletDeriver {
  readonly #size: number;
  #slots: Slot[] | null = null;
  #next = 0;
  #seq = 0;
  #disabled = false;
  #respawns = 0;

  readonly #entry: URL;

  constructor(
    size = Math.max(0, Math.min(4, availableParallelism() - 1)),
    // Built, the worker is dist/walletWorker.js beside this chunk; from source, an entry that loads tsx.
    entry = import.meta.url.endsWith(".ts")
      ? new URL("./walletWorkerEntry.mjs", import.meta.url)
      : new URL("./walletWorker.js", import.meta.url),
  ) {
    this.#size = size;
    this.#entry = entry;
  }

  /** An arrow property, so it can be passed around as a plain function. */
  readonly derive = (mnemonic: string): Promise<DerivedAccount[]> => {
    const slot = this.#pick();
    if (!slot) return deriveAccountsAsync(mnemonic);
    const id = ++this.#seq;
    return new Promise((resolve, reject) => {
      slot.pending.set(id, { mnemonic, resolve, reject });
      slot.worker.postMessage({ id, mnemonic });
    });
  };

  #pick(): Slot | null {
    if (this.#disabled || this.#size === 0) return null;
    if (!this.#slots) {
      try {
        this.#slots = Array.from({ length: this.#size }, () => this.#spawn());
      } catch {
        this.#disabled = true;
        return null;
      }
    }
    const slot = this.#slots[this.#next++ % this.#slots.length];
    return slot ?? null;
  }

  #spawn(): Slot {
    // The service runs TypeScript through tsx; the entry registers the same loader in the worker.
    const worker = new Worker(this.#entry);
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on("message", (m: { id: number; accounts?: DerivedAccount[]; error?: string }) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      if (m.accounts) p.resolve(m.accounts);
      else p.reject(new Error(m.error ?? "Wallet derivation failed"));
    });
    const fail = (_e: Error) => {
      // A sign-up never fails because a worker did: its wallet is derived on the event loop instead.
      for (const p of slot.pending.values()) p.resolve(deriveAccountsAsync(p.mnemonic));
      slot.pending.clear();
      if (this.#slots) {
        const i = this.#slots.indexOf(slot);
        // A dead worker is replaced; if it never started, derivation moves back to the event loop.
        if (i >= 0) {
          try {
            if (++this.#respawns > 5) throw new Error("Wallet workers keep failing");
            this.#slots[i] = this.#spawn();
          } catch {
            this.#disabled = true;
          }
        }
      }
    };
    worker.on("error", fail);
    worker.on("exit", (code) => {
      if (code !== 0 && slot.pending.size > 0) fail(new Error(`Wallet worker exited with ${code}`));
    });
    return slot;
  }

  async close(): Promise<void> {
    const slots = this.#slots ?? [];
    this.#slots = null;
    this.#disabled = true;
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }
}
