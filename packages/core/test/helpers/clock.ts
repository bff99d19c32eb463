import type { Clock } from "@latchkey/core";

/** Real time plus an offset that `advance` moves forward, firing due timers: expiry without sleeping. */
export function createManualClock(): Clock & { advance(ms: number): void; pendingTimers(): number } {
  let offset = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const now = () => Date.now() + offset;
  return {
    now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now() + ms, fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      offset += ms;
      for (;;) {
        const due = [...timers.entries()]
          .filter(([, t]) => t.at <= now())
          .sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        due[1].fn();
      }
    },
    pendingTimers: () => timers.size,
  };
}
