import type { ActivityType } from "@latchkey/protocol";
import type { ActivityHandler } from "../defineActivity";
import { createApiKeys } from "./createApiKeys";
import { createAuthenticators } from "./createAuthenticators";
import { createOauthProviders } from "./createOauthProviders";
import { createReadWriteSession } from "./createReadWriteSession";
import { deleteApiKeys } from "./deleteApiKeys";
import { deleteAuthenticators } from "./deleteAuthenticators";
import { deleteOauthProviders } from "./deleteOauthProviders";
import { signRawPayload } from "./signRawPayload";
import { signRawPayloads } from "./signRawPayloads";
import { updateUserEmail } from "./updateUserEmail";

/** Every activity the service runs: a new activity is a file here plus one line (and one in protocol's table). */
export const activities: { [T in ActivityType]: ActivityHandler<T, never> } = {
  [signRawPayload.type]: signRawPayload,
  [signRawPayloads.type]: signRawPayloads,
  [createReadWriteSession.type]: createReadWriteSession,
  [createApiKeys.type]: createApiKeys,
  [deleteApiKeys.type]: deleteApiKeys,
  [createAuthenticators.type]: createAuthenticators,
  [deleteAuthenticators.type]: deleteAuthenticators,
  [createOauthProviders.type]: createOauthProviders,
  [deleteOauthProviders.type]: deleteOauthProviders,
  [updateUserEmail.type]: updateUserEmail,
} as { [T in ActivityType]: ActivityHandler<T, never> };
