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
  /** Why there is no simulation (the service's reason; `service`: the service did not answer one). */
  unavailableReasons: Record<"noRpc" | "unsupported" | "timeout" | "error" | "service", string>;
  simulating: string;
  reverts: (reason?: string) => string;
  /** A token whose decimals are unknown: its amount in raw units. */
  rawUnits: (p: { amount: string; token: string }) => string;
  policyDeny: string;
  policyNeedsApproval: string;
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
  unavailableReasons: {
    noRpc: "this app has no node for the chain",
    unsupported: "the chain's node cannot simulate",
    timeout: "the chain's node did not answer in time",
    error: "the chain's node answered an error",
    service: "the service could not simulate it",
  },
  simulating: "Simulating...",
  reverts: (reason) => `It would fail on the chain${reason ? `: ${reason}` : ""}.`,
  rawUnits: ({ amount, token }) => `${amount} units of ${token}`,
  policyDeny: "The app's signing policy will refuse this.",
  policyNeedsApproval: "The app's admins must approve this before it is signed.",
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
  unavailableReasons: {
    noRpc: "Diese App hat keinen Knoten für die Chain",
    unsupported: "Der Knoten der Chain kann nicht simulieren",
    timeout: "Der Knoten der Chain hat nicht rechtzeitig geantwortet",
    error: "Der Knoten der Chain hat mit einem Fehler geantwortet",
    service: "Der Dienst konnte sie nicht simulieren",
  },
  simulating: "Wird simuliert...",
  reverts: (reason) => `Sie würde auf der Chain scheitern${reason ? `: ${reason}` : ""}.`,
  rawUnits: ({ amount, token }) => `${amount} Einheiten von ${token}`,
  policyDeny: "Die Signaturrichtlinie der App wird dies ablehnen.",
  policyNeedsApproval: "Die Admins der App müssen dies genehmigen, bevor es signiert wird.",
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
  unavailableReasons: {
    noRpc: "cette application n'a pas de nœud pour cette chaîne",
    unsupported: "le nœud de la chaîne ne sait pas simuler",
    timeout: "le nœud de la chaîne n'a pas répondu à temps",
    error: "le nœud de la chaîne a répondu par une erreur",
    service: "le service n'a pas pu la simuler",
  },
  simulating: "Simulation...",
  reverts: (reason) => `Elle échouerait sur la chaîne${reason ? ` : ${reason}` : ""}.`,
  rawUnits: ({ amount, token }) => `${amount} unités de ${token}`,
  policyDeny: "La politique de signature de l'application la refusera.",
  policyNeedsApproval: "Les administrateurs de l'application doivent l'approuver avant qu'elle soit signée.",
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
  unavailableReasons: {
    noRpc: "esta aplicación no tiene un nodo para la cadena",
    unsupported: "el nodo de la cadena no puede simular",
    timeout: "el nodo de la cadena no respondió a tiempo",
    error: "el nodo de la cadena respondió con un error",
    service: "el servicio no pudo simularla",
  },
  simulating: "Simulando...",
  reverts: (reason) => `Fallaría en la cadena${reason ? `: ${reason}` : ""}.`,
  rawUnits: ({ amount, token }) => `${amount} unidades de ${token}`,
  policyDeny: "La política de firma de la aplicación la rechazará.",
  policyNeedsApproval: "Los administradores de la aplicación deben aprobarla antes de firmarla.",
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
