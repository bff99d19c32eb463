/**
 * The split-custody steps' texts in every shipped language (en, de, fr, es). They load with those steps
 * (steps/custody/*, a lazy chunk), not with the modal's first load.
 */
export interface CustodyTexts {
  protectTitle: string;
  protectBody: string;
  protectWithPasskey: string;
  protectWithCode: string;
  notNow: string;
  codeTitle: string;
  codeBody: string;
  copy: string;
  copied: string;
  savedIt: string;
  continue: string;
  riskTitle: string;
  riskBody: string;
  riskProtect: string;
  riskAccept: string;
  restoreTitle: string;
  restoreBody: string;
  restoreWithPasskey: string;
  restoreCodeLabel: string;
  restoreWithCode: string;
  restoreOr: string;
  errorWrongCode: string;
  errorMalformedCode: string;
  errorWrongPasskey: string;
  errorNoRecovery: string;
  errorPrfUnsupported: string;
  errorCancelled: string;
  errorFailed: string;
}

const en: CustodyTexts = {
  protectTitle: "Protect your wallet",
  protectBody:
    "Your wallet is split between this device and the service: neither can use it alone. Keep a way to restore this device's part, in case you lose the device or sign in on another one.",
  protectWithPasskey: "Protect with a passkey",
  protectWithCode: "Get a recovery code",
  notNow: "Not now",
  codeTitle: "Save your recovery code",
  codeBody:
    "Write it down or keep it in a password manager. It is shown only once: with it you can restore your wallet on a new device.",
  copy: "Copy",
  copied: "Copied!",
  savedIt: "I saved my recovery code",
  continue: "Continue",
  riskTitle: "Your wallet is on this device only",
  riskBody:
    "Without a passkey or a recovery code, losing this device or clearing this browser's data means losing the wallet and everything in it. Nobody can restore it for you.",
  riskProtect: "Protect my wallet",
  riskAccept: "I understand, continue",
  restoreTitle: "Restore your wallet",
  restoreBody:
    "This device does not hold your part of the wallet yet. Use the passkey or the recovery code you saved to bring your wallet here.",
  restoreWithPasskey: "Use my passkey",
  restoreCodeLabel: "Recovery code",
  restoreWithCode: "Restore with code",
  restoreOr: "or",
  errorWrongCode: "This recovery code does not open your wallet. Check it and try again.",
  errorMalformedCode: "A recovery code has 32 letters and digits, in groups of 4.",
  errorWrongPasskey:
    "This passkey does not open your wallet. Use the passkey you protected it with, or your recovery code.",
  errorNoRecovery:
    "No passkey or recovery code was saved for this wallet. Sign in on the device you used before: your wallet is there.",
  errorPrfUnsupported: "This passkey cannot protect a wallet. Use a recovery code instead.",
  errorCancelled: "The passkey request was cancelled. Try again.",
  errorFailed: "Something went wrong. Try again.",
};

