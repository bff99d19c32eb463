import type { IllustrationStyle } from "../types";

const svgProps = { viewBox: "0 0 72 72" } as const;

/** A person and a key: the passkey steps' picture, one drawing per `illustrationStyle`. */
function Drawing({ style }: { style: IllustrationStyle }) {
  switch (style) {
    case "outline":
    case "linear":
      return (
        <svg
          aria-hidden="true"
          {...svgProps}
          fill="none"
          stroke="currentColor"
          strokeWidth={style === "linear" ? 2.5 : 2}
          strokeLinecap="round"
          strokeLinejoin="round"
        >
          <circle cx="28" cy="24" r="10" />
          <path d="M10 58c0-10 8-18 18-18 4 0 7.5 1.2 10.5 3.3" />
          <circle cx="50" cy="44" r="7" />
          <path d="M50 51v12M50 57h4M50 61h3" opacity={style === "linear" ? 0.6 : 1} />
        </svg>
      );
    case "filled":
      return (
        <svg aria-hidden="true" {...svgProps}>
          <circle cx="28" cy="24" r="11" fill="currentColor" />
          <path d="M8 60c0-11 9-20 20-20 5 0 9.6 1.8 13 4.9V60z" fill="currentColor" />
          <circle cx="51" cy="44" r="8" fill="currentColor" />
          <circle cx="51" cy="43" r="2.6" fill="#fff" />
          <path d="M48 50h6v14h-3l-3-3z" fill="currentColor" />
        </svg>
      );
    default:
      return (
        <svg aria-hidden="true" {...svgProps}>
          <circle cx="36" cy="36" r="34" fill="currentColor" opacity=".12" />
          <circle cx="30" cy="26" r="9" fill="currentColor" />
          <path d="M14 54c0-9 7-16 16-16 4 0 7.6 1.4 10.4 3.8V54z" fill="currentColor" />
          <circle cx="50" cy="42" r="7" fill="#f59e0b" />
          <circle cx="50" cy="41" r="2.2" fill="#fff" />
          <path d="M47.5 47h5v12h-2.5l-2.5-2.5z" fill="#f59e0b" />
        </svg>
      );
  }
}

export function PasskeyIllustration({ style, pulse }: { style: IllustrationStyle; pulse?: boolean }) {
  return (
    <div className={`lk-illustration${pulse ? " lk-pulse" : ""}`} data-illustration={`passkey-${style}`}>
      <Drawing style={style} />
    </div>
  );
}

export const CheckBadge = () => (
  <div className="lk-illustration lk-success-check" data-illustration="success">
    <svg aria-hidden="true" {...svgProps}>
      <circle cx="36" cy="36" r="34" fill="currentColor" opacity=".14" />
      <circle cx="36" cy="36" r="22" fill="currentColor" />
      <path
        d="M26 36.5l7 7 13-14"
        fill="none"
        stroke="#fff"
        strokeWidth="4"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  </div>
);

const small = {
  width: 20,
  height: 20,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

export const BoltIcon = () => (
  <svg aria-hidden="true" {...small}>
    <path d="M13 2L4 14h7l-1 8 9-12h-7z" />
  </svg>
);
export const LockIcon = () => (
  <svg aria-hidden="true" {...small}>
    <rect x="4" y="11" width="16" height="10" rx="2" />
    <path d="M8 11V7a4 4 0 018 0v4" />
  </svg>
);
