import {
  createMemoryKeyHolder,
  type KeyHolder,
  type Signer,
  signRawMessage,
  toViemAccount,
} from "@latchkey/core";
import { keccak256, recoverAddress, toHex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// Moving a whole wallet to split custody (docs/split-custody.md §3.1) against the real service: a user of
// a service app that moves to split signs in again, and the memory key holder splits the wallet before
// the session is connected: same address, the service keeps only its share, every signature carries
// the user's.
let svc: TestService;
const email = "moving@example.com";
const interrupted = "interrupted@example.com";

beforeAll(async () => {
  svc = await startService({ devCustody: "service" });
});
afterAll(async () => {
  await svc?.close();
});

const wallets = (orgId: string) =>
  svc.service.ctx.db
    .selectFrom("wallets")
    .select(["id", "custody", "sealed_mnemonic", "sealed_service_share", "sealed_pending_share"])
    .where("org_id", "=", orgId)
    .execute();

describe("a whole wallet moved to split custody, from Node", () => {
  let address: `0x${string}`;
  let converted: Signer;
  const kept: Record<string, Uint8Array> = {};

  it("a service app's user has a whole wallet", async () => {
    const before = await signInWithOtp(svc, email);
    expect(before.walletAccess).toBe("service");
    expect(before.user?.custody).toBeUndefined();
    address = before.user?.address as `0x${string}`;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const [wallet] = await wallets(before.user?.orgId as string);
    expect(wallet?.custody).toBe("service");
    expect(wallet?.sealed_mnemonic).not.toBe("");
    expect((await signInWithOtp(svc, interrupted)).walletAccess).toBe("service");
  });

  it("after the app moves to split, the next sign-in splits the wallet before it is connected", async () => {
    // The operator's config change (`custody: "split"`), as the service applies it at its start.
    await svc.service.ctx.db.updateTable("apps").set({ custody: "split" }).execute();
    svc.service.ctx.apps.invalidate();
    converted = await signInWithOtp(svc, email, {
      keyHolder: createMemoryKeyHolder({
        onUserShare: (organizationId, share) => {
          kept[organizationId] = share;
        },
      }),
    });
    expect(converted.user?.address).toBe(address);
    expect(converted.user?.custody).toBe("split");
    expect(converted.walletAccess).toBe("ready");
    // No recovery factor yet: the modal offers "Protect your wallet", as for a new split wallet.
    expect(converted.getState().recovery).toEqual([]);
    const orgId = converted.user?.orgId as string;
    expect(Object.keys(kept)).toEqual([orgId]);
    const [wallet] = await wallets(orgId);
    expect(wallet).toMatchObject({ custody: "split", sealed_mnemonic: "" });
    expect(wallet?.sealed_service_share).toEqual(expect.any(String));
    const keys = await svc.service.ctx.db
      .selectFrom("wallet_accounts")
      .select("sealed_private_key")
      .where("org_id", "=", orgId)
      .execute();
    expect(keys.map((k) => k.sealed_private_key)).toEqual(keys.map(() => ""));

    const signature = await toViemAccount(converted).signMessage({ message: "split now" });
    expect(await verifyMessage({ address, message: "split now", signature })).toBe(true);
  });

  it("a conversion cut short (the holder fails after begin) keeps the wallet whole and working; the next sign-in splits it", async () => {
    const inner = createMemoryKeyHolder();
    const custody = inner.custody as NonNullable<KeyHolder["custody"]>;
    const cutShort: KeyHolder = {
      ...inner,
      custody: {
        ...custody,
        acceptSplitShare: async () => {
          throw new Error("the tab was closed");
        },
      },
    };
    const first = await signInWithOtp(svc, interrupted, { keyHolder: cutShort });
    const whole = first.user?.address as `0x${string}`;
    expect(first.getState().status).toBe("CONNECTED");
    expect(first.walletAccess).toBe("service");
    expect(first.user?.custody).toBeUndefined();
    const orgId = first.user?.orgId as string;
    const [begun] = await wallets(orgId);
    expect(begun).toMatchObject({ custody: "service", sealed_service_share: null });
    expect(begun?.sealed_mnemonic).not.toBe("");
    expect(begun?.sealed_pending_share).toEqual(expect.any(String));
    // The whole wallet still signs, without a share.
    const digest = keccak256(toHex("still whole"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(first, { message: digest }) }),
    ).toBe(whole);

    const again = await signInWithOtp(svc, interrupted);
    expect(again.user?.address).toBe(whole);
    expect(again.user?.custody).toBe("split");
    expect(again.walletAccess).toBe("ready");
    expect((await wallets(orgId))[0]).toMatchObject({ custody: "split", sealed_mnemonic: "" });
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(again, { message: digest }) }),
    ).toBe(whole);
  });

  it("the share protects like a new split wallet's; another device must restore it", async () => {
    const { code } = await converted.protectWallet({ method: "code" });
    expect(converted.getState().recovery).toEqual(["code"]);
    const other = await signInWithOtp(svc, email);
    expect(other.user?.address).toBe(address);
    expect(other.walletAccess).toBe("restore_needed");
    await other.restoreWallet({ recoveryCode: code as string });
    const digest = keccak256(toHex("restored after the move"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(other, { message: digest }) }),
    ).toBe(address);
  });
});
