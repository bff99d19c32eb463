import { describe, expect, it } from "vitest";
import type { Clock } from "./clock";
import { type SessionChange, SessionManager } from "./sessionManager";
import { createMemoryStorage } from "./storage";
import type { Session } from "./types";

// A clock whose timers never fire: a tab that slept through its expiry timer.
function sleepingClock(): Clock & { offset: number } {
  const clock = {
    offset: 0,
    now: () => Date.now() + clock.offset,
    setTimeout: () => 0,
    clearTimeout: () => {},
  };
  return clock;
}

const session = (expirationDateMs: number, bundle = "b1"): Session => ({
  type: "otp",
  bundle,
  expirationDateMs,
  user: { address: "0x0000000000000000000000000000000000000001", userId: "u", orgId: "o" },
});

function setup() {
  const clock = sleepingClock();
  const storage = createMemoryStorage();
  const events = new EventTarget();
  const manager = new SessionManager({ storage, clock, eventTarget: events, sessionKey: "k" });
  const changes: SessionChange[] = [];
  manager.watch((change) => changes.push(change));
  return { clock, storage, events, manager, changes };
}

describe("SessionManager", () => {
  it("keeps the temporary session under <key>:temporary", () => {
    const { manager, storage } = setup();
    manager.setTemporarySession({ orgId: "o", otpId: "x" });
    expect(JSON.parse(storage.getItem("k:temporary") ?? "")).toEqual({ orgId: "o", otpId: "x" });
    manager.clearSession();
    expect(storage.getItem("k:temporary")).toBeNull();
  });

  it("on focus, re-reads the session and reports a change made elsewhere", () => {
    const { clock, storage, events, changes } = setup();
    const next = session(clock.now() + 60_000, "b2");
    storage.setItem("k", JSON.stringify(next));
    events.dispatchEvent(new Event("focus"));
    expect(changes).toEqual([{ reason: "changed", session: next }]);
    events.dispatchEvent(new Event("focus"));
    expect(changes).toHaveLength(1);
    storage.removeItem("k");
    events.dispatchEvent(new Event("focus"));
    expect(changes.at(-1)).toEqual({ reason: "changed", session: null });
  });

  it("on focus, expires a session whose timer never ran", () => {
    const { clock, manager, storage, events, changes } = setup();
    manager.setSession(session(clock.now() + 60_000));
    clock.offset += 60_000;
    events.dispatchEvent(new Event("focus"));
    expect(changes).toEqual([{ reason: "expired", session: null }]);
    expect(storage.getItem("k")).toBeNull();
  });

  it("reacts to storage events for its key only", () => {
    const { clock, storage, events, changes } = setup();
    storage.setItem("k", JSON.stringify(session(clock.now() + 60_000)));
    events.dispatchEvent(Object.assign(new Event("storage"), { key: "other" }));
    expect(changes).toEqual([]);
    events.dispatchEvent(Object.assign(new Event("storage"), { key: "k" }));
    expect(changes.map((c) => c.reason)).toEqual(["changed"]);
  });

  it("does not report its own writes, and stops listening when stopped", () => {
    const { clock, manager, events, changes } = setup();
    manager.setSession(session(clock.now() + 60_000));
    events.dispatchEvent(new Event("focus"));
    expect(changes).toEqual([]);
    manager.stop();
    manager.clearSession();
    events.dispatchEvent(new Event("focus"));
    expect(changes).toEqual([]);
  });
});
