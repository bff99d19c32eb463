import { createMemoryKeyHolder, type KeyHolder, signRawMessage } from "@latchkey/core";
import { keccak256, recoverAddress, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// A split app's new user by email code (docs/split-custody.md §3): the wallet rides on the code's sign-in.
// When the service refuses that wallet (here: sealed for another code, so it does not open), the code is
// not spent: core signs in again without it, and the wallet is made after the sign-in (create_split_wallet)
// as for every other way of signing in. The holder never keeps the refused wallet's share.
let svc: TestService;
beforeAll(async () => {
  svc = await startService({ devCustody: "split" });
});
afterAll(async () => {
  await svc?.close();
});

const activityTypes = async (userId: string) =>
  (
    await svc.service.ctx.db.selectFrom("activities").select("type").where("user_id", "=", userId).execute()
  ).map((a) => a.type);

describe("a split wallet carried by the code's sign-in, from Node", () => {
  it("a wallet the service refuses: signed in without it, the wallet made after, the refused share never kept", async () => {
    const kept: Uint8Array[] = [];
    const inner = createMemoryKeyHolder({
      onUserShare: (_org, share) => {
        kept.push(share.slice());
      },
    });
    const custody = inner.custody;
    if (!custody?.prepareSignInWallet) throw new Error("the memory holder makes sign-in wallets");
    const prepare = custody.prepareSignInWallet.bind(custody);
    let refusedAddress = "";
    // The holder seals the wallet for another code: the service cannot open it for this sign-in.
    const keyHolder: KeyHolder = {
      ...inner,
      custody: {
        ...custody,
        async prepareSignInWallet(args) {
          const made = await prepare({ ...args, otpId: `${args.otpId}-other` });
          refusedAddress = made.accounts[0]?.address ?? "";
          return made;
        },
      },
    };
    const signer = await signInWithOtp(svc, "refused-wallet@example.com", { keyHolder });
    expect(signer.user?.custody).toBe("split");
    expect(signer.walletAccess).toBe("ready");
    const address = signer.user?.address as `0x${string}`;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(refusedAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(address).not.toBe(refusedAddress);
    // Made after the sign-in, by create_split_wallet; one share kept, the one that signs.
    expect(await activityTypes(signer.user?.userId ?? "")).toContain("ACTIVITY_TYPE_CREATE_SPLIT_WALLET");
    expect(kept).toHaveLength(1);
    const digest = keccak256(toHex("after a refused sign-in wallet"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(signer, { message: digest }) }),
    ).toBe(address);
  });

  it("a wallet the service records: one request, no create_split_wallet, the share kept once", async () => {
    const kept: Uint8Array[] = [];
    const signer = await signInWithOtp(svc, "one-request@example.com", {
      keyHolder: createMemoryKeyHolder({
        onUserShare: (_org, share) => {
          kept.push(share.slice());
        },
      }),
    });
    expect(signer.walletAccess).toBe("ready");
    expect(await activityTypes(signer.user?.userId ?? "")).not.toContain("ACTIVITY_TYPE_CREATE_SPLIT_WALLET");
    expect(kept).toHaveLength(1);
    const address = signer.user?.address as `0x${string}`;
    const digest = keccak256(toHex("one request"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(signer, { message: digest }) }),
    ).toBe(address);
  });
});
