import { describe, expect, it, vi } from "vitest";
import { createStore } from "./store";

describe("createStore", () => {
  it("merges a patch and tells each selector only about its own slice", () => {
    const store = createStore({ user: null as string | null, status: "DISCONNECTED" });
    const onUser = vi.fn();
    const onStatus = vi.fn();
    store.subscribe((s) => s.user, onUser);
    store.subscribe((s) => s.status, onStatus);

    store.setState({ user: "ada" });
    expect(store.getState()).toEqual({ user: "ada", status: "DISCONNECTED" });
    expect(onUser).toHaveBeenCalledExactlyOnceWith("ada", null);
    expect(onStatus).not.toHaveBeenCalled();

    store.setState((s) => ({ status: s.user ? "CONNECTED" : "DISCONNECTED" }));
    expect(onStatus).toHaveBeenCalledExactlyOnceWith("CONNECTED", "DISCONNECTED");
    expect(onUser).toHaveBeenCalledTimes(1);
  });

  it("a whole-state subscriber hears every change; unsubscribing stops it", () => {
    const store = createStore({ n: 0 });
    const listener = vi.fn();
    const off = store.subscribe(listener);
    store.setState({ n: 1 });
    off();
    store.setState({ n: 2 });
    expect(listener).toHaveBeenCalledExactlyOnceWith({ n: 1 }, { n: 0 });
  });

  it("a listener that sets the state again leaves every subscriber with the last value", () => {
    const store = createStore({ n: 0 });
    const seen: number[] = [];
    store.subscribe(
      (s) => s.n,
      (n) => {
        if (n === 1) store.setState({ n: 2 });
      },
    );
    store.subscribe(
      (s) => s.n,
      (n) => seen.push(n),
    );
    store.setState({ n: 1 });
    expect(seen).toEqual([2]);
    expect(store.getState().n).toBe(2);
  });

  it("a throwing listener does not stop the others", async () => {
    const store = createStore({ n: 0 });
    const after = vi.fn();
    const thrown = new Promise<unknown>((resolve) => {
      const real = globalThis.queueMicrotask;
      vi.spyOn(globalThis, "queueMicrotask").mockImplementationOnce((task) =>
        real(() => {
          try {
            task();
          } catch (error) {
            resolve(error);
          }
        }),
      );
    });
    store.subscribe(() => {
      throw new Error("listener failed");
    });
    store.subscribe(after);
    store.setState({ n: 1 });
    expect(after).toHaveBeenCalledOnce();
    expect(await thrown).toEqual(new Error("listener failed"));
    vi.restoreAllMocks();
  });
});
