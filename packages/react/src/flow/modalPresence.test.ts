import { afterEach, describe, expect, it, vi } from "vitest";
import {
  authModalMounted,
  MISSING_AUTH_MODAL_WARNING,
  resetMissingAuthModalWarning,
  watchForMissingAuthModal,
} from "./modalPresence";
import { createAuthUiStore } from "./store";

afterEach(() => {
  vi.useRealTimers();
  resetMissingAuthModalWarning();
});

describe("the missing <AuthModal /> warning (development builds)", () => {
  it("warns once when the modal opens with no AuthModal mounted", () => {
    vi.useFakeTimers();
    const store = createAuthUiStore();
    const warn = vi.fn();
    const stop = watchForMissingAuthModal(store, warn, 100);
    store.setState({ isOpen: true });
    expect(warn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(100);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(MISSING_AUTH_MODAL_WARNING);
    expect(MISSING_AUTH_MODAL_WARNING).toContain("<AuthModal />");
    // Closed and opened again, or another provider: still one warning a page.
    store.setState({ isOpen: false });
    store.setState({ isOpen: true });
    vi.advanceTimersByTime(100);
    const other = createAuthUiStore();
    const stopOther = watchForMissingAuthModal(other, warn, 100);
    other.setState({ isOpen: true });
    vi.advanceTimersByTime(100);
    expect(warn).toHaveBeenCalledTimes(1);
    stop();
    stopOther();
  });

  it("says nothing when an AuthModal is mounted, or when the modal closed again at once", () => {
    vi.useFakeTimers();
    const store = createAuthUiStore();
    const warn = vi.fn();
    const stop = watchForMissingAuthModal(store, warn, 100);
    const unmount = authModalMounted(store);
    store.setState({ isOpen: true });
    vi.advanceTimersByTime(100);
    expect(warn).not.toHaveBeenCalled();
    store.setState({ isOpen: false });
    unmount();
    store.setState({ isOpen: true });
    store.setState({ isOpen: false });
    vi.advanceTimersByTime(100);
    expect(warn).not.toHaveBeenCalled();
    // Unmounted, then opened: now it warns.
    store.setState({ isOpen: true });
    vi.advanceTimersByTime(100);
    expect(warn).toHaveBeenCalledTimes(1);
    stop();
  });

  it("stops watching when the provider unmounts", () => {
    vi.useFakeTimers();
    const store = createAuthUiStore();
    const warn = vi.fn();
    const stop = watchForMissingAuthModal(store, warn, 100);
    store.setState({ isOpen: true });
    stop();
    vi.advanceTimersByTime(100);
    expect(warn).not.toHaveBeenCalled();
  });
});
