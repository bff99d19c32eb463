/// <reference types="vite/client" />

interface ImportMetaEnv {
  readonly VITE_LATCHKEY_URL?: string;
  readonly VITE_LATCHKEY_API_KEY?: string;
  readonly VITE_LATCHKEY_MAILBOX?: string;
}
