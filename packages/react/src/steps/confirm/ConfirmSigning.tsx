import { previewSigning, type SigningRequest } from "@latchkey/core";
import type { PreviewBalanceChange, SigningPreview } from "@latchkey/protocol";
import { useEffect, useMemo, useState } from "react";
import { formatUnits } from "viem";
import { useLatchkeyContext } from "../../context";
import { MethodStyles, Sheet } from "../../styles/Styles";
import type { StepProps } from "../types";
import { type Description, decodeOptionsOf, describeRequest, rpcTokenReader } from "./describe";
import { type ConfirmTexts, confirmTextsFor } from "./texts";

const confirmCss = `
.lk-confirm-title{margin:4px 0 0;font-weight:600;overflow-wrap:anywhere}
.lk-confirm-lines{list-style:none;margin:12px 0 0;padding:0;width:100%;display:grid;gap:6px;text-align:left;font-size:13px}
.lk-confirm-lines li{padding:8px 12px;border:1px solid var(--lk-border);border-radius:calc(var(--lk-radius)*.625);background:var(--lk-surface);overflow-wrap:anywhere;white-space:pre-wrap}
.lk-confirm-warnings{list-style:none;margin:12px 0 0;padding:0;width:100%;display:grid;gap:6px;text-align:left;font-size:13px}
.lk-confirm-warnings li{padding:8px 12px;border-radius:calc(var(--lk-radius)*.625);background:color-mix(in srgb,var(--lk-danger) 10%,var(--lk-bg));border:1px solid color-mix(in srgb,var(--lk-danger) 30%,transparent);overflow-wrap:anywhere}
.lk-confirm-warnings strong{color:var(--lk-danger)}
.lk-confirm-scroll{width:100%;max-height:36vh;overflow:auto}
.lk-confirm-sim{margin:12px 0 0;width:100%;text-align:left;font-size:13px}
.lk-confirm-sim p{margin:0;color:var(--lk-muted)}
.lk-confirm-sim ul{list-style:none;margin:4px 0 0;padding:0;display:grid;gap:4px}
.lk-confirm-sim li{display:flex;justify-content:space-between;gap:12px;font-weight:600;font-variant-numeric:tabular-nums}
.lk-confirm-sim li[data-negative=true]{color:var(--lk-danger)}
.lk-confirm-sim li[data-negative=false]{color:var(--lk-success)}
.lk-confirm-policy{margin:10px 0 0;font-size:13px;font-weight:600;color:var(--lk-danger)}
`;

/** One balance change as the user reads it: "-0.01 ETH", "+1.5 USDC", raw units of an unknown token. */
export function balanceChangeText(change: PreviewBalanceChange, texts: ConfirmTexts): string {
  const delta = BigInt(change.delta);
  const sign = delta < 0n ? "-" : "+";
  const abs = delta < 0n ? -delta : delta;
  const short = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;
  const token = change.symbol ?? (change.asset === "native" ? "ETH" : short(change.asset));
  const decimals = change.decimals ?? (change.asset === "native" ? 18 : undefined);
  return decimals === undefined
    ? `${sign}${texts.rawUnits({ amount: abs.toString(), token })}`
    : `${sign}${formatUnits(abs, decimals)} ${token}`;
}

/** The service's preview: the simulated balance changes (or why there are none) and the policy's verdict. */
function Simulation({ preview, texts }: { preview: SigningPreview | "failed" | null; texts: ConfirmTexts }) {
  if (preview === null)
    return (
      <div className="lk-confirm-sim">
        <p>{texts.simulating}</p>
      </div>
    );
  if (preview === "failed")
    return (
      <div className="lk-confirm-sim">
        <p>{texts.simulationUnavailable(texts.unavailableReasons.service)}</p>
      </div>
    );
  const { simulation, policy } = preview;
  const verdict =
    policy.effect === "deny"
      ? texts.policyDeny
      : policy.effect === "needs_approval"
        ? texts.policyNeedsApproval
        : null;
  return (
    <>
      {simulation.status === "unavailable" ? (
        simulation.reason === "notApplicable" ? null : (
          <div className="lk-confirm-sim">
            <p>{texts.simulationUnavailable(texts.unavailableReasons[simulation.reason])}</p>
          </div>
        )
      ) : (
        <div className="lk-confirm-sim" data-testid="lk-balance-changes">
          <p>{texts.balanceChanges}</p>
          {simulation.reverts ? (
            <p className="lk-confirm-policy">{texts.reverts(simulation.revertReason)}</p>
          ) : simulation.balanceChanges.length === 0 ? (
            <p>{texts.noBalanceChanges}</p>
          ) : (
            <ul aria-label={texts.balanceChanges}>
              {simulation.balanceChanges.map((c) => (
                <li key={c.asset} data-negative={c.delta.startsWith("-")}>
                  {balanceChangeText(c, texts)}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {verdict ? <p className="lk-confirm-policy">{verdict}</p> : null}
    </>
  );
}

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
  // The signer's chain nodes, to read a token's symbol and decimals (cached by the reader while shown).
  const tokens = useMemo(() => {
    const chains = signer._internal.options.chains ?? [];
    return rpcTokenReader((id) => {
      const c = chains.find((x) => x.chain.id === id);
      return c?.rpcUrl ?? c?.chain.rpcUrls.default.http[0];
    });
  }, [signer]);
  const [preview, setPreview] = useState<{
    request: SigningRequest;
    value: SigningPreview | "failed";
  } | null>(null);
  useEffect(() => {
    // The service's reading: the simulation and the policy's verdict (a service without it: "failed").
    const activity = request.activity;
    if (!activity) return;
    let live = true;
    previewSigning(signer, { request: activity, locale: code }).then(
      (value) => live && setPreview({ request, value }),
      () => live && setPreview({ request, value: "failed" }),
    );
    return () => {
      live = false;
    };
  }, [request, signer, code]);
  useEffect(() => {
    let live = true;
    void describeRequest(request, decodeOptionsOf(ui.confirmation, tokens), code).then((value) => {
      if (live) setDescription({ request, value });
    });
    return () => {
      live = false;
    };
  }, [request, tokens, ui.confirmation, code]);
  const shown = description?.request === request ? description.value : null;
  const simulated = preview?.request === request ? preview.value : null;
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
          {request.activity ? <Simulation preview={simulated} texts={texts} /> : null}
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
