import { keyManagementFeature } from "../keyManagement/routes";
import { authMethodsFeature } from "./authMethods/routes";
import type { Feature } from "./defineFeature";
import { devMailboxFeature } from "./devMailbox/routes";
import { emailFeature } from "./email/routes";
import { framesFeature } from "./frames/routes";
import { healthFeature } from "./health/routes";
import { mfaFeature } from "./mfa/routes";
import { oauthFeature } from "./oauth/routes";
import { openApiFeature } from "./openapi/routes";
import { sessionFeature } from "./session/routes";
import { signingFeature } from "./signing/routes";
import { siweFeature } from "./siwe/routes";
import { sponsorshipFeature } from "./sponsorship/routes";

/** Every feature the service serves, registered in this order: a new feature is a folder plus one line. */
export const features: readonly Feature[] = [
  healthFeature,
  sessionFeature,
  emailFeature,
  oauthFeature,
  mfaFeature,
  authMethodsFeature,
  signingFeature,
  keyManagementFeature,
  framesFeature,
  devMailboxFeature,
  openApiFeature,
  sponsorshipFeature,
  siweFeature,
];
