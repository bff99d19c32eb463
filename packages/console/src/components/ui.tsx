import type { ReactNode } from "react";
import { ConsoleError } from "../api/client";

/** A time the way the console shows it: local date and time, to the second. */
export function formatTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** An activity status without its prefix: "ACTIVITY_STATUS_COMPLETED" → "COMPLETED". */
export const shortStatus = (status: string) => status.replace(/^ACTIVITY_STATUS_/, "");
/** An activity type without its prefix: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" → "SIGN_RAW_PAYLOAD_V2". */
export const shortType = (type: string) => type.replace(/^ACTIVITY_TYPE_/, "");

const TONES: Record<string, "success" | "danger" | "warning"> = {
  COMPLETED: "success",
  delivered: "success",
  FAILED: "danger",
  REJECTED: "danger",
  failed: "danger",
  disabled: "danger",
  CONSENSUS_NEEDED: "warning",
  PENDING: "warning",
  pending: "warning",
};

export function Badge(props: { children: string }) {
  return (
    <span className="c-badge" data-tone={TONES[props.children]}>
      {props.children}
    </span>
  );
}

export function StatusBadge(props: { status: string }) {
  return <Badge>{shortStatus(props.status)}</Badge>;
}

/** What went wrong, in the service's words and its stable code. */
export function ErrorBanner(props: { error: unknown; title?: string }) {
  if (!props.error) return null;
  const e = props.error;
  const message = e instanceof Error ? e.message : String(e);
  const code = e instanceof ConsoleError ? e.code : undefined;
  return (
    <div className="c-banner" role="alert">
      <strong>{props.title ?? "Something went wrong"}</strong>
      {message}
      {code ? <span className="c-muted"> ({code})</span> : null}
    </div>
  );
}

export function Notice(props: { children: ReactNode }) {
  return (
    <div className="c-banner" data-tone="success" role="status">
      {props.children}
    </div>
  );
}

export function PageHead(props: { title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="c-page-head">
      <div>
        <h1>{props.title}</h1>
        {props.children ? <p>{props.children}</p> : null}
      </div>
      {props.actions ? <div className="c-row">{props.actions}</div> : null}
    </div>
  );
}

export function Json(props: { value: unknown }) {
  return <pre className="c-json">{JSON.stringify(props.value, null, 2)}</pre>;
}

export function KeyIcon() {
  return (
    <svg
      width="56"
      height="56"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      aria-hidden="true"
    >
      <circle cx="8" cy="15" r="4" />
      <path d="M10.8 12.2 20 3m-3 3 3 3m-6 0 2 2" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
