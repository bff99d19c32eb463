import type { Warning } from "@latchkey/decoder";

/**
 * The confirmation step's own texts in every shipped language (en, de, fr, es); what the request does is
 * worded by @latchkey/decoder's `summarize` in the same language. Both load with the step (a lazy chunk),
 * not with the modal.
 */
export interface ConfirmTexts {
  title: string;
  intro: string;
  /** The label before each warning's sentence: "Unlimited approval: …". */
  warnings: Record<Warning["kind"], string>;
  warningsTitle: string;
  balanceChanges: string;
  noBalanceChanges: string;
  simulationUnavailable: (reason: string) => string;
  reading: string;
  confirm: string;
  cancel: string;
}

const en: ConfirmTexts = {
  title: "Review the request",
  intro: "Check what you sign: once signed, it cannot be undone.",
  warnings: {
    unlimitedApproval: "Unlimited approval",
    operatorApproval: "All your tokens",
    permitToUnknownSpender: "Unknown spender",
    delegationNotAllowed: "Unknown delegate",
    transferToZeroAddress: "Zero address",
    valueAboveThreshold: "Large amount",
  },
  warningsTitle: "Warnings",
  balanceChanges: "Balance changes",
  noBalanceChanges: "No balance changes",
  simulationUnavailable: (reason) => `Simulation unavailable: ${reason}`,
  reading: "Reading the request...",
  confirm: "Confirm",
  cancel: "Cancel",
};

const de: ConfirmTexts = {
  title: "Anfrage prüfen",
  intro: "Prüfe, was du signierst: Einmal signiert, lässt es sich nicht rückgängig machen.",
  warnings: {
    unlimitedApproval: "Unbegrenzte Freigabe",
    operatorApproval: "Alle deine Token",
    permitToUnknownSpender: "Unbekannter Empfänger der Freigabe",
    delegationNotAllowed: "Unbekannter Delegierter",
    transferToZeroAddress: "Nulladresse",
    valueAboveThreshold: "Hoher Betrag",
  },
  warningsTitle: "Warnungen",
  balanceChanges: "Kontostandsänderungen",
  noBalanceChanges: "Keine Kontostandsänderungen",
  simulationUnavailable: (reason) => `Simulation nicht verfügbar: ${reason}`,
  reading: "Anfrage wird gelesen...",
  confirm: "Bestätigen",
  cancel: "Abbrechen",
};

const fr: ConfirmTexts = {
  title: "Vérifiez la demande",
  intro: "Vérifiez ce que vous signez : une fois signé, c'est irréversible.",
  warnings: {
    unlimitedApproval: "Autorisation illimitée",
    operatorApproval: "Tous vos jetons",
    permitToUnknownSpender: "Bénéficiaire inconnu",
    delegationNotAllowed: "Délégué inconnu",
    transferToZeroAddress: "Adresse zéro",
    valueAboveThreshold: "Montant élevé",
  },
  warningsTitle: "Avertissements",
  balanceChanges: "Variations de solde",
  noBalanceChanges: "Aucune variation de solde",
  simulationUnavailable: (reason) => `Simulation indisponible : ${reason}`,
  reading: "Lecture de la demande...",
  confirm: "Confirmer",
  cancel: "Annuler",
};

const es: ConfirmTexts = {
  title: "Revisa la solicitud",
  intro: "Comprueba lo que firmas: una vez firmado, no se puede deshacer.",
  warnings: {
    unlimitedApproval: "Aprobación ilimitada",
    operatorApproval: "Todos tus tokens",
    permitToUnknownSpender: "Destinatario desconocido",
    delegationNotAllowed: "Delegado desconocido",
    transferToZeroAddress: "Dirección cero",
    valueAboveThreshold: "Importe elevado",
  },
  warningsTitle: "Advertencias",
  balanceChanges: "Cambios de saldo",
  noBalanceChanges: "Sin cambios de saldo",
  simulationUnavailable: (reason) => `Simulación no disponible: ${reason}`,
  reading: "Leyendo la solicitud...",
  confirm: "Confirmar",
  cancel: "Cancelar",
};

/** The shipped languages' texts, by code. */
export const confirmTexts: Record<"en" | "de" | "fr" | "es", ConfirmTexts> = { en, de, fr, es };

/** The texts of a BCP 47 language ("de", "de-CH"); English when it is not shipped. */
export function confirmTextsFor(locale: string): { code: "en" | "de" | "fr" | "es"; texts: ConfirmTexts } {
  const code = locale.slice(0, 2).toLowerCase();
  return code === "de" || code === "fr" || code === "es"
    ? { code, texts: confirmTexts[code] }
    : { code: "en", texts: en };
}
