import { sealSplitShare } from "@latchkey/protocol/custody";
import { describe, expect, it } from "vitest";
import { createShareHolder, memoryUserShares } from "./userShares";

// Moving a whole wallet to split custody (docs/split-custody.md §3.1), the key holder's part.
describe("a whole wallet's split, in the key holder", () => {
  const begin = (organizationId: string, targetPublicKey: string) =>
    JSON.stringify({
      type: "ACTIVITY_TYPE_BEGIN_SPLIT_WALLET",
      organizationId,
      parameters: { walletId: "w-1", targetPublicKey },
    });

  it("keeps the share sealed to its own ephemeral key, for that wallet, and then forgets the key", async () => {
    const stored = memoryUserShares();
    const holder = createShareHolder(stored);
    const { targetPublicKey } = await holder.beginSplit({ organizationId: "org-1" });
    expect(targetPublicKey).toMatch(/^04[0-9a-f]{128}$/);
    const userShare = new Uint8Array([7, 7, 7, 7]);
    const other = await sealSplitShare({ userShare, targetPublicKey, walletId: "w-2" });
    await expect(
      holder.acceptSplitShare({ organizationId: "org-1", walletId: "w-1", userShare: other }),
    ).rejects.toMatchObject({ name: "UserShareError" });
    expect(await stored.get("org-1")).toBeNull();
    const sealed = await sealSplitShare({ userShare, targetPublicKey, walletId: "w-1" });
    await holder.acceptSplitShare({ organizationId: "org-1", walletId: "w-1", userShare: sealed });
    expect(await stored.get("org-1")).toEqual(userShare);
    // Once: the ephemeral key is gone.
    await expect(
      holder.acceptSplitShare({ organizationId: "org-1", walletId: "w-1", userShare: sealed }),
    ).rejects.toMatchObject({ name: "UserShareError" });
  });

  it("stamps a begin_split_wallet only with its own key as the target; other bodies as ever", async () => {
    const holder = createShareHolder(memoryUserShares());
    const { targetPublicKey } = await holder.beginSplit({ organizationId: "org-1" });
    const elsewhere = (await createShareHolder(memoryUserShares()).beginSplit({ organizationId: "org-1" }))
      .targetPublicKey;
    expect(holder.mayStamp(begin("org-1", targetPublicKey))).toBe(true);
    expect(holder.mayStamp(begin("org-1", elsewhere))).toBe(false);
    expect(holder.mayStamp(begin("org-2", targetPublicKey))).toBe(false);
    expect(holder.mayStamp(JSON.stringify({ type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2" }))).toBe(true);
  });
});
