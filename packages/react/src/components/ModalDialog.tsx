import { useEffect, useRef } from "react";
import { useAuthFlow } from "../hooks/useAuthFlow";
import { useTexts } from "../texts/useTexts";
import { AuthFlowView } from "./AuthFlowView";
import { Root } from "./Root";

const FOCUSABLE =
  'a[href],button:not([disabled]),input:not([disabled]),select,textarea,[tabindex]:not([tabindex="-1"])';

/**
 * The open dialog: backdrop, card, focus trap, Escape. Its own chunk (with the steps, the form and the
 * styles), loaded when the modal first opens or the browser is idle.
 */
export default function ModalDialog() {
  const { navigation } = useAuthFlow().transitions;
  const texts = useTexts();
  const dialog = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    // A magic link still completing opens the modal on email_completing.
    navigation.opened();
    const first = dialog.current?.querySelector<HTMLElement>("input,button:not([aria-label='Close'])");
    (first ?? dialog.current)?.focus();
    return () => previous?.focus?.();
  }, [navigation]);

  useEffect(() => {
    // On the document: focus may be on <body> (a button that just got disabled, a click on the backdrop).
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        e.stopPropagation();
        navigation.close();
        return;
      }
      if (e.key !== "Tab" || !dialog.current) return;
      const items = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
        (el) => el.offsetParent !== null,
      );
      if (items.length === 0) {
        e.preventDefault();
        return;
      }
      const first = items[0] as HTMLElement;
      const last = items[items.length - 1] as HTMLElement;
      const active = document.activeElement;
      if (e.shiftKey && (active === first || !dialog.current.contains(active))) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && (active === last || !dialog.current.contains(active))) {
        e.preventDefault();
        first.focus();
      }
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [navigation]);

  return (
    <Root>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the backdrop closes on click; Escape (on the document) does the same from the keyboard */}
      <div
        className="lk-overlay"
        data-testid="lk-backdrop"
        onMouseDown={(e) => {
          if (e.target === e.currentTarget) navigation.close();
        }}
      >
        <div
          ref={dialog}
          className="lk-card"
          role="dialog"
          aria-modal="true"
          aria-label={texts.signIn}
          tabIndex={-1}
        >
          <AuthFlowView closable />
        </div>
      </div>
    </Root>
  );
}
