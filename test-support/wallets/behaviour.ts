/**
 * What a test makes a test wallet do with the requests it gets, as a user would: reject them, answer late, or
 * keep them waiting until the test lets them go. Shared by the injected and the WalletConnect test wallets;
 * every control can change while the test runs.
 */
export interface WalletBehaviour {
  /** Rejects the next call of `method` (once) as the user would: `error` or the wallet's user-rejected error. */
  rejectNext(method: string, error?: ProviderErrorShape): void;
  /** Rejects every call of these methods from now on (replaces the previous list; `[]` stops it). */
  setRejecting(methods: string[]): void;
  /** Answers calls of `method` only after `ms` (0 = at once again). */
  setDelay(method: string, ms: number): void;
  /**
   * Keeps every call of `method` waiting (a prompt the user leaves open) until the returned function is called:
   * `release()` lets them through, `release("reject")` rejects them as the user would.
   */
  hold(method: string): (outcome?: "proceed" | "reject") => void;
  /** How many calls of `method` wait on a `hold` now. */
  held(method?: string): number;
}

/** An EIP-1193 / JSON-RPC error. */
export interface ProviderErrorShape {
  code: number;
  message: string;
  data?: unknown;
}

/** EIP-1193's user-rejected error, as MetaMask words it. */
export const USER_REJECTED: ProviderErrorShape = { code: 4001, message: "User rejected the request." };

/** An error carrying a provider error's code (and data), for a handler to throw. */
export class ProviderError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor({ code, message, data }: ProviderErrorShape) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The shape of any thrown error, as a provider answers it (viem's `shortMessage` when there is one). */
export function toProviderError(error: unknown): ProviderErrorShape {
  const e = error as { code?: unknown; message?: unknown; shortMessage?: unknown; data?: unknown };
  const code = typeof e?.code === "number" ? e.code : -32603;
  const message = String(e?.shortMessage ?? e?.message ?? error);
  return e?.data === undefined ? { code, message } : { code, message, data: e.data };
}

interface Hold {
  release: Promise<"proceed" | "reject">;
  waiting: number;
}

/**
 * The behaviour controls, plus `gate(method)`, which a wallet awaits before it answers a call: it throws the
 * rejection (a `ProviderError`) when the call is to be rejected, after waiting for any delay or hold.
 */
export function createBehaviour(rejection: ProviderErrorShape = USER_REJECTED) {
  const rejectOnce = new Map<string, ProviderErrorShape[]>();
  let rejecting = new Set<string>();
  const delays = new Map<string, number>();
  const holds = new Map<string, Hold>();

  const behaviour: WalletBehaviour = {
    rejectNext(method, error = rejection) {
      rejectOnce.set(method, [...(rejectOnce.get(method) ?? []), error]);
    },
    setRejecting(methods) {
      rejecting = new Set(methods);
    },
    setDelay(method, ms) {
      if (ms > 0) delays.set(method, ms);
      else delays.delete(method);
    },
    hold(method) {
      let release!: (outcome: "proceed" | "reject") => void;
      const hold: Hold = { release: new Promise((resolve) => (release = resolve)), waiting: 0 };
      holds.set(method, hold);
      return (outcome = "proceed") => {
        if (holds.get(method) === hold) holds.delete(method);
        release(outcome);
      };
    },
    held: (method) =>
      method === undefined
        ? [...holds.values()].reduce((n, h) => n + h.waiting, 0)
        : (holds.get(method)?.waiting ?? 0),
  };

  /** Waits as told for a call of `method`; throws if it is to be rejected. */
  async function gate(method: string): Promise<void> {
    const once = rejectOnce.get(method)?.shift();
    if (once) throw new ProviderError(once);
    const delay = delays.get(method);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay));
    const hold = holds.get(method);
    if (hold) {
      hold.waiting++;
      const outcome = await hold.release.finally(() => hold.waiting--);
      if (outcome === "reject") throw new ProviderError(rejection);
    }
    if (rejecting.has(method)) throw new ProviderError(rejection);
  }

  return { behaviour, gate };
}
