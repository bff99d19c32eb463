import type { AdminEndpointName, AdminResponse } from "@latchkey/protocol";
import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { type AdminParams, adminCall, ConsoleError } from "../api/client";
import type { AdminSession } from "../api/sessionKey";

export type Call = <N extends AdminEndpointName>(
  name: N,
  params: AdminParams<N>,
) => Promise<AdminResponse<N>>;

interface SessionValue {
  session: AdminSession;
  call: Call;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionValue | null>(null);

/**
 * The signed-in admin for the pages below, and `call` (the admin API stamped by the session key). A
 * session the service says has ended (401 SESSION_EXPIRED) signs the console out.
 */
export function SessionProvider(props: {
  session: AdminSession;
  onEnded: () => void;
  signOut: () => Promise<void>;
  children: ReactNode;
}) {
  const { session, onEnded, signOut } = props;
  const call = useCallback<Call>(
    (name, params) =>
      adminCall(session, name, params).catch((e: unknown) => {
        if (e instanceof ConsoleError && e.code === "SESSION_EXPIRED") onEnded();
        throw e;
      }),
    [session, onEnded],
  );
  const value = useMemo(() => ({ session, call, signOut }), [session, call, signOut]);
  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession outside SessionProvider");
  return value;
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` now and whenever `key` changes (the latest answer wins); `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` and `tick` say when to load again
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    loadRef.current().then(
      (data) => live && setState({ data, error: undefined, loading: false }),
      (error: unknown) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [key, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export interface Paged<T> extends Loaded<{ items: T[]; nextCursor: string | null }> {
  page: number;
  next(): void;
  previous(): void;
}

/**
 * A list the API pages with cursors: page 1 without one, then each page with the cursor the previous
 * answered. Going back re-reads the page with its remembered cursor. New filters (`key`) start over.
 */
export function usePaged<T>(
  load: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor: string | null }>,
  key: string,
): Paged<T> {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [filtersKey, setFiltersKey] = useState(key);
  if (filtersKey !== key) {
    setFiltersKey(key);
    setCursors([undefined]);
  }
  const cursor = cursors[cursors.length - 1];
  const loaded = useLoad(() => load(cursor), `${key}|${cursors.length}|${cursor ?? ""}`);
  return {
    ...loaded,
    page: cursors.length,
    next: () => {
      const nextCursor = loaded.data?.nextCursor;
      if (nextCursor) setCursors((c) => [...c, nextCursor]);
    },
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
  };
}
