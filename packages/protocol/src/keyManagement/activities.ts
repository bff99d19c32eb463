import { z } from "zod";
import {
  base64urlSchema,
  emailSchema,
  expirationSecondsSchema,
  idSchema,
  multilineTextSchema,
  orgIdSchema,
  p256PublicKeyHexSchema,
  textSchema,
  timestampMsSchema,
} from "../common";
import type { ActivityApprovals, SigningPreview } from "./previewTypes";
import { multiFactorProofSchema, stepUpProofFields } from "./stepUpProof";
import {
  importWalletParametersSchema,
  initImportWalletParametersSchema,
  publicAccountSchema,
} from "./walletImport";

export * from "./stepUpProof";
export * from "./walletImport";
export { publicAccountSchema };

/** Key-management activities (`POST /public/v1/submit/*`, DESIGN §3.3): parameters and the activity table. */
/**
 * How a payload is written. HEXADECIMAL and TEXT_UTF8 are bytes (a bare digest with HASH_FUNCTION_NO_OP);
 * the others are what the service hashes itself, so the app's signing policy reads what is signed:
 * EIP712 (the typed data as JSON: types, primaryType, domain, message; Turnkey's), EIP7702_AUTHORIZATION
 * (JSON `{chainId, address, nonce}`; Turnkey's) and EIP191_MESSAGE (ours: the message bytes as hex,
 * signed as personal_sign does). Those three take HASH_FUNCTION_NOT_APPLICABLE (or NO_OP).
 */
export const payloadEncodingSchema = z.enum([
  "PAYLOAD_ENCODING_HEXADECIMAL",
  "PAYLOAD_ENCODING_TEXT_UTF8",
  "PAYLOAD_ENCODING_EIP712",
  "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
  "PAYLOAD_ENCODING_EIP191_MESSAGE",
]);
export const hashFunctionSchema = z.enum([
  "HASH_FUNCTION_NO_OP",
  "HASH_FUNCTION_SHA256",
  "HASH_FUNCTION_KECCAK256",
  "HASH_FUNCTION_NOT_APPLICABLE",
]);
export type PayloadEncoding = z.infer<typeof payloadEncodingSchema>;
export type HashFunction = z.infer<typeof hashFunctionSchema>;

// A payload is hex or, with PAYLOAD_ENCODING_TEXT_UTF8, a message that may span lines.
const payloadSchema = multilineTextSchema(16 * 1024);

const b64url = base64urlSchema;
const TRANSPORTS: Record<string, string> = {
  AUTHENTICATOR_TRANSPORT_BLE: "ble",
  AUTHENTICATOR_TRANSPORT_INTERNAL: "internal",
  AUTHENTICATOR_TRANSPORT_NFC: "nfc",
  AUTHENTICATOR_TRANSPORT_USB: "usb",
  AUTHENTICATOR_TRANSPORT_HYBRID: "hybrid",
};
/** Transports as WebAuthn names them; the `AUTHENTICATOR_TRANSPORT_*` spelling is accepted too. */
export const transportSchema = z
  .string()
  .max(64)
  .transform((t) => TRANSPORTS[t] ?? t.toLowerCase())
  .pipe(z.enum(["ble", "internal", "nfc", "usb", "hybrid", "cable", "smart-card"]));

export const passkeyAttestationSchema = z.object({
  credentialId: b64url.max(1024),
  clientDataJson: b64url.max(8192),
  attestationObject: b64url.max(16384),
  transports: z.array(transportSchema).max(8).default([]),
});
export const passkeyRegistrationSchema = z.object({
  /** base64url of the 32 random bytes the client used as the WebAuthn challenge. */
  challenge: b64url.min(16).max(256),
  attestation: passkeyAttestationSchema,
});

export const signRawPayloadParametersSchema = z.object({
  signWith: idSchema(128),
  payload: payloadSchema,
  encoding: payloadEncodingSchema,
  hashFunction: hashFunctionSchema,
});
export const signRawPayloadsParametersSchema = z.object({
  signWith: idSchema(128),
  payloads: z.array(payloadSchema).min(1).max(64),
  encoding: payloadEncodingSchema,
  hashFunction: hashFunctionSchema,
});
export const createReadWriteSessionParametersSchema = z.object({
  targetPublicKey: p256PublicKeyHexSchema,
  userId: textSchema(128).optional(),
  apiKeyName: textSchema(256).optional(),
  expirationSeconds: expirationSecondsSchema.optional(),
  invalidateExisting: z.boolean().optional(),
});

