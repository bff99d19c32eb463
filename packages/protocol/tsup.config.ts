import { defineConfig } from "tsup";
import { modulesBuild } from "../../scripts/tsupBase";

export default defineConfig(
  modulesBuild({
    index: "src/index.ts",
    "crypto/index": "src/crypto/index.ts",
    "custody/index": "src/custody/index.ts",
    constants: "src/constants.ts",
    errors: "src/errors.ts",
    schemas: "src/schemas.ts",
    common: "src/common.ts",
    "signerApi/index": "src/signerApi/index.ts",
    "keyManagement/index": "src/keyManagement/index.ts",
    "frame/channel": "src/frame/channel.ts",
    wire: "src/wire.ts",
    codecs: "src/codecs.ts",
  }),
);
