const common = {
  width: 18,
  height: 18,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
} as const;

export const BackIcon = () => (
  <svg aria-hidden="true" {...common}>
    <path d="M15 18l-6-6 6-6" />
  </svg>
);
export const CloseIcon = () => (
  <svg aria-hidden="true" {...common}>
    <path d="M18 6L6 18M6 6l12 12" />
  </svg>
);
export const ArrowIcon = () => (
  <svg aria-hidden="true" {...common} width={16} height={16}>
    <path d="M5 12h14M13 6l6 6-6 6" />
  </svg>
);
export const AlertIcon = () => (
  <svg aria-hidden="true" {...common}>
    <circle cx="12" cy="12" r="9" />
    <path d="M12 8v5M12 16h.01" />
  </svg>
);
export const ShieldIcon = () => (
  <svg aria-hidden="true" {...common} width={12} height={12}>
    <path d="M12 3l7 3v6c0 4.5-3 7.5-7 9-4-1.5-7-4.5-7-9V6z" />
  </svg>
);
export const PasskeyIcon = () => (
  <svg aria-hidden="true" {...common}>
    <circle cx="9" cy="8" r="4" />
    <path d="M3 20c0-3.3 2.7-6 6-6 1.2 0 2.3.3 3.2.9" />
    <circle cx="17.5" cy="14.5" r="2.5" />
    <path d="M17.5 17v4M17.5 19.5h1.5" />
  </svg>
);