/** `create_api_keys`: long-lived keys of the user; needs a step-up proof (`stepUpProofFields`). */
export const createApiKeysParametersSchema = z.object({
  userId: idSchema(128),
  apiKeys: z
    .array(
      z.object({
        apiKeyName: idSchema(256),
        publicKey: p256PublicKeyHexSchema,
        curveType: z.literal("API_KEY_CURVE_P256").optional(),
        expirationSeconds: expirationSecondsSchema.optional(),
      }),
    )
    .min(1)
    .max(10),
  ...stepUpProofFields,
});
export const deleteApiKeysParametersSchema = z.object({
  userId: idSchema(128),
  apiKeyIds: z.array(idSchema(128)).min(1).max(100),
});

/** `create_authenticators`: adds passkeys; needs a step-up proof (`stepUpProofFields`). */
export const createAuthenticatorsParametersSchema = z.object({
  userId: idSchema(128),
  authenticators: z
    .array(passkeyRegistrationSchema.extend({ authenticatorName: idSchema(256) }))
    .min(1)
    .max(5),
  ...stepUpProofFields,
});
/** `delete_authenticators`: removes passkeys; needs a step-up proof (`stepUpProofFields`). */
export const deleteAuthenticatorsParametersSchema = z.object({
  userId: idSchema(128),
  authenticatorIds: z.array(idSchema(128)).min(1).max(20),
  ...stepUpProofFields,
});
/** `create_oauth_providers`: links social sign-ins; needs a step-up proof (`stepUpProofFields`). */
export const createOauthProvidersParametersSchema = z.object({
  userId: idSchema(128),
  oauthProviders: z
    .array(
      z.object({
        providerName: idSchema(64),
        oidcToken: idSchema(16_384).pipe(z.string().min(16)),
        /**
         * The browser's target public key (P-256, hex). Required for an ID token fetched
         * while signed in (FETCHED_ID_TOKEN_ONLY): its nonce must be this key's hash, so a token fetched
         * in one browser cannot be attached to an account in another.
         */
        targetPublicKey: p256PublicKeyHexSchema.optional(),
      }),
    )
    .min(1)
    .max(5),
  ...stepUpProofFields,
});
/** `delete_oauth_providers`: unlinks social sign-ins; needs a step-up proof (`stepUpProofFields`). */
export const deleteOauthProvidersParametersSchema = z.object({
  userId: idSchema(128),
  providerIds: z.array(idSchema(128)).min(1).max(20),
  ...stepUpProofFields,
});

/**
 * `update_user_email`: sets the user's email sign-in to `userEmail`, proven by a `verificationToken` from
 * `/v1/verify-otp` for that address; an empty `userEmail` removes email sign-in (never the last method).
 * A change also needs a step-up proof of the account as it is: `currentEmailVerificationToken` (a code
 * mailed to the current email, verified within `STEP_UP_MAX_AGE_MS`), a `multiFactor` code, a passkey
 * stamp, or a session from a fresh sign-in. The new address's token proves only the new address.
 */
export const updateUserEmailParametersSchema = z.object({
  userId: idSchema(128),
  userEmail: z.union([z.literal(""), emailSchema]),
  verificationToken: textSchema(4096).optional(),
  currentEmailVerificationToken: textSchema(4096).optional(),
  multiFactor: multiFactorProofSchema.optional(),
});

/**
 * `export_wallet`: the wallet's mnemonic sealed to `targetPublicKey` (the export frame's key) in an export
 * bundle (DESIGN §3.4). Needs a fresh sign-in (step-up): the request is passkey-stamped, or carries a
 * `verificationToken` (`/v1/init-otp` → `/v1/verify-otp` for the user's own email, verified within
 * `STEP_UP_MAX_AGE_MS`, spent here), or a `multiFactor` code of the user's authenticator app, or the
 * stamping session came from a sign-in by email, passkey or authenticator app within that time.
 */
export const exportWalletParametersSchema = z.object({
  walletId: idSchema(128),
  targetPublicKey: p256PublicKeyHexSchema,
  ...stepUpProofFields,
});

/** What `export_wallet` answers (`exportWalletResult`). */
export interface ExportWalletResult {
  walletId: string;
  /** JSON of {@link ExportBundle}. */
  exportBundle: string;
}

/**
 * `sign_transaction`: an unsigned serialized EVM transaction (hex; legacy, EIP-2930, EIP-1559, EIP-4844
 * without sidecars, EIP-7702). The service reads it, checks it against the app's signing policy, and
 * answers it signed (`signTransactionResult.signedTransaction`), or records the activity REJECTED or
 * CONSENSUS_NEEDED.
 */
