import type { ActivityType } from "@latchkey/protocol";
import type { ActivityHandler } from "../defineActivity";
import { approveActivity } from "./approveActivity";
import { beginSplitWallet } from "./beginSplitWallet";
import { completeActivity } from "./completeActivity";
import { completeSplitWallet } from "./completeSplitWallet";
import { createApiKeys } from "./createApiKeys";
import { createAuthenticators } from "./createAuthenticators";
import { createOauthProviders } from "./createOauthProviders";
import { createReadWriteSession } from "./createReadWriteSession";
import { createSplitWallet } from "./createSplitWallet";
import { deleteApiKeys } from "./deleteApiKeys";
import { deleteAuthenticators } from "./deleteAuthenticators";
import { deleteOauthProviders } from "./deleteOauthProviders";
import { exportWallet } from "./exportWallet";
import { importWallet } from "./importWallet";
import { initImportWallet } from "./initImportWallet";
import { rejectActivity } from "./rejectActivity";
import { setRecoveryShare } from "./setRecoveryShare";
import { signRawPayload } from "./signRawPayload";
import { signRawPayloads } from "./signRawPayloads";
import { signTransaction } from "./signTransaction";
import { updateUserEmail } from "./updateUserEmail";

/** Every activity the service runs: a new activity is a file here plus one line (and one in protocol's table). */
export const activities: { [T in ActivityType]: ActivityHandler<T, never> } = {
  [signRawPayload.type]: signRawPayload,
  [signRawPayloads.type]: signRawPayloads,
  [signTransaction.type]: signTransaction,
  [approveActivity.type]: approveActivity,
  [rejectActivity.type]: rejectActivity,
  [completeActivity.type]: completeActivity,
  [createReadWriteSession.type]: createReadWriteSession,
  [createApiKeys.type]: createApiKeys,
  [deleteApiKeys.type]: deleteApiKeys,
  [createAuthenticators.type]: createAuthenticators,
  [deleteAuthenticators.type]: deleteAuthenticators,
  [createOauthProviders.type]: createOauthProviders,
  [deleteOauthProviders.type]: deleteOauthProviders,
  [updateUserEmail.type]: updateUserEmail,
  [exportWallet.type]: exportWallet,
  [initImportWallet.type]: initImportWallet,
  [importWallet.type]: importWallet,
  [createSplitWallet.type]: createSplitWallet,
  [setRecoveryShare.type]: setRecoveryShare,
  [beginSplitWallet.type]: beginSplitWallet,
  [completeSplitWallet.type]: completeSplitWallet,
} as { [T in ActivityType]: ActivityHandler<T, never> };
