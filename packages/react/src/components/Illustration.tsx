import type { IllustrationStyle } from "../types";

export type IllustrationName = "mail" | "authenticator";

const svgProps = { viewBox: "0 0 72 72" } as const;

/** Mail: four drawings, one per `illustrationStyle`. */
function Mail({ style }: { style: IllustrationStyle }) {
  switch (style) {
    case "outline":
      return (
        <svg
          aria-hidden="true"
          {...svgProps}
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinejoin="round"
        >
          <rect x="12" y="20" width="48" height="34" rx="5" />
          <path d="M13 22l23 18 23-18" />
        </svg>
      );
    case "linear":
      return (
        <svg
          aria-hidden="true"
          {...svgProps}
          fill="none"
          stroke="currentColor"
          strokeWidth="2.5"
          strokeLinecap="round"
        >
          <path d="M12 26v22a5 5 0 005 5h38a5 5 0 005-5V26" />
          <path d="M12 24l24 16 24-16" />
          <path d="M20 15h32" opacity=".45" />
          <path d="M26 9h20" opacity=".25" />
        </svg>
      );
    case "filled":
      return (
        <svg aria-hidden="true" {...svgProps}>
          <rect x="10" y="18" width="52" height="38" rx="7" fill="currentColor" />
          <path d="M14 24l22 16 22-16" fill="none" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
        </svg>
      );
    default:
      return (
        <svg aria-hidden="true" {...svgProps}>
          <circle cx="36" cy="36" r="34" fill="currentColor" opacity=".12" />
          <rect x="14" y="22" width="44" height="30" rx="4" fill="currentColor" />
          <path d="M14 26l22 15 22-15v-1a3 3 0 00-3-3H17a3 3 0 00-3 3z" fill="#fff" opacity=".35" />
          <circle cx="54" cy="22" r="7" fill="#f59e0b" />
        </svg>
      );
  }
}

/** Authenticator app (TOTP): phone with a code. */
function Authenticator({ style }: { style: IllustrationStyle }) {
  switch (style) {
    case "outline":
      return (
        <svg aria-hidden="true" {...svgProps} fill="none" stroke="currentColor" strokeWidth="2">
          <rect x="22" y="10" width="28" height="52" rx="5" />
          <path d="M30 36h12M33 54h6" strokeLinecap="round" />
        </svg>
      );
    case "linear":
      return (
        <svg
          aria-hidden="true"
          {...svgProps}
          fill="none"
          stroke="currentColor"
          strokeWidth="2.5"
          strokeLinecap="round"
        >
          <path d="M24 18v-3a5 5 0 015-5h14a5 5 0 015 5v42a5 5 0 01-5 5H29a5 5 0 01-5-5V30" />
          <path d="M30 36h12" />
          <path d="M33 54h6" opacity=".45" />
        </svg>
      );
    case "filled":
      return (
        <svg aria-hidden="true" {...svgProps}>
          <rect x="20" y="8" width="32" height="56" rx="7" fill="currentColor" />
          <path d="M29 36h14M33 55h6" stroke="#fff" strokeWidth="3" strokeLinecap="round" />
        </svg>
      );
    default:
      return (
        <svg aria-hidden="true" {...svgProps}>
          <circle cx="36" cy="36" r="34" fill="currentColor" opacity=".12" />
          <rect x="24" y="12" width="24" height="48" rx="4" fill="currentColor" />
          <rect x="28" y="30" width="16" height="10" rx="2" fill="#fff" opacity=".85" />
        </svg>
      );
  }
}

export function Illustration({
  name,
  style,
  animated,
}: {
  name: IllustrationName;
  style: IllustrationStyle;
  animated?: boolean;
}) {
  return (
    <div className={`lk-illustration${animated ? " lk-float" : ""}`} data-illustration={`${name}-${style}`}>
      {name === "mail" ? <Mail style={style} /> : <Authenticator style={style} />}
    </div>
  );
}
