import type { CSSProperties, ReactNode } from "react";
import { useLatchkeyContext } from "../context";
import { BaseStyles } from "../styles/Styles";

/** The themed scope of the modal's styles: custom properties from the UI config's theme. */
export function Root({ children, className }: { children: ReactNode; className?: string }) {
  const { ui, locale } = useLatchkeyContext();
  const { theme } = ui;
  const vars: Record<string, string> = {};
  if (theme?.accentColor) vars["--lk-accent"] = theme.accentColor;
  if (theme?.radius) vars["--lk-radius"] = theme.radius;
  if (theme?.fontFamily) vars["--lk-font"] = theme.fontFamily;
  if (Number.isFinite(theme?.zIndex)) vars["--lk-z-index"] = String(Math.trunc(theme?.zIndex as number));
  if (theme?.backdropBlur) vars["--lk-backdrop-filter"] = `blur(${theme.backdropBlur})`;
  return (
    <div
      lang={locale}
      className={`lk-root${className ? ` ${className}` : ""}`}
      data-theme={theme?.mode ?? "system"}
      style={vars as CSSProperties}
    >
      <BaseStyles />
      {children}
    </div>
  );
}
