import type { Signer } from "@latchkey/core";
import { signerRoutes } from "@latchkey/protocol/wire";
import { vi } from "vitest";
import { resolveUiConfig } from "../src/config";
import { createAuthFlow } from "../src/flow/createAuthFlow";
import { authTransitions } from "../src/flow/transitions";
import type { UiConfig } from "../src/types";

type Listener = (payload: unknown) => void;

/**
 * A signer double: only what the step machine calls, with answers set per test (`mockResolvedValue`…).
 * `setStatus` and `emit` tell the listeners, as the signer does.
 */
export function fakeSigner() {
  const listeners = new Map<string, Set<Listener>>();
  const fake = {
    status: "DISCONNECTED",
    user: null as { credentialId?: string } | null,
    state: { mfaStatus: { mfaRequired: false } } as {
      mfaStatus: { mfaRequired: boolean; mfaFactorId?: string };
      authLinkingStatus?: { email: string; idToken: string };
      error?: { name: string; code?: string; message: string } | null;
    },
    getState() {
      return { ...fake.state, status: fake.status };
    },
    on(event: string, listener: Listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener);
      return () => set.delete(listener);
    },
    emit(event: string, payload?: unknown) {
      for (const l of [...(listeners.get(event) ?? [])]) l(payload);
    },
    setStatus(status: string) {
      fake.status = status;
      fake.emit("statusChanged", status);
    },
    init: vi.fn(async () => {}),
    authenticate: vi.fn(
      async (_params: Record<string, unknown>): Promise<unknown> => ({
        status: "CONNECTED",
        user: null,
      }),
    ),
    validateMultiFactors: vi.fn(async (_params: Record<string, unknown>) => ({})),
    addPasskey: vi.fn(),
    preparePopupOauth: vi.fn(),
    disconnect: vi.fn(async () => {
      fake.setStatus("DISCONNECTED");
    }),
    client: {
      /** The answer of `client.call(signerRoutes.signerConfig, …)`, the one route the step machine calls. */
      signerConfig: vi.fn(async () => ({ email: { mode: "OTP" as "OTP" | "MAGIC_LINK" } })),
      call: vi.fn(async (route: { path: string }) => {
        if (route.path !== signerRoutes.signerConfig.path) throw new Error(`unexpected call ${route.path}`);
        return fake.client.signerConfig();
      }),
    },
  };
  return fake;
}

export type FakeSigner = ReturnType<typeof fakeSigner>;

/** The flow and its transitions over a fake signer, open, with timers collected instead of run. */
export function setup(ui: UiConfig = {}, signer: FakeSigner = fakeSigner()) {
  const timers: { fn: () => void; ms: number }[] = [];
  const onAuthSuccess = vi.fn();
  const onEvent = vi.fn();
  const flow = createAuthFlow({
    signer: signer as unknown as Signer,
    getUi: () => resolveUiConfig({ onAuthSuccess, onEvent, ...ui }),
    setTimer: (fn, ms) => timers.push({ fn, ms }),
  });
  const { store } = flow;
  store.setState({ isOpen: true });
  return { signer, store, flow, transitions: authTransitions(flow), timers, onAuthSuccess, onEvent };
}

/** Sets the email mode the service's signer config answers. */
export function withEmailMode(signer: FakeSigner, mode: "otp" | "magicLink"): FakeSigner {
  signer.client.signerConfig.mockResolvedValue({ email: { mode: mode === "otp" ? "OTP" : "MAGIC_LINK" } });
  return signer;
}

/** The abort signal the i-th `authenticate` call was given. */
export function signalOf(signer: FakeSigner, call: number): AbortSignal | undefined {
  return signer.authenticate.mock.calls[call]?.[0]?.signal as AbortSignal | undefined;
}
