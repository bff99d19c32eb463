import type { SigningRequest } from "@latchkey/core";
import { useEffect, useState } from "react";
import { useLatchkeyContext } from "../../context";
import { MethodStyles, Sheet } from "../../styles/Styles";
import type { StepProps } from "../types";
import { type Description, decodeOptionsOf, describeRequest, rpcTokenReader } from "./describe";
import { confirmTextsFor } from "./texts";

const confirmCss = `
.lk-confirm-title{margin:4px 0 0;font-weight:600;overflow-wrap:anywhere}
.lk-confirm-lines{list-style:none;margin:12px 0 0;padding:0;width:100%;display:grid;gap:6px;text-align:left;font-size:13px}
.lk-confirm-lines li{padding:8px 12px;border:1px solid var(--lk-border);border-radius:calc(var(--lk-radius)*.625);background:var(--lk-surface);overflow-wrap:anywhere;white-space:pre-wrap}
.lk-confirm-warnings{list-style:none;margin:12px 0 0;padding:0;width:100%;display:grid;gap:6px;text-align:left;font-size:13px}
.lk-confirm-warnings li{padding:8px 12px;border-radius:calc(var(--lk-radius)*.625);background:color-mix(in srgb,var(--lk-danger) 10%,var(--lk-bg));border:1px solid color-mix(in srgb,var(--lk-danger) 30%,transparent);overflow-wrap:anywhere}
.lk-confirm-warnings strong{color:var(--lk-danger)}
.lk-confirm-scroll{width:100%;max-height:36vh;overflow:auto}
`;

// The signer's chain nodes, to read a token's symbol and decimals: one reader per signer.
const readers = new WeakMap<object, ReturnType<typeof rpcTokenReader>>();

/**
 * confirm_signing: what the user is asked to sign, as @latchkey/decoder reads it — a title, one line per
 * action, the warnings first in red, each with its label ('Unlimited approval: …') — and Confirm (signs)
 * or Cancel (refuses: USER_REJECTED, 4001 from the EIP-1193 provider). Loaded, with the decoder, when a
 * confirmation is first shown.
 */
export function ConfirmSigningStep({ transitions, step, ui }: StepProps<"confirm_signing">) {
  const { locale, signer } = useLatchkeyContext();
  const { code, texts } = confirmTextsFor(locale);
  const [description, setDescription] = useState<{ request: SigningRequest; value: Description } | null>(
    null,
  );
  const request = step.request;
  useEffect(() => {
    let live = true;
    let tokens = readers.get(signer);
    if (!tokens) {
      const chains = signer._internal.options.chains ?? [];
      tokens = rpcTokenReader((id) => {
        const c = chains.find((x) => x.chain.id === id);
        return c?.rpcUrl ?? c?.chain.rpcUrls.default.http[0];
      });
      readers.set(signer, tokens);
    }
    void describeRequest(request, decodeOptionsOf(ui.confirmation, tokens), code).then((value) => {
      if (live) setDescription({ request, value });
    });
    return () => {
      live = false;
    };
  }, [request, signer, ui.confirmation, code]);
  const shown = description?.request === request ? description.value : null;
  return (
    <div className="lk-center" data-testid="lk-confirm-signing">
      <MethodStyles />
      <Sheet name="latchkey-confirm" css={confirmCss} />
      <h2 className="lk-title">{texts.title}</h2>
      <p className="lk-text">{texts.intro}</p>
      {shown ? (
        <div className="lk-confirm-scroll">
          <p className="lk-confirm-title">{shown.title}</p>
          {shown.warnings.length > 0 && (
            <ul className="lk-confirm-warnings" aria-label={texts.warningsTitle}>
              {shown.warnings.map((w, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no identity but their place
                <li key={i} role="alert" data-warning={w.kind}>
                  <strong>{texts.warnings[w.kind]}:</strong> {w.text}
                </li>
              ))}
            </ul>
          )}
          <ul className="lk-confirm-lines">
            {shown.lines.map((line, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place
              <li key={i} style={line.depth ? { marginLeft: line.depth * 16 } : undefined}>
                {line.text}
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p className="lk-text" style={{ marginTop: 12 }}>
          <span className="lk-spinner" aria-hidden /> {texts.reading}
        </p>
      )}
      <div className="lk-actions">
        <button
          type="button"
          className="lk-btn lk-btn-primary"
          disabled={!shown}
          onClick={() => transitions.confirm.confirm()}
        >
          {texts.confirm}
        </button>
        <button type="button" className="lk-btn lk-btn-ghost" onClick={() => transitions.confirm.cancel()}>
          {texts.cancel}
        </button>
      </div>
    </div>
  );
}
