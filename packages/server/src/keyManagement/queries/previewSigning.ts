import { ErrorCode } from "@latchkey/protocol";
import { apiError } from "../../errors";
import { defineQuery } from "./defineQuery";

/** `preview_signing`: what a signature would do (decoded, simulated, asked of the policy). */
export const previewSigning = defineQuery({
  name: "preview_signing",
  async run() {
    throw apiError(ErrorCode.INVALID_REQUEST, "preview_signing is not served yet");
  },
});
