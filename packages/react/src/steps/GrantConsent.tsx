import type { GrantPermissionsInput } from "@latchkey/protocol";
import { useState } from "react";
import { StepUpPrompt } from "../components/StepUpPrompt";
import { useLatchkeyContext } from "../context";
import { useUser } from "../hooks/useUser";
import { MethodStyles } from "../styles/Styles";
import type { Texts } from "../texts/types";
import { useTexts } from "../texts/useTexts";
import type { StepProps } from "./types";

/** Wei as ETH, in full (no rounding: the user sees exactly what they allow). */
export function formatWei(wei: string): string {
  const v = BigInt(wei);
  const whole = v / 10n ** 18n;
  const fraction = (v % 10n ** 18n).toString().padStart(18, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : `${whole}`;
}

/** What a refused grant or step-up shows: a wrong code as such, a service error in the app's words. */
function errorText(texts: Texts, error: unknown): string {
  const e = error as { code?: string } | null;
  if (e?.code === "INVALID_OTP" || e?.code === "INVALID_MFA_CODE") return texts.otpInvalid;
  return (e?.code && texts.errors[e.code]) || texts.grantFailed;
}

const short = (address: string) => `${address.slice(0, 6)}…${address.slice(-4)}`;

const tokenPer = (texts: Texts, window: "24h" | "7d" | "30d" | "day" | "total") =>
  ({
    "24h": texts.grantTokenPer24h,
    "7d": texts.grantTokenPer7d,
    "30d": texts.grantTokenPer30d,
    day: texts.grantTokenPerDay,
    total: texts.grantTokenInAll,
  })[window];

/** Each line of what is granted: a label and its value, in the order the step lists them. */
export function grantLines(p: GrantPermissionsInput, texts: Texts, locale: string): [string, string][] {
  const perTransaction = p.valuePerTransaction ?? "0";
  const lines: [string, string][] = [
    [texts.grantNetworks, p.chainIds.map((id) => texts.grantNetwork(String(id))).join(", ")],
    [texts.grantContracts, p.contracts?.length ? p.contracts.map(short).join(", ") : texts.grantAnyContract],
    [texts.grantFunctions, p.selectors?.length ? p.selectors.join(", ") : texts.grantAnyFunction],
    [
      texts.grantValuePerTransaction,
      BigInt(perTransaction) === 0n ? texts.grantNoValue : texts.grantValue(formatWei(perTransaction)),
    ],
  ];
  if (p.valuePerDay !== undefined && BigInt(perTransaction) > 0n)
    lines.push([texts.grantValuePerDay, texts.grantValue(formatWei(p.valuePerDay))]);
  for (const l of p.tokenLimits ?? []) {
    const native = l.token === "native";
    const amount = (v: string) => (native ? texts.grantValue(formatWei(v)) : texts.grantTokenUnits(v));
    const parts = [
      ...(l.windows ?? []).map((w) => `${amount(w.amount)} ${tokenPer(texts, w.window)}`),
      ...(l.perTransaction === undefined
        ? []
        : [`${amount(l.perTransaction)} ${texts.grantTokenPerTransaction}`]),
    ];
    const chain = p.chainIds.length > 1 ? ` (${texts.grantNetwork(String(l.chainId))})` : "";
    lines.push([texts.grantTokenLimit(native ? "ETH" : short(l.token)) + chain, parts.join(", ")]);
  }
  lines.push([
    texts.grantOperations,
    p.maxOperations === undefined
      ? texts.grantNoOperationLimit
      : texts.grantOperationsAtMost(String(p.maxOperations)),
  ]);
  const also = [p.messages ? texts.grantMessages : "", p.typedData ? texts.grantTypedData : ""].filter(
    Boolean,
  );
  if (also.length) lines.push([texts.grantAlso, also.join(", ")]);
  lines.push([
    texts.grantUntil,
    new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(
      new Date(p.expiresAt),
    ),
  ]);
  return lines;
}

/**
 * grant_consent: what the app's backend asks to sign for the signed-in user, listed exactly (networks,
 * contracts, functions, value per transaction and per day, limits in tokens, number of signatures,
 * messages and typed data, until when); for a split-custody user, that the grant keeps a copy of their part of the wallet
 * until it ends or is revoked; Allow makes the grant, Decline (or Close) refuses it. When the sign-in is not fresh
 * the service asks for a step-up first: 'Confirm it's you' (a code to the email, the passkey or the app)
 * takes the place of the buttons, and the grant is made with its proof.
 */
export function GrantConsentStep({ transitions, step }: StepProps<"grant_consent">) {
  const texts = useTexts();
  const { locale } = useLatchkeyContext();
  // Split custody: the grant keeps a copy of the user's part of the wallet, and the step says so.
  const split = useUser()?.custody === "split";
  const [promptError, setPromptError] = useState<string | null>(null);
  const busy = step.status === "verifying";
  const p = step.permissions;
  const full = [...(p.contracts ?? [])].join(", ");
  const shown = promptError ?? (step.error ? errorText(texts, step.error) : null);
  return (
    <div className="lk-center">
      <MethodStyles />
      <h2 className="lk-title">{texts.grantTitle}</h2>
      {p.description && <p className="lk-text lk-grant-description">“{p.description}”</p>}
      <p className="lk-text">{texts.grantIntro}</p>
      <dl className="lk-grant" title={full || undefined}>
        {grantLines(p, texts, locale).map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {split && <p className="lk-text lk-grant-hint lk-grant-custody">{texts.grantSplitCustody}</p>}
      <p className="lk-text lk-grant-hint">{texts.grantRevokeHint}</p>
      {shown && (
        <p className="lk-inline-error" role="alert">
          {shown}
        </p>
      )}
      {step.stepUpMethods ? (
        <div style={{ marginTop: 8 }}>
          <StepUpPrompt
            methods={step.stepUpMethods}
            body={texts.grantStepUpBody}
            disabled={busy}
            onProof={async (proof) => {
              setPromptError(null);
              const error = await transitions.grant.allow(proof);
              return error ? errorText(texts, error) : null;
            }}
            onError={setPromptError}
            onSendCode={() => setPromptError(null)}
            describeError={(e) => errorText(texts, e)}
            onCancel={() => {
              setPromptError(null);
              transitions.grant.back();
            }}
          />
        </div>
      ) : (
        <div className="lk-actions">
          <button
            type="button"
            className="lk-btn lk-btn-primary"
            disabled={busy}
            onClick={() => void transitions.grant.allow()}
          >
            {busy && <span className="lk-spinner" aria-hidden />}
            {texts.grantAllow}
          </button>
          <button
            type="button"
            className="lk-btn lk-btn-ghost"
            disabled={busy}
            onClick={() => transitions.grant.decline()}
          >
            {texts.grantDecline}
          </button>
        </div>
      )}
    </div>
  );
}
