import { ALLOWED_ORIGINS_META } from "@latchkey/protocol/frame";

/** What the service wrote into a frame's page: a `<meta>`'s content, or null. */
export function metaContent(name: string): string | null {
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? null;
}

/** The origins the page's `<meta>` allows to open a channel (the app's allowed origins). */
export function allowedOrigins(): string[] {
  try {
    const parsed: unknown = JSON.parse(metaContent(ALLOWED_ORIGINS_META) ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((o): o is string => typeof o === "string") : [];
  } catch {
    return [];
  }
}
