/** Sent in the SDK version header (`SDK_VERSION_HEADER`) of every request. */
export const SDK_VERSION = "@latchkey/core@0.1.0";
