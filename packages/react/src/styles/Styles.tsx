import { methodCss } from "../methodStyles";

/** The passkey/social styles; React 19 hoists one copy into <head> however often it renders. */
export function MethodStyles() {
  return (
    <style href="latchkey-methods" precedence="default">
      {methodCss}
    </style>
  );
}