const de: CustodyTexts = {
  protectTitle: "Schütze deine Wallet",
  protectBody:
    "Deine Wallet ist zwischen diesem Gerät und dem Dienst aufgeteilt: Keiner kann sie allein nutzen. Lege eine Möglichkeit fest, den Teil dieses Geräts wiederherzustellen, falls du das Gerät verlierst oder dich auf einem anderen anmeldest.",
  protectWithPasskey: "Mit Passkey schützen",
  protectWithCode: "Wiederherstellungscode erhalten",
  notNow: "Jetzt nicht",
  codeTitle: "Speichere deinen Wiederherstellungscode",
  codeBody:
    "Schreib ihn auf oder bewahre ihn in einem Passwortmanager auf. Er wird nur einmal angezeigt: Mit ihm stellst du deine Wallet auf einem neuen Gerät wieder her.",
  copy: "Kopieren",
  copied: "Kopiert!",
  savedIt: "Ich habe meinen Wiederherstellungscode gespeichert",
  continue: "Weiter",
  riskTitle: "Deine Wallet ist nur auf diesem Gerät",
  riskBody:
    "Ohne Passkey oder Wiederherstellungscode verlierst du die Wallet und alles darin, wenn du dieses Gerät verlierst oder die Daten dieses Browsers löschst. Niemand kann sie für dich wiederherstellen.",
  riskProtect: "Wallet schützen",
  riskAccept: "Verstanden, weiter",
  restoreTitle: "Stelle deine Wallet wieder her",
  restoreBody:
    "Dieses Gerät hat deinen Teil der Wallet noch nicht. Nutze den Passkey oder den Wiederherstellungscode, den du gespeichert hast, um deine Wallet hierher zu holen.",
  restoreWithPasskey: "Meinen Passkey verwenden",
  restoreCodeLabel: "Wiederherstellungscode",
  restoreWithCode: "Mit Code wiederherstellen",
  restoreOr: "oder",
  errorWrongCode:
    "Dieser Wiederherstellungscode öffnet deine Wallet nicht. Prüfe ihn und versuche es erneut.",
  errorMalformedCode: "Ein Wiederherstellungscode hat 32 Buchstaben und Ziffern in Vierergruppen.",
  errorWrongPasskey:
    "Dieser Passkey öffnet deine Wallet nicht. Nutze den Passkey, mit dem du sie geschützt hast, oder deinen Wiederherstellungscode.",
  errorNoRecovery:
    "Für diese Wallet wurde weder ein Passkey noch ein Wiederherstellungscode gespeichert. Melde dich auf dem Gerät an, das du vorher genutzt hast: Dort ist deine Wallet.",
  errorPrfUnsupported:
    "Dieser Passkey kann keine Wallet schützen. Nutze stattdessen einen Wiederherstellungscode.",
  errorCancelled: "Die Passkey-Anfrage wurde abgebrochen. Versuche es erneut.",
  errorFailed: "Etwas ist schiefgelaufen. Versuche es erneut.",
};

const fr: CustodyTexts = {
  protectTitle: "Protégez votre portefeuille",
  protectBody:
    "Votre portefeuille est partagé entre cet appareil et le service : aucun des deux ne peut l'utiliser seul. Gardez un moyen de restaurer la part de cet appareil, au cas où vous le perdriez ou vous connecteriez sur un autre.",
  protectWithPasskey: "Protéger avec une clé d'accès",
  protectWithCode: "Obtenir un code de récupération",
  notNow: "Pas maintenant",
  codeTitle: "Enregistrez votre code de récupération",
  codeBody:
    "Notez-le ou gardez-le dans un gestionnaire de mots de passe. Il n'est affiché qu'une fois : avec lui, vous restaurez votre portefeuille sur un nouvel appareil.",
  copy: "Copier",
  copied: "Copié !",
  savedIt: "J'ai enregistré mon code de récupération",
  continue: "Continuer",
  riskTitle: "Votre portefeuille n'est que sur cet appareil",
  riskBody:
    "Sans clé d'accès ni code de récupération, perdre cet appareil ou effacer les données de ce navigateur, c'est perdre le portefeuille et tout ce qu'il contient. Personne ne pourra le restaurer pour vous.",
  riskProtect: "Protéger mon portefeuille",
  riskAccept: "J'ai compris, continuer",
  restoreTitle: "Restaurez votre portefeuille",
  restoreBody:
    "Cet appareil n'a pas encore votre part du portefeuille. Utilisez la clé d'accès ou le code de récupération que vous avez enregistré pour le retrouver ici.",
  restoreWithPasskey: "Utiliser ma clé d'accès",
  restoreCodeLabel: "Code de récupération",
  restoreWithCode: "Restaurer avec le code",
  restoreOr: "ou",
  errorWrongCode: "Ce code de récupération n'ouvre pas votre portefeuille. Vérifiez-le et réessayez.",
  errorMalformedCode: "Un code de récupération compte 32 lettres et chiffres, par groupes de 4.",
  errorWrongPasskey:
    "Cette clé d'accès n'ouvre pas votre portefeuille. Utilisez celle avec laquelle vous l'avez protégé, ou votre code de récupération.",
  errorNoRecovery:
    "Aucune clé d'accès ni aucun code de récupération n'a été enregistré pour ce portefeuille. Connectez-vous sur l'appareil utilisé auparavant : votre portefeuille s'y trouve.",
  errorPrfUnsupported:
    "Cette clé d'accès ne peut pas protéger un portefeuille. Utilisez plutôt un code de récupération.",
  errorCancelled: "La demande de clé d'accès a été annulée. Réessayez.",
  errorFailed: "Une erreur s'est produite. Réessayez.",
};

