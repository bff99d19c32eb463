import type { Paged } from "./session";

/** Previous / next under a paged list, and which page this is. */
export function Pager<T>(props: { paged: Paged<T>; label: string }) {
  const { paged } = props;
  return (
    <nav className="c-pager" aria-label={`${props.label} pages`}>
      <span>
        Page {paged.page}
        {paged.loading ? " · loading…" : ""}
      </span>
      <span className="c-row">
        <button
          type="button"
          className="c-btn c-btn-secondary c-btn-small"
          disabled={paged.page <= 1 || paged.loading}
          onClick={paged.previous}
        >
          Previous
        </button>
        <button
          type="button"
          className="c-btn c-btn-secondary c-btn-small"
          disabled={!paged.data?.nextCursor || paged.loading}
          onClick={paged.next}
        >
          Next
        </button>
      </span>
    </nav>
  );
}
