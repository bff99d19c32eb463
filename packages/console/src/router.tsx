import { type MouseEvent, type ReactNode, useEffect, useState } from "react";

/** Where the service serves the console. */
export const BASE = "/admin";

const listeners = new Set<() => void>();

/** The console path (without /admin) and query, e.g. "/users?q=…"; "/" is the overview. */
export function currentPath(): string {
  const { pathname, search } = window.location;
  const path = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : "/";
  return `${path === "" ? "/" : path}${search}`;
}

/** A console path without its query. */
export const pathOnly = (path: string) => path.split("?")[0] ?? "/";

/** Goes to a console path without a page load (the service answers every /admin path with this page). */
export function navigate(path: string): void {
  window.history.pushState(null, "", `${BASE}${path === "/" ? "" : path}`);
  for (const l of listeners) l();
}

/** The current console path and query; re-renders on navigation and on the browser's back and forward. */
export function usePath(): string {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const update = () => setPath(currentPath());
    listeners.add(update);
    window.addEventListener("popstate", update);
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return path;
}

/** A link to a console path: a real href (open in a new tab works), followed in place on a plain click. */
export function Link(props: { to: string; children: ReactNode; current?: boolean; className?: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.to);
  };
  return (
    <a
      href={`${BASE}${props.to === "/" ? "" : props.to}`}
      onClick={onClick}
      className={props.className}
      aria-current={props.current ? "page" : undefined}
    >
      {props.children}
    </a>
  );
}