const es: CustodyTexts = {
  protectTitle: "Protege tu billetera",
  protectBody:
    "Tu billetera está dividida entre este dispositivo y el servicio: ninguno puede usarla solo. Guarda una forma de restaurar la parte de este dispositivo, por si lo pierdes o inicias sesión en otro.",
  protectWithPasskey: "Proteger con una llave de acceso",
  protectWithCode: "Obtener un código de recuperación",
  notNow: "Ahora no",
  codeTitle: "Guarda tu código de recuperación",
  codeBody:
    "Anótalo o guárdalo en un gestor de contraseñas. Solo se muestra una vez: con él restauras tu billetera en un dispositivo nuevo.",
  copy: "Copiar",
  copied: "¡Copiado!",
  savedIt: "He guardado mi código de recuperación",
  continue: "Continuar",
  riskTitle: "Tu billetera está solo en este dispositivo",
  riskBody:
    "Sin una llave de acceso ni un código de recuperación, perder este dispositivo o borrar los datos de este navegador significa perder la billetera y todo lo que contiene. Nadie podrá restaurarla por ti.",
  riskProtect: "Proteger mi billetera",
  riskAccept: "Entendido, continuar",
  restoreTitle: "Restaura tu billetera",
  restoreBody:
    "Este dispositivo aún no tiene tu parte de la billetera. Usa la llave de acceso o el código de recuperación que guardaste para traer tu billetera aquí.",
  restoreWithPasskey: "Usar mi llave de acceso",
  restoreCodeLabel: "Código de recuperación",
  restoreWithCode: "Restaurar con el código",
  restoreOr: "o",
  errorWrongCode: "Este código de recuperación no abre tu billetera. Revísalo e inténtalo de nuevo.",
  errorMalformedCode: "Un código de recuperación tiene 32 letras y dígitos, en grupos de 4.",
  errorWrongPasskey:
    "Esta llave de acceso no abre tu billetera. Usa la llave con la que la protegiste o tu código de recuperación.",
  errorNoRecovery:
    "No se guardó ninguna llave de acceso ni código de recuperación para esta billetera. Inicia sesión en el dispositivo que usabas antes: tu billetera está allí.",
  errorPrfUnsupported: "Esta llave de acceso no puede proteger una billetera. Usa un código de recuperación.",
  errorCancelled: "Se canceló la solicitud de la llave de acceso. Inténtalo de nuevo.",
  errorFailed: "Algo salió mal. Inténtalo de nuevo.",
};

export const CUSTODY_TEXTS: Record<"en" | "de" | "fr" | "es", CustodyTexts> = { en, de, fr, es };

/** The texts of a locale code (`de`, `de-AT` → German); English for any other. */
export function custodyTexts(locale: string): CustodyTexts {
  const code = locale.slice(0, 2).toLowerCase();
  return code === "de" || code === "fr" || code === "es" ? CUSTODY_TEXTS[code] : en;
}

/** Whether `code` looks like a recovery code: 32 Crockford base32 characters (dashes and spaces ignored). */
export function isRecoveryCode(code: string): boolean {
  return /^[0-9A-HJKMNP-TV-Z]{32}$/.test(
    code.toUpperCase().replace(/[\s-]/g, "").replace(/O/g, "0").replace(/[IL]/g, "1"),
  );
}

/** What an error of protecting or restoring tells the user (`with`: what was used). */
export function custodyErrorText(texts: CustodyTexts, error: unknown, used: "code" | "passkey"): string {
  switch ((error as { code?: string } | null)?.code) {
    case "RECOVERY_FAILED":
      return used === "code" ? texts.errorWrongCode : texts.errorWrongPasskey;
    case "RECOVERY_NOT_FOUND":
      return texts.errorNoRecovery;
    case "PASSKEY_PRF_UNSUPPORTED":
      return texts.errorPrfUnsupported;
    case "PASSKEY_CANCELLED":
      return texts.errorCancelled;
    default:
      return texts.errorFailed;
  }
}