export const signTransactionParametersSchema = z.object({
  signWith: idSchema(128),
  unsignedTransaction: z
    .string()
    .max(60_000)
    .regex(/^(0x)?([0-9a-fA-F]{2})+$/, "must be the hex of an unsigned serialized transaction"),
  type: z.literal("TRANSACTION_TYPE_ETHEREUM"),
});

/** What `sign_transaction` answers (`signTransactionResult`): the signed serialized transaction, 0x hex. */
export interface SignTransactionResult {
  signedTransaction: `0x${string}`;
}

/**
 * `approve_activity` / `reject_activity`: an app admin's decision on an activity its signing policy holds
 * in CONSENSUS_NEEDED, named by its id or its fingerprint (exactly one). Stamped by one of the app's
 * `signingPolicy.adminKeys`, and addressed to the app's organisation.
 */
export const activityDecisionParametersSchema = z
  .object({
    activityId: idSchema(128).optional(),
    fingerprint: z
      .string()
      .regex(/^[0-9a-f]{64}$/, "must be an activity's fingerprint: 64 lower-case hex digits")
      .optional(),
  })
  .strict()
  .refine((p) => (p.activityId === undefined) !== (p.fingerprint === undefined), {
    message: "name the activity by exactly one of activityId or fingerprint",
  });

/**
 * `complete_activity` (split custody, docs/split-custody.md §7): the user's own held signature, approved
 * by an app admin, made now with the user share this request carries (sealed to this body).
 */
export const completeActivityParametersSchema = z
  .object({
    activityId: idSchema(128),
    /**
     * The account the held activity signs with, as its intent names it: the device's key holder picks that
     * wallet's share by it (a user with an imported wallet holds one share per wallet). The service checks
     * that it is the held activity's own.
     */
    signWith: z.string().min(1).max(128).optional(),
  })
  .strict();

/** What `approve_activity` and `reject_activity` answer: the decided activity's id and its new status. */
export interface ActivityDecisionResult {
  activityId: string;
  status: ActivityStatus;
}

/**
 * `create_split_wallet` (split custody, docs/split-custody.md §3): the wallet the user's key holder made.
 * `serviceShare` is the service's share sealed to the share key for this organisation
 * (`sealServiceShare`); the request's user share (`X-User-Share` / `stampedRequest.userShare`) is needed
 * too: the service combines them once, derives the accounts from the entropy itself and requires they
 * equal `accounts`, keeps the service share sealed and the public rows, and wipes the rest.
 */
export const createSplitWalletParametersSchema = z.object({
  serviceShare: base64urlSchema.min(80).max(4096),
  accounts: z.array(publicAccountSchema).min(1).max(16),
});

/** What `create_split_wallet` answers (`createSplitWalletResult`). */
export interface CreateSplitWalletResult {
  walletId: string;
  /** The accounts' addresses, in the order given. */
  addresses: string[];
}

/**
 * `begin_split_wallet` (split custody, docs/split-custody.md §3.1): the first phase of moving a whole
 * wallet (one the service holds sealed) to split custody. The service splits the wallet secret, keeps its
 * share as *pending* and answers the user share sealed to `targetPublicKey` (the key holder's ephemeral
 * key); the whole copy stays until `complete_split_wallet`. Step-up as for export, except that any
 * session signed in within the window counts (the conversion runs right after a sign-in).
 */
export const beginSplitWalletParametersSchema = z.object({
  walletId: idSchema(128),
  targetPublicKey: p256PublicKeyHexSchema,
  ...stepUpProofFields,
});

/** What `begin_split_wallet` answers (`beginSplitWalletResult`). */
export interface BeginSplitWalletResult {
  walletId: string;
  /** The user share, HPKE-sealed to the request's `targetPublicKey` for this wallet (`sealSplitShare`). */
  userShare: string;
}

/**
 * `complete_split_wallet` (split custody, docs/split-custody.md §3.1): the second phase. The request
 * carries the user share from `begin_split_wallet` (`X-User-Share`, bound to this body); when it combines
 * with the pending service share to every account's key, the service keeps its share, destroys the
 * whole sealed copy and marks the wallet split, in one transaction.
 */
export const completeSplitWalletParametersSchema = z.object({
  walletId: idSchema(128),
});

/** What `complete_split_wallet` answers (`completeSplitWalletResult`). */
export interface CompleteSplitWalletResult {
  walletId: string;
  /** The wallet's addresses, unchanged. */
  addresses: string[];
}

/** A recovery blob as stored (`RecoveryBlob` of protocol/custody): encrypted under a key only the user has. */
export const recoveryBlobSchema = z.object({
  v: z.literal(1),
  salt: base64urlSchema.min(16).max(64),
  iv: base64urlSchema.min(12).max(64),
  ciphertext: base64urlSchema.min(16).max(4096),
});

