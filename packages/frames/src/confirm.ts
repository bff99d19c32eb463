import { decodeBase64url } from "@latchkey/protocol/codecs";
import { CONFIRMATION_KEY_PATH, CONFIRMATION_KEY_TYPE, confirmationMessage } from "@latchkey/protocol/frame";

/**
 * Enforced confirmations (issue 46): the auth frame draws a signing request for the user and, when they
 * press Confirm here, signs a confirmation of its exact body with a key it made and never hands out. The
 * host page asks (`confirmSigning`) but cannot press Confirm for the user, read the key or change what is
 * drawn: the frame asks the service itself what the body does (`preview_signing`, same origin), and
 * registers the key's public key with its session itself (CONFIRMATION_KEY_PATH, which the service takes
 * only from its own origin). The frame's `stamp` never stamps a registration (isRegistrationBody).
 */

interface Stamp {
  stampHeaderName: string;
  stampHeaderValue: string;
}
interface SessionStamper {
  stamp(body: string): Promise<Stamp>;
}

/** The user pressed Cancel (or the frame could not draw the request): the parent gets USER_REJECTED. */
export class ConfirmationRejected extends Error {
  override name = "ConfirmationRejected";
}

type Locale = "en" | "de" | "fr" | "es";
const TEXTS: Record<
  Locale,
  {
    title: string;
    confirm: string;
    cancel: string;
    loading: string;
    opaque: string;
    simulation: string;
    noSimulation: string;
    reverts: string;
    noChange: string;
    failed: string;
    origin: string;
  }
> = {
  en: {
    title: "Review the request",
    confirm: "Confirm",
    cancel: "Cancel",
    loading: "Reading the request…",
    opaque:
      "You are signing an opaque hash: nobody can tell what it authorizes. Confirm only if you expected it from this app.",
    simulation: "Balance changes",
    noSimulation: "Simulation unavailable",
    reverts: "This transaction would fail",
    noChange: "No balance changes",
    failed: "The request could not be read, so it cannot be confirmed.",
    origin: "Asked by",
  },
  de: {
    title: "Anfrage prüfen",
    confirm: "Bestätigen",
    cancel: "Abbrechen",
    loading: "Anfrage wird gelesen…",
    opaque:
      "Sie signieren einen undurchsichtigen Hash: Niemand kann erkennen, was er erlaubt. Bestätigen Sie nur, wenn Sie ihn von dieser App erwartet haben.",
    simulation: "Saldenänderungen",
    noSimulation: "Simulation nicht verfügbar",
    reverts: "Diese Transaktion würde fehlschlagen",
    noChange: "Keine Saldenänderungen",
    failed: "Die Anfrage konnte nicht gelesen werden und kann daher nicht bestätigt werden.",
    origin: "Angefragt von",
  },
  fr: {
    title: "Vérifier la demande",
    confirm: "Confirmer",
    cancel: "Annuler",
    loading: "Lecture de la demande…",
    opaque:
      "Vous signez un hachage opaque : personne ne peut savoir ce qu’il autorise. Ne confirmez que si vous l’attendiez de cette application.",
    simulation: "Variations de solde",
    noSimulation: "Simulation indisponible",
    reverts: "Cette transaction échouerait",
    noChange: "Aucune variation de solde",
    failed: "La demande n’a pas pu être lue : elle ne peut pas être confirmée.",
    origin: "Demandé par",
  },
  es: {
    title: "Revisar la solicitud",
    confirm: "Confirmar",
    cancel: "Cancelar",
    loading: "Leyendo la solicitud…",
    opaque:
      "Está firmando un hash opaco: nadie puede saber qué autoriza. Confirme solo si lo esperaba de esta aplicación.",
    simulation: "Cambios de saldo",
    noSimulation: "Simulación no disponible",
    reverts: "Esta transacción fallaría",
    noChange: "Sin cambios de saldo",
    failed: "No se pudo leer la solicitud, así que no se puede confirmar.",
    origin: "Solicitado por",
  },
};
const localeOf = (value: unknown): Locale =>
  value === "de" || value === "fr" || value === "es" ? value : "en";

/** The activities the frame confirms: those `preview_signing` reads. */
const PREVIEWABLE = new Set([
  "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
  "ACTIVITY_TYPE_SIGN_RAW_PAYLOADS",
]);

/** A registration body is stamped only by the frame itself, for its own key: never for the host page. */
export function isRegistrationBody(body: string): boolean {
  try {
    return (JSON.parse(body) as { type?: unknown })?.type === CONFIRMATION_KEY_TYPE;
  } catch {
    return false;
  }
}

const hex = (bytes: ArrayBuffer | Uint8Array) =>
  Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");

