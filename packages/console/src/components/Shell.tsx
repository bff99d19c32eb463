import { Activities } from "../pages/Activities";
import { AppConfig } from "../pages/AppConfig";
import { Approvals } from "../pages/Approvals";
import { Overview } from "../pages/Overview";
import { SecurityLog } from "../pages/SecurityLog";
import { UserDetail } from "../pages/UserDetail";
import { Users } from "../pages/Users";
import { Webhooks } from "../pages/Webhooks";
import { Link, pathOnly } from "../router";
import { useSession } from "./session";

const PAGES = [
  { path: "/", label: "Overview" },
  { path: "/users", label: "Users" },
  { path: "/approvals", label: "Approvals" },
  { path: "/activities", label: "Activities" },
  { path: "/security", label: "Security log" },
  { path: "/webhooks", label: "Webhooks" },
  { path: "/app", label: "App and policies" },
] as const;

function page(pathAndQuery: string) {
  const path = pathOnly(pathAndQuery);
  const user = /^\/users\/([^/]+)$/.exec(path);
  if (user?.[1]) return <UserDetail userId={decodeURIComponent(user[1])} />;
  switch (path) {
    case "/users":
      return <Users />;
    case "/approvals":
      return <Approvals />;
    case "/activities":
      return <Activities />;
    case "/security":
      return <SecurityLog />;
    case "/webhooks":
      return <Webhooks />;
    case "/app":
      return <AppConfig />;
    default:
      return <Overview />;
  }
}

/** The signed-in console: the pages down the side, the admin and the sign-out under them. */
export function Shell(props: { path: string }) {
  const { session, signOut } = useSession();
  const section = `/${pathOnly(props.path).split("/")[1] ?? ""}`;
  return (
    <div className="c-shell">
      <nav className="c-nav" aria-label="Console">
        <div className="c-brand">
          <strong>{session.admin.appName}</strong>
          <span>Latchkey console · {session.admin.appId}</span>
        </div>
        {PAGES.map((p) => (
          <Link key={p.path} to={p.path} current={section === p.path}>
            {p.label}
          </Link>
        ))}
        <div className="c-nav-foot">
          <span>
            Signed in as <strong>{session.admin.name}</strong>
          </span>
          <button type="button" className="c-btn c-btn-secondary c-btn-small" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </nav>
      <main className="c-main">{page(props.path)}</main>
    </div>
  );
}