/**
 * `set_recovery_share` (split custody, docs/split-custody.md §4): stores (or replaces) the user's share
 * encrypted under a passkey's PRF output (`kind: "passkey"`, with its `credentialId`) or a recovery
 * code (`kind: "code"`). One blob per (wallet, kind, credentialId). The service cannot open it.
 */
export const setRecoveryShareParametersSchema = z
  .object({
    walletId: idSchema(128),
    kind: z.enum(["passkey", "code"]),
    credentialId: base64urlSchema.min(1).max(1024).optional(),
    blob: recoveryBlobSchema,
  })
  .refine((p) => (p.kind === "passkey") === (p.credentialId !== undefined), {
    message: "a passkey's recovery share names its credentialId; a code's names none",
    path: ["credentialId"],
  });

/** What `set_recovery_share` answers (`setRecoveryShareResult`). */
export interface SetRecoveryShareResult {
  walletId: string;
  kind: "passkey" | "code";
}

/**
 * Every activity served: its submit path, the names of its intent and result in the activity record,
 * and its parameters. The one table the server's handlers and the client's calls are typed from.
 */
export const activityTypes = {
  ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2: {
    path: "sign_raw_payload",
    intent: "signRawPayloadIntentV2",
    result: "signRawPayloadResult",
    parameters: signRawPayloadParametersSchema,
  },
  ACTIVITY_TYPE_SIGN_RAW_PAYLOADS: {
    path: "sign_raw_payloads",
    intent: "signRawPayloadsIntent",
    result: "signRawPayloadsResult",
    parameters: signRawPayloadsParametersSchema,
  },
  ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2: {
    path: "create_read_write_session",
    intent: "createReadWriteSessionIntentV2",
    result: "createReadWriteSessionResultV2",
    parameters: createReadWriteSessionParametersSchema,
  },
  ACTIVITY_TYPE_CREATE_API_KEYS_V2: {
    path: "create_api_keys",
    intent: "createApiKeysIntentV2",
    result: "createApiKeysResult",
    parameters: createApiKeysParametersSchema,
  },
  ACTIVITY_TYPE_DELETE_API_KEYS: {
    path: "delete_api_keys",
    intent: "deleteApiKeysIntent",
    result: "deleteApiKeysResult",
    parameters: deleteApiKeysParametersSchema,
  },
  ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2: {
    path: "create_authenticators",
    intent: "createAuthenticatorsIntentV2",
    result: "createAuthenticatorsResult",
    parameters: createAuthenticatorsParametersSchema,
  },
  ACTIVITY_TYPE_DELETE_AUTHENTICATORS: {
    path: "delete_authenticators",
    intent: "deleteAuthenticatorsIntent",
    result: "deleteAuthenticatorsResult",
    parameters: deleteAuthenticatorsParametersSchema,
  },
  ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS: {
    path: "create_oauth_providers",
    intent: "createOauthProvidersIntent",
    result: "createOauthProvidersResult",
    parameters: createOauthProvidersParametersSchema,
  },
  ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS: {
    path: "delete_oauth_providers",
    intent: "deleteOauthProvidersIntent",
    result: "deleteOauthProvidersResult",
    parameters: deleteOauthProvidersParametersSchema,
  },
  ACTIVITY_TYPE_UPDATE_USER_EMAIL: {
    path: "update_user_email",
    intent: "updateUserEmailIntent",
    result: "updateUserEmailResult",
    parameters: updateUserEmailParametersSchema,
  },
  ACTIVITY_TYPE_EXPORT_WALLET: {
    path: "export_wallet",
    intent: "exportWalletIntent",
    result: "exportWalletResult",
    parameters: exportWalletParametersSchema,
  },
  ACTIVITY_TYPE_INIT_IMPORT_WALLET: {
    path: "init_import_wallet",
    intent: "initImportWalletIntent",
    result: "initImportWalletResult",
    parameters: initImportWalletParametersSchema,
  },
  ACTIVITY_TYPE_IMPORT_WALLET: {
    path: "import_wallet",
    intent: "importWalletIntent",
    result: "importWalletResult",
    parameters: importWalletParametersSchema,
  },
  ACTIVITY_TYPE_SIGN_TRANSACTION_V2: {
    path: "sign_transaction",
    intent: "signTransactionIntentV2",
    result: "signTransactionResult",
    parameters: signTransactionParametersSchema,
  },
  ACTIVITY_TYPE_CREATE_SPLIT_WALLET: {
    path: "create_split_wallet",
    intent: "createSplitWalletIntent",
    result: "createSplitWalletResult",
    parameters: createSplitWalletParametersSchema,
  },
  ACTIVITY_TYPE_BEGIN_SPLIT_WALLET: {
    path: "begin_split_wallet",
    intent: "beginSplitWalletIntent",
    result: "beginSplitWalletResult",
    parameters: beginSplitWalletParametersSchema,
  },
  ACTIVITY_TYPE_COMPLETE_SPLIT_WALLET: {
    path: "complete_split_wallet",
    intent: "completeSplitWalletIntent",
    result: "completeSplitWalletResult",
    parameters: completeSplitWalletParametersSchema,
  },
  ACTIVITY_TYPE_SET_RECOVERY_SHARE: {
    path: "set_recovery_share",
    intent: "setRecoveryShareIntent",
    result: "setRecoveryShareResult",
    parameters: setRecoveryShareParametersSchema,
  },
  ACTIVITY_TYPE_APPROVE_ACTIVITY: {
    path: "approve_activity",
    intent: "approveActivityIntent",
    result: "approveActivityResult",
    parameters: activityDecisionParametersSchema,
  },
  ACTIVITY_TYPE_REJECT_ACTIVITY: {
    path: "reject_activity",
    intent: "rejectActivityIntent",
    result: "rejectActivityResult",
    parameters: activityDecisionParametersSchema,
  },
  ACTIVITY_TYPE_COMPLETE_ACTIVITY: {
    path: "complete_activity",
    intent: "completeActivityIntent",
    result: "completeActivityResult",
    parameters: completeActivityParametersSchema,
  },
} as const;
export type ActivityType = keyof typeof activityTypes;
export type ActivityParameters<T extends ActivityType> = z.output<(typeof activityTypes)[T]["parameters"]>;

