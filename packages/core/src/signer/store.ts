/** Called with the new value and the one before it. */
export type StoreListener<T> = (value: T, previous: T) => void;

/**
 * A small vanilla store (the shape of zustand's `createStore` + `subscribeWithSelector`): the state is
 * replaced, never mutated, so a selector's result can be compared with `Object.is`.
 */
export interface Store<S extends object> {
  getState(): S;
  /** Merges `patch` into the state (shallow) and notifies the subscribers whose slice changed. */
  setState(patch: Partial<S> | ((state: S) => Partial<S>)): void;
  /** Every change of the state. */
  subscribe(listener: StoreListener<S>): () => void;
  /** Changes of one slice, e.g. `subscribe((s) => s.user, onUser)`; `equalityFn` is `Object.is` by default. */
  subscribe<T>(
    selector: (state: S) => T,
    listener: StoreListener<T>,
    options?: { equalityFn?: (a: T, b: T) => boolean },
  ): () => void;
}

/**
 * Creates a {@link Store}. A throwing listener does not stop the others (its error is rethrown in a
 * microtask, as the emitter does).
 *
 * @example
 * const store = createStore({ count: 0 });
 * store.subscribe((s) => s.count, (count) => console.log(count));
 * store.setState({ count: 1 }); // logs 1
 */
export function createStore<S extends object>(initialState: S): Store<S> {
  let state = initialState;
  // Each listener reads the latest state itself: a listener that sets the state again must not leave
  // the ones after it with a stale value.
  const listeners = new Set<() => void>();
  return {
    getState: () => state,
    setState(patch) {
      state = { ...state, ...(typeof patch === "function" ? patch(state) : patch) };
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    },
    subscribe<T>(
      selectorOrListener: ((state: S) => T) | StoreListener<S>,
      maybeListener?: StoreListener<T>,
      options?: { equalityFn?: (a: T, b: T) => boolean },
    ): () => void {
      const select = (maybeListener ? selectorOrListener : (s: S) => s) as (state: S) => T;
      const listener = (maybeListener ?? selectorOrListener) as StoreListener<T>;
      const equal = options?.equalityFn ?? Object.is;
      // The last slice this subscriber saw: a listener that sets the state again stays consistent.
      let seen = select(state);
      const onChange = () => {
        const slice = select(state);
        if (equal(slice, seen)) return;
        const previous = seen;
        seen = slice;
        listener(slice, previous);
      };
      listeners.add(onChange);
      return () => {
        listeners.delete(onChange);
      };
    },
  };
}
