/** The languages of the service's mails; an app picks one (`locale` in its config). */
export const MAIL_LOCALES = ["en", "de", "fr", "es"] as const;
export type MailLocale = (typeof MAIL_LOCALES)[number];

/** A stored locale as a known one (English for anything else). */
export function mailLocale(value: string | null | undefined): MailLocale {
  return (MAIL_LOCALES as readonly string[]).includes(value ?? "") ? (value as MailLocale) : "en";
}

/** Every text of the mails in one language. `app` is the app's name, `ttl` minutes. */
export interface MailTexts {
  protectedBy: string;
  otp: {
    subject(code: string, app: string): string;
    title(app: string): string;
    heading: string;
    intro(app: string): string;
    plainIntro(app: string, code: string): string;
    expiry(ttl: number): string;
  };
  magicLink: {
    subject(app: string): string;
    heading(app: string): string;
    intro: string;
    button: string;
    plainIntro(app: string): string;
    expiry(ttl: number): string;
  };
  contactCode: {
    subject(code: string, app: string): string;
    title(app: string): string;
    heading: string;
    intro(app: string): string;
    plainIntro(app: string, code: string): string;
    plainUse: string;
    expiry(ttl: number): string;
  };
  emailChanged: {
    subjectChanged(app: string): string;
    subjectRemoved(app: string): string;
    title(app: string): string;
    heading: string;
    changedTo(app: string, newEmail: string): string;
    removed(app: string): string;
    advice: string;
  };
  walletExported: {
    subject(app: string): string;
    body(app: string): string;
    advice: string;
  };
  walletImported: {
    subject(app: string): string;
    body(app: string): string;
    advice: string;
  };
  grantCreated: {
    subject(app: string): string;
    body(app: string, until: string): string;
    advice: string;
  };
}

