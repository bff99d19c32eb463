import type { Signer } from "@latchkey/core";
import { describe, expect, it } from "vitest";
import { modalSignInPrompt } from "./signInPrompt";
import { createAuthUiStore } from "./store";

/** The signer's `on("connected")`, as a dapp's connect sees it. */
function connectedEvents() {
  const listeners = new Set<() => void>();
  const on = ((event: string, listener: () => void) => {
    if (event !== "connected") return () => {};
    listeners.add(listener);
    return () => listeners.delete(listener);
  }) as Signer["on"];
  const connect = () => {
    for (const listener of [...listeners]) listener();
  };
  return { on, connect, count: () => listeners.size };
}

describe("the provider's sign-in prompt", () => {
  it("opens the modal at its first step and resolves when someone signs in", async () => {
    const store = createAuthUiStore();
    store.setState({ step: { type: "email", email: "old@example.com" } as never });
    const signer = connectedEvents();
    const prompt = modalSignInPrompt(signer, store)();
    expect(store.getState()).toMatchObject({ isOpen: true, step: { type: "initial" } });
    signer.connect();
    await expect(prompt).resolves.toBeUndefined();
    // Listens no more: closing the modal afterwards settles nothing.
    expect(signer.count()).toBe(0);
    store.setState({ isOpen: false });
  });

  it("rejects when the modal closes before anyone signs in", async () => {
    const store = createAuthUiStore();
    const signer = connectedEvents();
    const prompt = modalSignInPrompt(signer, store)();
    store.setState({ step: { type: "initial" } }); // a change that keeps it open settles nothing
    store.setState({ isOpen: false });
    await expect(prompt).rejects.toThrow("The sign-in modal was closed");
    expect(signer.count()).toBe(0);
  });
});
