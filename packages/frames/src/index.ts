export {
  ALLOWED_ORIGINS_META,
  FRAME_INIT_MESSAGE,
  FRAME_READY_MESSAGE,
  type FrameMethod,
  type FrameRequest,
  type FrameResponse,
} from "@latchkey/protocol/frame";
