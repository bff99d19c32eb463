import { keyManagementFeature } from "../keyManagement/routes";
import { adminFeature } from "./admin/routes";
import { authMethodsFeature } from "./authMethods/routes";
import { confirmationFeature } from "./confirmation/routes";
import { custodyFeature } from "./custody/routes";
import type { Feature } from "./defineFeature";
import { emailFeature } from "./email/routes";
import { framesFeature } from "./frames/routes";
import { grantsFeature } from "./grants/routes";
import { healthFeature } from "./health/routes";
import { mfaFeature } from "./mfa/routes";
import { oauthFeature } from "./oauth/routes";
import { openApiFeature } from "./openapi/routes";
import { passkeysFeature } from "./passkeys/routes";
import { sessionFeature } from "./session/routes";
import { signingFeature } from "./signing/routes";
import { siweFeature } from "./siwe/routes";
import { sponsorshipFeature } from "./sponsorship/routes";
import { userImportFeature } from "./userImport/routes";

/**
 * Every feature the service serves, registered in this order: a new feature is a folder plus one line.
 * Dev mode adds its own (the dev mailbox) from the dev entry, `dev/index.ts`.
 */
export const features: readonly Feature[] = [
  healthFeature,
  sessionFeature,
  emailFeature,
  passkeysFeature,
  oauthFeature,
  mfaFeature,
  authMethodsFeature,
  signingFeature,
  keyManagementFeature,
  framesFeature,
  openApiFeature,
  sponsorshipFeature,
  siweFeature,
  adminFeature,
  userImportFeature,
  grantsFeature,
  custodyFeature,
  confirmationFeature,
];