/** One confirmation key per parent origin, non-extractable, for the frame's life. */
const confirmKeys = new Map<string, Promise<{ pair: CryptoKeyPair; publicKey: string }>>();
function confirmKeyOf(parentOrigin: string) {
  let key = confirmKeys.get(parentOrigin);
  if (!key) {
    key = (async () => {
      const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
        "sign",
        "verify",
      ])) as CryptoKeyPair;
      const publicKey = hex(await crypto.subtle.exportKey("raw", pair.publicKey));
      return { pair, publicKey };
    })();
    confirmKeys.set(parentOrigin, key);
  }
  return key;
}

/** The session each parent origin's confirmation key is registered for (the session key's public key). */
const registeredFor = new Map<string, string>();

function sessionKeyOf(stamp: Stamp): string {
  const json = JSON.parse(new TextDecoder().decode(decodeBase64url(stamp.stampHeaderValue))) as {
    publicKey?: string;
  };
  return json.publicKey ?? "";
}

async function post(path: string, body: string, stamp: Stamp): Promise<unknown> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
    body,
    credentials: "omit",
  });
  const answer = (await response.json().catch(() => ({}))) as { message?: string; error?: string };
  if (!response.ok) throw new Error(answer.message ?? answer.error ?? `HTTP ${response.status}`);
  return answer;
}

/** Registers the confirmation key with the current session, once per session. */
async function ensureRegistered(keys: SessionStamper, parentOrigin: string, organizationId: string) {
  const { publicKey } = await confirmKeyOf(parentOrigin);
  const body = JSON.stringify({
    type: CONFIRMATION_KEY_TYPE,
    timestampMs: String(Date.now()),
    organizationId,
    publicKey,
  });
  const stamp = await keys.stamp(body);
  const session = sessionKeyOf(stamp);
  if (registeredFor.get(parentOrigin) === `${session}/${publicKey}`) return;
  await post(CONFIRMATION_KEY_PATH, body, stamp);
  registeredFor.set(parentOrigin, `${session}/${publicKey}`);
}

interface Preview {
  kind: string;
  summary: { title: string; lines: { text: string; depth: number }[]; warnings: string[] };
  simulation:
    | {
        status: "ok";
        reverts: boolean;
        revertReason?: string;
        balanceChanges: { asset: string; symbol?: string; decimals?: number; delta: string }[];
      }
    | { status: "unavailable"; reason: string; message?: string };
}

