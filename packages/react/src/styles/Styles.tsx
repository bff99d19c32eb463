import { baseCss } from "./base";
import { methodCss } from "./methods";

// React 19 hoists one copy of each into <head> however often they render (also on the server).

/** The modal's base stylesheet; `Root` renders it. */
export function BaseStyles() {
  return (
    <style href="latchkey-modal" precedence="default">
      {baseCss}
    </style>
  );
}

/** The passkey, social and connection-error styles; the views that use them render it. */
export function MethodStyles() {
  return (
    <style href="latchkey-methods" precedence="default">
      {methodCss}
    </style>
  );
}
