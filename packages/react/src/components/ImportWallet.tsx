import {
  type ImportWalletKind,
  type ImportWalletParameters,
  type StepUp,
  type StepUpMethod,
  stepUpMethodsOf,
} from "@latchkey/core";
import { useEffect, useRef, useState } from "react";
import { useImportWallet } from "../hooks/useImportWallet";
import { useUser } from "../hooks/useUser";
import type { Texts } from "../texts/types";
import { useTexts } from "../texts/useTexts";
import { Root } from "./Root";
import { StepUpPrompt } from "./StepUpPrompt";

type ImportFrameTexts = NonNullable<
  Extract<ImportWalletParameters, { iframeContainer: HTMLElement }>["texts"]
>;
type Phase = "choose" | "warn" | "typing" | "done";

const KINDS: readonly ImportWalletKind[] = ["mnemonic", "evm_private_key", "solana_private_key"];
// An import whose key is spent or expired cannot go on: it starts again from the choice.
const RESTART = new Set(["IMPORT_KEY_USED", "IMPORT_KEY_EXPIRED", "INVALID_IMPORT_BUNDLE"]);

const short = (address: string) =>
  address.length > 14 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address;

function kindLabel(texts: Texts, kind: ImportWalletKind): string {
  if (kind === "evm_private_key") return texts.importKindEvmKey;
  if (kind === "solana_private_key") return texts.importKindSolanaKey;
  return texts.importKindPhrase;
}

function frameTextsOf(texts: Texts, kind: ImportWalletKind): ImportFrameTexts {
  const common = {
    invalidPhrase: texts.importInvalidPhrase,
    invalidEvmKey: texts.importInvalidEvmKey,
    invalidSolanaKey: texts.importInvalidSolanaKey,
    invalidBundle: texts.importInvalidBundle,
  };
  if (kind === "evm_private_key")
    return { ...common, label: texts.importFieldEvmKey, placeholder: texts.importPlaceholderEvmKey };
  if (kind === "solana_private_key")
    return { ...common, label: texts.importFieldSolanaKey, placeholder: texts.importPlaceholderSolanaKey };
  return { ...common, label: texts.importFieldPhrase, placeholder: texts.importPlaceholderPhrase };
}

/** The error's text; null for the frame's own refusal of what was typed (the frame shows it). */
function errorText(texts: Texts, error: unknown): string | null {
  const e = error as { name?: string; code?: string; message?: string } | null;
  const fromService = e?.name === "SignerApiError";
  if (e?.code === "INVALID_IMPORT_SECRET" && !fromService) return null;
  if (e?.code === "INVALID_IMPORT_BUNDLE" && !fromService) return texts.importInvalidBundle;
  if (e?.code === "INVALID_OTP" || e?.code === "INVALID_MFA_CODE") return texts.otpInvalid;
  return (e?.code && texts.errors[e.code]) || e?.message || texts.errorBody;
}

/**
 * Wallet import for the signed-in user: what to import (a recovery phrase, an EVM or a Solana private key),
 * a warning that names the addresses the import replaces (the earlier wallet is kept, no longer shown),
 * then the service's import frame, where alone the secret is typed, and 'Import'. When the sign-in is
 * older than five minutes it asks 'Confirm it's you' first.
 *
 * @example
 * <ImportWallet /> // e.g. on an account page, beside <ExportAccount />
 */