export const MAIL_TEXTS: Record<MailLocale, MailTexts> = {
  en: {
    protectedBy: "Protected by Latchkey",
    otp: {
      subject: (code, app) => `${code} is your ${app} sign-in code`,
      title: (app) => `Your ${app} sign-in code`,
      heading: "Your sign-in code",
      intro: (app) => `Enter this code to sign in to ${app}.`,
      plainIntro: (app, code) => `Your ${app} sign-in code is ${code}`,
      expiry: (ttl) =>
        `It expires in ${ttl} minutes and works once. If you did not try to sign in, you can ignore this email.`,
    },
    magicLink: {
      subject: (app) => `Sign in to ${app}`,
      heading: (app) => `Sign in to ${app}`,
      intro: "Click the button to finish signing in.",
      button: "Sign in",
      plainIntro: (app) => `Open this link to sign in to ${app}:`,
      expiry: (ttl) =>
        `It works in the browser where you asked for it and expires in ${ttl} minutes. If you did not try to sign in, you can ignore this email.`,
    },
    contactCode: {
      subject: (code, app) => `${code} is your ${app} verification code`,
      title: (app) => `Your ${app} verification code`,
      heading: "Confirm this address",
      intro: (app) => `Enter this code in ${app} to sign in with this address.`,
      plainIntro: (app, code) => `Your ${app} verification code is ${code}`,
      plainUse: "Enter it to use this address to sign in.",
      expiry: (ttl) =>
        `It expires in ${ttl} minutes and works once. If you did not ask for it, you can ignore this email.`,
    },
    emailChanged: {
      subjectChanged: (app) => `Your ${app} sign-in email was changed`,
      subjectRemoved: (app) => `Your ${app} sign-in email was removed`,
      title: (app) => `Your ${app} sign-in email`,
      heading: "Security notice",
      changedTo: (app, email) => `The email you sign in to ${app} with was changed to ${email}.`,
      removed: (app) => `Signing in to ${app} with this email was turned off.`,
      advice:
        "If this was not you, sign in another way and secure your account, or contact the app's support.",
    },
    walletExported: {
      subject: (app) => `Your ${app} wallet was exported`,
      body: (app) =>
        `Your ${app} wallet's recovery phrase was just shown on a device where you are signed in.`,
      advice:
        "Anyone who has the recovery phrase controls the wallet. If this was not you, move your funds to a new wallet and contact the app's support.",
    },
    walletImported: {
      subject: (app) => `A wallet was imported into your ${app} account`,
      body: (app) =>
        `A wallet was just imported into your ${app} account on a device where you are signed in. ${app} now uses the imported wallet; your earlier wallet is kept but no longer shown.`,
      advice:
        "If this was not you, someone signed in as you: secure your account and contact the app's support before you receive funds at the new address.",
    },
    grantCreated: {
      subject: (app) => `You let ${app} sign for you`,
      body: (app, until) =>
        `You just let ${app} sign for your account while you are away, within the limits you accepted, until ${until}. You can see and revoke it on ${app}'s account page.`,
      advice:
        "If this was not you, sign in to the app, revoke the permission and secure your account, or contact the app's support.",
    },
  },
  de: {
    protectedBy: "Geschützt durch Latchkey",
    otp: {
      subject: (code, app) => `${code} ist dein Anmeldecode für ${app}`,
      title: (app) => `Dein Anmeldecode für ${app}`,
      heading: "Dein Anmeldecode",
      intro: (app) => `Gib diesen Code ein, um dich bei ${app} anzumelden.`,
      plainIntro: (app, code) => `Dein Anmeldecode für ${app} lautet ${code}`,
      expiry: (ttl) =>
        `Er läuft in ${ttl} Minuten ab und funktioniert nur einmal. Wenn du dich nicht anmelden wolltest, kannst du diese E-Mail ignorieren.`,
    },
    magicLink: {
      subject: (app) => `Bei ${app} anmelden`,
      heading: (app) => `Bei ${app} anmelden`,
      intro: "Klicke auf die Schaltfläche, um die Anmeldung abzuschließen.",
      button: "Anmelden",
      plainIntro: (app) => `Öffne diesen Link, um dich bei ${app} anzumelden:`,
      expiry: (ttl) =>
        `Er funktioniert in dem Browser, in dem du ihn angefordert hast, und läuft in ${ttl} Minuten ab. Wenn du dich nicht anmelden wolltest, kannst du diese E-Mail ignorieren.`,
    },
    contactCode: {
      subject: (code, app) => `${code} ist dein Bestätigungscode für ${app}`,
      title: (app) => `Dein Bestätigungscode für ${app}`,
      heading: "Bestätige diese Adresse",
      intro: (app) => `Gib diesen Code in ${app} ein, um dich mit dieser Adresse anzumelden.`,
      plainIntro: (app, code) => `Dein Bestätigungscode für ${app} lautet ${code}`,
      plainUse: "Gib ihn ein, um dich mit dieser Adresse anzumelden.",
      expiry: (ttl) =>
        `Er läuft in ${ttl} Minuten ab und funktioniert nur einmal. Wenn du ihn nicht angefordert hast, kannst du diese E-Mail ignorieren.`,
    },
    emailChanged: {
      subjectChanged: (app) => `Deine Anmelde-E-Mail für ${app} wurde geändert`,
      subjectRemoved: (app) => `Deine Anmelde-E-Mail für ${app} wurde entfernt`,
      title: (app) => `Deine Anmelde-E-Mail für ${app}`,
      heading: "Sicherheitshinweis",
      changedTo: (app, email) =>
        `Die E-Mail-Adresse, mit der du dich bei ${app} anmeldest, wurde in ${email} geändert.`,
      removed: (app) => `Die Anmeldung bei ${app} mit dieser E-Mail-Adresse wurde deaktiviert.`,
      advice:
        "Wenn du das nicht warst, melde dich auf anderem Weg an und sichere dein Konto, oder wende dich an den Support der App.",
    },
    walletExported: {
      subject: (app) => `Deine ${app}-Wallet wurde exportiert`,
      body: (app) =>
        `Die Wiederherstellungsphrase deiner ${app}-Wallet wurde gerade auf einem Gerät angezeigt, auf dem du angemeldet bist.`,
      advice:
        "Wer die Wiederherstellungsphrase kennt, kontrolliert die Wallet. Wenn du das nicht warst, verschiebe dein Guthaben in eine neue Wallet und wende dich an den Support der App.",
    },
    walletImported: {
      subject: (app) => `In dein ${app}-Konto wurde eine Wallet importiert`,
      body: (app) =>
        `In dein ${app}-Konto wurde gerade auf einem Gerät, auf dem du angemeldet bist, eine Wallet importiert. ${app} verwendet jetzt die importierte Wallet; deine bisherige Wallet bleibt erhalten, wird aber nicht mehr angezeigt.`,
      advice:
        "Wenn du das nicht warst, hat sich jemand als du angemeldet: Sichere dein Konto und wende dich an den Support der App, bevor du Guthaben an die neue Adresse erhältst.",
    },
    grantCreated: {
      subject: (app) => `Du hast ${app} erlaubt, für dich zu signieren`,
      body: (app, until) =>
        `Du hast ${app} gerade erlaubt, bis ${until} in deiner Abwesenheit für dein Konto zu signieren, in den Grenzen, denen du zugestimmt hast. Auf der Kontoseite von ${app} kannst du die Berechtigung sehen und widerrufen.`,
      advice:
        "Wenn du das nicht warst, melde dich bei der App an, widerrufe die Berechtigung und sichere dein Konto, oder wende dich an den Support der App.",
    },
  },
  fr: {
    protectedBy: "Protégé par Latchkey",
    otp: {
      subject: (code, app) => `${code} est votre code de connexion ${app}`,
      title: (app) => `Votre code de connexion ${app}`,
      heading: "Votre code de connexion",
      intro: (app) => `Saisissez ce code pour vous connecter à ${app}.`,
      plainIntro: (app, code) => `Votre code de connexion ${app} est ${code}`,
      expiry: (ttl) =>
        `Il expire dans ${ttl} minutes et ne fonctionne qu’une fois. Si vous n’avez pas essayé de vous connecter, ignorez cet e-mail.`,
    },
    magicLink: {
      subject: (app) => `Connexion à ${app}`,
      heading: (app) => `Connexion à ${app}`,
      intro: "Cliquez sur le bouton pour terminer la connexion.",
      button: "Se connecter",
      plainIntro: (app) => `Ouvrez ce lien pour vous connecter à ${app} :`,
      expiry: (ttl) =>
        `Il fonctionne dans le navigateur où vous l’avez demandé et expire dans ${ttl} minutes. Si vous n’avez pas essayé de vous connecter, ignorez cet e-mail.`,
    },
    contactCode: {
      subject: (code, app) => `${code} est votre code de vérification ${app}`,
      title: (app) => `Votre code de vérification ${app}`,
      heading: "Confirmez cette adresse",
      intro: (app) => `Saisissez ce code dans ${app} pour vous connecter avec cette adresse.`,
      plainIntro: (app, code) => `Votre code de vérification ${app} est ${code}`,
      plainUse: "Saisissez-le pour vous connecter avec cette adresse.",
      expiry: (ttl) =>
        `Il expire dans ${ttl} minutes et ne fonctionne qu’une fois. Si vous ne l’avez pas demandé, ignorez cet e-mail.`,
    },
    emailChanged: {
      subjectChanged: (app) => `Votre e-mail de connexion ${app} a été modifié`,
      subjectRemoved: (app) => `Votre e-mail de connexion ${app} a été supprimé`,
      title: (app) => `Votre e-mail de connexion ${app}`,
      heading: "Avis de sécurité",
      changedTo: (app, email) =>
        `L’adresse e-mail avec laquelle vous vous connectez à ${app} a été remplacée par ${email}.`,
      removed: (app) => `La connexion à ${app} avec cette adresse e-mail a été désactivée.`,
      advice:
        "Si ce n’était pas vous, connectez-vous autrement et sécurisez votre compte, ou contactez l’assistance de l’application.",
    },
    walletExported: {
      subject: (app) => `Votre portefeuille ${app} a été exporté`,
      body: (app) =>
        `La phrase de récupération de votre portefeuille ${app} vient d’être affichée sur un appareil où vous êtes connecté.`,
      advice:
        "Quiconque possède la phrase de récupération contrôle le portefeuille. Si ce n’était pas vous, transférez vos fonds vers un nouveau portefeuille et contactez l’assistance de l’application.",
    },
    walletImported: {
      subject: (app) => `Un portefeuille a été importé dans votre compte ${app}`,
      body: (app) =>
        `Un portefeuille vient d’être importé dans votre compte ${app} sur un appareil où vous êtes connecté. ${app} utilise désormais le portefeuille importé ; votre portefeuille précédent est conservé mais n’est plus affiché.`,
      advice:
        "Si ce n’était pas vous, quelqu’un s’est connecté à votre place : sécurisez votre compte et contactez l’assistance de l’application avant de recevoir des fonds à la nouvelle adresse.",
    },
    grantCreated: {
      subject: (app) => `Vous avez autorisé ${app} à signer pour vous`,
      body: (app, until) =>
        `Vous venez d’autoriser ${app} à signer pour votre compte en votre absence, dans les limites que vous avez acceptées, jusqu’au ${until}. Vous pouvez voir et révoquer cette autorisation sur la page de compte de ${app}.`,
      advice:
        "Si ce n’était pas vous, connectez-vous à l’application, révoquez l’autorisation et sécurisez votre compte, ou contactez l’assistance de l’application.",
    },
  },
  es: {
    protectedBy: "Protegido por Latchkey",
    otp: {
      subject: (code, app) => `${code} es tu código de inicio de sesión de ${app}`,
      title: (app) => `Tu código de inicio de sesión de ${app}`,
      heading: "Tu código de inicio de sesión",
      intro: (app) => `Introduce este código para iniciar sesión en ${app}.`,
      plainIntro: (app, code) => `Tu código de inicio de sesión de ${app} es ${code}`,
      expiry: (ttl) =>
        `Caduca en ${ttl} minutos y solo funciona una vez. Si no intentaste iniciar sesión, puedes ignorar este correo.`,
    },
    magicLink: {
      subject: (app) => `Inicia sesión en ${app}`,
      heading: (app) => `Inicia sesión en ${app}`,
      intro: "Haz clic en el botón para terminar de iniciar sesión.",
      button: "Iniciar sesión",
      plainIntro: (app) => `Abre este enlace para iniciar sesión en ${app}:`,
      expiry: (ttl) =>
        `Funciona en el navegador donde lo pediste y caduca en ${ttl} minutos. Si no intentaste iniciar sesión, puedes ignorar este correo.`,
    },
    contactCode: {
      subject: (code, app) => `${code} es tu código de verificación de ${app}`,
      title: (app) => `Tu código de verificación de ${app}`,
      heading: "Confirma esta dirección",
      intro: (app) => `Introduce este código en ${app} para iniciar sesión con esta dirección.`,
      plainIntro: (app, code) => `Tu código de verificación de ${app} es ${code}`,
      plainUse: "Introdúcelo para iniciar sesión con esta dirección.",
      expiry: (ttl) =>
        `Caduca en ${ttl} minutos y solo funciona una vez. Si no lo pediste, puedes ignorar este correo.`,
    },
    emailChanged: {
      subjectChanged: (app) => `Se cambió tu correo de inicio de sesión de ${app}`,
      subjectRemoved: (app) => `Se eliminó tu correo de inicio de sesión de ${app}`,
      title: (app) => `Tu correo de inicio de sesión de ${app}`,
      heading: "Aviso de seguridad",
      changedTo: (app, email) => `El correo con el que inicias sesión en ${app} se cambió a ${email}.`,
      removed: (app) => `Se desactivó el inicio de sesión en ${app} con este correo.`,
      advice:
        "Si no fuiste tú, inicia sesión de otra forma y protege tu cuenta, o contacta con el soporte de la aplicación.",
    },
    walletExported: {
      subject: (app) => `Se exportó tu monedero de ${app}`,
      body: (app) =>
        `La frase de recuperación de tu monedero de ${app} se acaba de mostrar en un dispositivo donde has iniciado sesión.`,
      advice:
        "Quien tenga la frase de recuperación controla el monedero. Si no fuiste tú, mueve tus fondos a un monedero nuevo y contacta con el soporte de la aplicación.",
    },
    walletImported: {
      subject: (app) => `Se importó un monedero en tu cuenta de ${app}`,
      body: (app) =>
        `Se acaba de importar un monedero en tu cuenta de ${app} en un dispositivo donde has iniciado sesión. ${app} usa ahora el monedero importado; tu monedero anterior se conserva, pero ya no se muestra.`,
      advice:
        "Si no fuiste tú, alguien inició sesión en tu nombre: protege tu cuenta y contacta con el soporte de la aplicación antes de recibir fondos en la nueva dirección.",
    },
    grantCreated: {
      subject: (app) => `Permitiste que ${app} firme por ti`,
      body: (app, until) =>
        `Acabas de permitir que ${app} firme por tu cuenta en tu ausencia, dentro de los límites que aceptaste, hasta el ${until}. Puedes ver y revocar el permiso en la página de tu cuenta de ${app}.`,
      advice:
        "Si no fuiste tú, inicia sesión en la aplicación, revoca el permiso y protege tu cuenta, o contacta con el soporte de la aplicación.",
    },
  },
};