/** Parameters by activity type (kept for callers of the earlier table). */
export const activityParameterSchemas = Object.fromEntries(
  Object.entries(activityTypes).map(([type, a]) => [type, a.parameters]),
) as { [T in ActivityType]: (typeof activityTypes)[T]["parameters"] };

/** The activity types each submit path serves. */
export const submitPathActivityTypes: Record<string, readonly ActivityType[]> = Object.fromEntries(
  Object.entries(activityTypes).map(([type, a]) => [a.path, [type as ActivityType]]),
);

/** A submit body: what the stamp signs (DESIGN §3.3). */
export const submitEnvelopeSchema = z.object({
  type: idSchema(128),
  timestampMs: timestampMsSchema,
  organizationId: orgIdSchema,
  parameters: z.record(z.string(), z.unknown()),
});
export type SubmitEnvelope = z.infer<typeof submitEnvelopeSchema>;

export type ActivityStatus =
  | "ACTIVITY_STATUS_CREATED"
  | "ACTIVITY_STATUS_PENDING"
  | "ACTIVITY_STATUS_COMPLETED"
  | "ACTIVITY_STATUS_FAILED"
  | "ACTIVITY_STATUS_REJECTED"
  | "ACTIVITY_STATUS_CONSENSUS_NEEDED";

/** A key-management activity as the service reports it: id, type, status and result. */
export interface Activity {
  id: string;
  organizationId: string;
  status: ActivityStatus;
  type: string;
  intent: Record<string, unknown>;
  result: Record<string, unknown>;
  fingerprint: string;
  createdAt: { seconds: string; nanos: string };
  updatedAt: { seconds: string; nanos: string };
  failure?: { code: string; message: string };
  /**
   * Split custody (docs/split-custody.md §7): a held signature of a split wallet an app admin approved.
   * It stays CONSENSUS_NEEDED until the user's key holder completes it (`complete_activity`) before
   * `expiresAt`.
   */
  approval?: ActivityApproval;
  /**
   * A signature the app's policy held (CONSENSUS_NEEDED, and after its decision): what it does, its
   * simulation and the rule that held it, as read when it was asked (preview.ts).
   */
  preview?: SigningPreview;
  /** A held signature: how many admins must approve it (`approvals.required`) and who did. */
  approvals?: ActivityApprovals;
}

/** An app admin's approval of a split wallet's held signature, waiting for the user's device. */
export interface ActivityApproval {
  /** The admin key's name. */
  approvedBy: string;
  approvedAt: { seconds: string; nanos: string };
  expiresAt: { seconds: string; nanos: string };
}

/** What `complete_activity` answers: the held activity's id and its result (e.g. `signRawPayloadResult`). */
export interface CompleteActivityResult {
  activityId: string;
  result: Record<string, unknown>;
}

export interface SignRawPayloadResult {
  r: string;
  s: string;
  v: string;
}
