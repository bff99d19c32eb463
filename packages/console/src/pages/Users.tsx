import type { AdminParams } from "../api/client";
import { Pager } from "../components/Pager";
import { usePaged, useSession } from "../components/session";
import { Badge, ErrorBanner, formatTime, PageHead } from "../components/ui";
import { Link, navigate } from "../router";

/** What a search box holds, as the API's filter: an email, an EVM or Solana address, else a user id. */
export function searchFilter(query: string): AdminParams<"search_users"> {
  const q = query.trim();
  if (!q) return {};
  if (q.includes("@")) return { email: q };
  if (/^0x[0-9a-fA-F]{40}$/.test(q) || /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(q)) return { address: q };
  return { userId: q };
}

const queryOf = () => new URLSearchParams(window.location.search).get("q") ?? "";

/** The app's users, newest first, or the ones a search finds (email, address or user id). */
export function Users() {
  const { call } = useSession();
  const query = queryOf();
  const filter = searchFilter(query);
  const paged = usePaged(
    (cursor) => call("search_users", { ...filter, ...(cursor ? { cursor } : {}) }),
    query,
  );
  const items = paged.data?.items ?? [];
  return (
    <>
      <PageHead title="Users">Search by email, wallet address (EVM or Solana) or user id.</PageHead>
      <form
        className="c-row c-card"
        aria-label="Search"
        onSubmit={(e) => {
          e.preventDefault();
          const q = String(new FormData(e.currentTarget).get("q") ?? "").trim();
          navigate(q ? `/users?q=${encodeURIComponent(q)}` : "/users");
        }}
      >
        <input
          className="c-input c-wide"
          name="q"
          type="search"
          aria-label="Search users"
          placeholder="ada@example.com, 0x…, or a user id"
          defaultValue={query}
          key={query}
        />
        <button type="submit" className="c-btn c-btn-primary">
          Search
        </button>
        {query ? (
          <button type="button" className="c-btn c-btn-secondary" onClick={() => navigate("/users")}>
            Clear
          </button>
        ) : null}
      </form>
      <section className="c-card">
        <ErrorBanner error={paged.error} />
        <div className="c-table-wrap">
          <table className="c-table" aria-label="Users">
            <thead>
              <tr>
                <th>Email</th>
                <th>User id</th>
                <th>Signed up</th>
                <th>Status</th>
              </tr>
            </thead>
            <tbody>
              {items.map((u) => (
                <tr key={u.userId}>
                  <td>
                    <Link to={`/users/${encodeURIComponent(u.userId)}`}>{u.email ?? "(no email)"}</Link>
                  </td>
                  <td className="mono">{u.userId}</td>
                  <td className="c-nowrap">{formatTime(u.createdAt)}</td>
                  <td>{u.disabledAt ? <Badge>disabled</Badge> : <Badge>active</Badge>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {!paged.loading && items.length === 0 ? (
          <p className="c-empty">{query ? "No user matches." : "No users yet."}</p>
        ) : null}
        <Pager paged={paged} label="Users" />
      </section>
    </>
  );
}
