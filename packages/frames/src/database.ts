/**
 * The IndexedDB database of the auth frame's keys for the pages on `parentOrigin`: the export frame reads
 * the user shares of split-custody wallets from it (same origin, same storage partition).
 */
export const authFrameDatabase = (parentOrigin: string) => `latchkey-auth-frame ${parentOrigin}`;
