import { navigate } from "../router";

export interface FilterField {
  name: string;
  label: string;
  /** A select's choices (value, label); a text input without. */
  options?: readonly (readonly [string, string])[];
  type?: "text" | "date";
  placeholder?: string;
}

/** The page's filters as its address says them (`?status=…`): links and the back button keep them. */
export function readFilters(): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(window.location.search));
}

/** A UTC day (YYYY-MM-DD) as the millisecond the API's `from` / `to` take: its start, or the next day's. */
export function dayStart(day: string | undefined, next = false): number | undefined {
  if (!day || !/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  return Date.parse(`${day}T00:00:00Z`) + (next ? 86_400_000 : 0);
}

/** A row of filters; applying them puts them in the address (a new first page). */
export function Filters(props: { path: string; fields: FilterField[]; values: Record<string, string> }) {
  return (
    <form
      className="c-row c-card"
      aria-label="Filters"
      onSubmit={(e) => {
        e.preventDefault();
        const params = new URLSearchParams();
        for (const [k, v] of new FormData(e.currentTarget))
          if (String(v).trim()) params.set(k, String(v).trim());
        const q = params.toString();
        navigate(q ? `${props.path}?${q}` : props.path);
      }}
    >
      {props.fields.map((f) => (
        <label key={f.name} className="c-label" htmlFor={`filter-${f.name}`}>
          {f.label}
          {f.options ? (
            <select
              id={`filter-${f.name}`}
              className="c-select"
              name={f.name}
              defaultValue={props.values[f.name] ?? ""}
            >
              <option value="">Any</option>
              {f.options.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          ) : (
            <input
              id={`filter-${f.name}`}
              className="c-input"
              name={f.name}
              type={f.type ?? "text"}
              placeholder={f.placeholder}
              defaultValue={props.values[f.name] ?? ""}
            />
          )}
        </label>
      ))}
      <button type="submit" className="c-btn c-btn-primary">
        Apply
      </button>
      <button type="button" className="c-btn c-btn-secondary" onClick={() => navigate(props.path)}>
        Reset
      </button>
    </form>
  );
}
