import { type FrameChannel, openFrameChannel } from "../keyHolders/frameChannel";
import type { SignerBase } from "../signer/types";

/**
 * Opens one of the service's visible frame pages, `<service>/frames/<page>` (with the app's id, which
 * narrows its frame-ancestors), in `container`: the export and import frames. Internal to core.
 */
export function openServiceFrame(
  signer: SignerBase,
  args: { page: "export" | "import"; container: HTMLElement; iframeId: string; title: string },
): Promise<FrameChannel> {
  const { client, _internal } = signer;
  const frameUrl = new URL(`${client.baseUrl}/frames/${args.page}`);
  if (_internal.options.appId) frameUrl.searchParams.set("appId", _internal.options.appId);
  return openFrameChannel({
    frameUrl: frameUrl.toString(),
    container: args.container,
    iframeId: args.iframeId,
    title: args.title,
    name: `${args.page} frame`,
    hidden: false,
    timeoutMs: 15_000,
    answerTimeoutMs: 1_500,
  });
}