function formatUnits(delta: string, decimals: number): string {
  const negative = delta.startsWith("-");
  const digits = (negative ? delta.slice(1) : delta).padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : "+"}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** One request at a time is drawn; a second waits for the first to be decided. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Draws `body` (a signing activity's stamped body) for the user, and answers its stamp with the
 * confirmation once they press Confirm; throws ConfirmationRejected on Cancel or Escape.
 */
export function confirmSigning(
  keys: SessionStamper,
  params: { body: string; locale?: string; parentOrigin: string },
): Promise<{ confirmation: string }> {
  const run = queue.then(() => confirmOnce(keys, params));
  queue = run.catch(() => {});
  return run;
}

async function confirmOnce(
  keys: SessionStamper,
  params: { body: string; locale?: string; parentOrigin: string },
): Promise<{ confirmation: string }> {
  const { body, parentOrigin } = params;
  const t = TEXTS[localeOf(params.locale)];
  const parsed = JSON.parse(body) as {
    type?: unknown;
    organizationId?: unknown;
    parameters?: unknown;
  };
  if (typeof parsed.type !== "string" || !PREVIEWABLE.has(parsed.type))
    throw new TypeError("only a signing request is confirmed");
  if (typeof parsed.organizationId !== "string") throw new TypeError("organizationId must be a string");
  const organizationId = parsed.organizationId;
  const registration = ensureRegistered(keys, parentOrigin, organizationId);
  registration.catch(() => {});
  const previewBody = JSON.stringify({
    type: "QUERY_TYPE_PREVIEW_SIGNING",
    organizationId,
    request: { type: parsed.type, parameters: parsed.parameters },
    locale: localeOf(params.locale),
  });
  const preview = keys
    .stamp(previewBody)
    .then((stamp) => post("/public/v1/query/preview_signing", previewBody, stamp))
    .then((answer) => (answer as { preview: Preview }).preview);

  const view = drawDialog(t, parentOrigin);
  try {
    const shown = await preview.then(
      (p) => {
        view.show(p);
        return true;
      },
      () => {
        view.fail();
        return false;
      },
    );
    const decided = await view.decision;
    if (!shown || !decided) throw new ConfirmationRejected("The user refused the request");
    await registration;
    const confirmedAtMs = Date.now();
    const digest = hex(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
    const { pair } = await confirmKeyOf(parentOrigin);
    const signature = await crypto.subtle.sign(
      { name: "ECDSA", hash: "SHA-256" },
      pair.privateKey,
      new TextEncoder().encode(confirmationMessage(digest, confirmedAtMs)),
    );
    return { confirmation: `v1.${confirmedAtMs}.${hex(signature)}` };
  } finally {
    view.remove();
  }
}

type Texts = (typeof TEXTS)["en"];

/**
 * The dialog, drawn in the frame's own document. Confirm works only once the frame has been on screen,
 * unobscured where the browser can say so (IntersectionObserver v2), for 600 ms: a page that hides the
 * frame under something else cannot have the user click Confirm blind.
 */
function drawDialog(t: Texts, parentOrigin: string) {
  const el = <K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const backdrop = el("div", "lk-backdrop");
  const dialog = el("div", "lk-dialog");
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  const heading = el("h1", undefined, t.title);
  dialog.setAttribute("aria-label", t.title);
  const origin = el("p", "lk-origin", `${t.origin} ${parentOrigin}`);
  const content = el("div", "lk-content", t.loading);
  const actions = el("div", "lk-actions");
  const cancel = el("button", "lk-cancel", t.cancel);
  const confirm = el("button", "lk-confirm", t.confirm);
  cancel.type = "button";
  confirm.type = "button";
  confirm.disabled = true;
  actions.append(cancel, confirm);
  dialog.append(heading, origin, content, actions);
  backdrop.append(dialog);
  document.body.append(backdrop);

  let settle: (ok: boolean) => void = () => {};
  const decision = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  let loaded = false;
  let visibleSince: number | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const update = () => {
    if (timer) clearTimeout(timer);
    if (!loaded || visibleSince === null) {
      confirm.disabled = true;
      return;
    }
    const left = visibleSince + 600 - performance.now();
    if (left <= 0) confirm.disabled = false;
    else timer = setTimeout(update, left);
  };
  let observer: IntersectionObserver | undefined;
  try {
    observer = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const visible =
            (entry as IntersectionObserverEntry & { isVisible?: boolean }).isVisible ?? entry.isIntersecting;
          visibleSince = visible && entry.isIntersecting ? (visibleSince ?? performance.now()) : null;
        }
        update();
      },
      { threshold: [1], trackVisibility: true, delay: 100 } as IntersectionObserverInit,
    );
    observer.observe(dialog);
  } catch {
    visibleSince = performance.now();
  }
  const onKey = (event: KeyboardEvent) => {
    if (event.key === "Escape") settle(false);
  };
  document.addEventListener("keydown", onKey);
  cancel.addEventListener("click", () => settle(false));
  confirm.addEventListener("click", () => {
    if (!confirm.disabled) settle(true);
  });
  cancel.focus();

  return {
    decision,
    show(preview: Preview) {
      content.textContent = "";
      content.append(el("h2", "lk-summary", preview.summary.title));
      const list = el("ul", "lk-lines");
      for (const line of preview.summary.lines) {
        const item = el("li", line.depth > 0 ? "lk-nested" : undefined, line.text);
        list.append(item);
      }
      content.append(list);
      const warnings = [...(preview.kind === "raw" ? [t.opaque] : []), ...preview.summary.warnings];
      for (const warning of warnings) {
        const w = el("p", "lk-warning", warning);
        w.setAttribute("role", "alert");
        content.append(w);
      }
      const sim = preview.simulation;
      if (sim.status === "ok") {
        content.append(el("h2", "lk-sim-title", t.simulation));
        if (sim.reverts)
          content.append(
            el("p", "lk-warning", `${t.reverts}${sim.revertReason ? `: ${sim.revertReason}` : ""}`),
          );
        else if (sim.balanceChanges.length === 0) content.append(el("p", "lk-sim", t.noChange));
        for (const change of sim.balanceChanges) {
          const amount =
            change.decimals !== undefined || change.asset === "native"
              ? formatUnits(change.delta, change.decimals ?? 18)
              : change.delta;
          const symbol = change.symbol ?? (change.asset === "native" ? "ETH" : change.asset);
          content.append(el("p", "lk-sim", `${amount} ${symbol}`));
        }
      } else if (sim.reason !== "notApplicable") {
        content.append(el("p", "lk-sim", `${t.noSimulation}${sim.message ? `: ${sim.message}` : ""}`));
      }
      loaded = true;
      update();
    },
    fail() {
      content.textContent = "";
      content.append(el("p", "lk-warning", t.failed));
    },
    remove() {
      observer?.disconnect();
      if (timer) clearTimeout(timer);
      document.removeEventListener("keydown", onKey);
      backdrop.remove();
    },
  };
}