export function ImportWallet({ className }: { className?: string }) {
  const texts = useTexts();
  const user = useUser();
  const { startImportAsync, submitImportAsync, open, imported, isStarting, isImporting, reset } =
    useImportWallet();
  const frameRef = useRef<HTMLDivElement>(null);
  const [phase, setPhase] = useState<Phase>("choose");
  const [kind, setKind] = useState<ImportWalletKind>("mnemonic");
  const [stepUp, setStepUp] = useState<StepUpMethod[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  // What is typed goes with the component: leaving the page closes the frame.
  useEffect(() => () => open?.close(), [open]);

  const evm = user?.address ? `EVM ${short(user.address)}` : "";
  const solana = user?.solanaAddress ? `Solana ${short(user.solanaAddress)}` : "";
  const warning =
    kind === "evm_private_key"
      ? texts.importWarnEvmKey(evm)
      : kind === "solana_private_key"
        ? texts.importWarnSolanaKey(solana)
        : texts.importWarnPhrase([evm, solana].filter(Boolean).join(" · "));

  function restart(text: string | null = null) {
    reset();
    setStepUp(null);
    setError(text);
    setPhase("choose");
  }

  async function begin() {
    const container = frameRef.current;
    if (!container) return;
    setError(null);
    setPhase("typing");
    try {
      await startImportAsync({ iframeContainer: container, kind, texts: frameTextsOf(texts, kind) });
    } catch (e) {
      restart(errorText(texts, e));
    }
  }

  /** Imports what was typed; answers an error text to show, or null. */
  async function run(proof?: StepUp): Promise<string | null> {
    if (!open) return texts.errorBody;
    setError(null);
    try {
      await submitImportAsync({ open, ...(proof ? { stepUp: proof } : {}) });
      open.close();
      setStepUp(null);
      setPhase("done");
      return null;
    } catch (e) {
      const methods = stepUpMethodsOf(e);
      if (methods) {
        setStepUp(methods);
        if (!proof) return null;
      }
      const code = (e as { code?: string } | null)?.code ?? "";
      const text = errorText(texts, e);
      if (RESTART.has(code)) restart(text);
      else setError(text);
      return text ?? "";
    }
  }

  const working = isStarting || isImporting;
  const done = phase === "done" && imported;
  return (
    <Root className={className}>
      <section className="lk-import" aria-label={texts.importTitle} style={{ display: "grid", gap: 12 }}>
        <h2 className="lk-title" style={{ textAlign: "left", margin: 0 }}>
          {texts.importTitle}
        </h2>
        {phase !== "done" ? <p style={{ margin: 0 }}>{texts.importBody}</p> : null}
        {error ? (
          <p className="lk-banner" role="alert">
            {error}
          </p>
        ) : null}
        {phase === "choose" ? (
          <>
            <fieldset style={{ display: "grid", gap: 6, border: 0, margin: 0, padding: 0 }}>
              <legend style={{ marginBottom: 6 }}>{texts.importKindLabel}</legend>
              {KINDS.map((k) => (
                <label key={k} style={{ display: "flex", gap: 8, alignItems: "center" }}>
                  <input
                    type="radio"
                    name="lk-import-kind"
                    checked={kind === k}
                    onChange={() => setKind(k)}
                  />
                  {kindLabel(texts, k)}
                </label>
              ))}
            </fieldset>
            <button type="button" className="lk-btn lk-btn-primary" onClick={() => setPhase("warn")}>
              {texts.importContinue}
            </button>
          </>
        ) : null}
        {phase === "warn" ? (
          <>
            <p role="note" data-testid="import-warning" style={{ margin: 0, fontWeight: 600 }}>
              {warning}
            </p>
            <button type="button" className="lk-btn lk-btn-primary" onClick={() => void begin()}>
              {texts.importConfirm}
            </button>
            <button type="button" className="lk-btn lk-btn-secondary" onClick={() => restart()}>
              {texts.cancel}
            </button>
          </>
        ) : null}
        <div ref={frameRef} className="lk-import-frame" hidden={phase !== "typing"} />
        {phase === "typing" && stepUp ? (
          <StepUpPrompt
            methods={stepUp}
            body={texts.importStepUpBody}
            disabled={working}
            onProof={run}
            onError={setError}
            onSendCode={() => setError(null)}
            describeError={(e) => errorText(texts, e) ?? texts.errorBody}
            onCancel={() => restart()}
          />
        ) : null}
        {phase === "typing" && !stepUp ? (
          <>
            <button
              type="button"
              className="lk-btn lk-btn-primary"
              disabled={working || !open}
              onClick={() => void run()}
            >
              {isImporting ? texts.importing : texts.importSubmit}
            </button>
            <button
              type="button"
              className="lk-btn lk-btn-secondary"
              disabled={isImporting}
              onClick={() => restart()}
            >
              {texts.cancel}
            </button>
          </>
        ) : null}
        {done ? (
          <>
            <p role="status" style={{ margin: 0, fontWeight: 600 }}>
              {texts.importDone}
            </p>
            <p style={{ margin: 0 }} data-testid="import-result">
              {texts.importDoneBody(
                [
                  imported.address ? `EVM ${imported.address}` : "",
                  imported.solanaAddress ? `Solana ${imported.solanaAddress}` : "",
                ]
                  .filter(Boolean)
                  .join(" · "),
              )}
            </p>
            <button type="button" className="lk-btn lk-btn-secondary" onClick={() => restart()}>
              {texts.importFinish}
            </button>
          </>
        ) : null}
      </section>
    </Root>
  );
}
