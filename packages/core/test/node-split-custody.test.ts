import { readFileSync } from "node:fs";
import { createBackendClient } from "@latchkey/backend";
import {
  createGrant,
  createMemoryKeyHolder,
  LatchkeyError,
  revokeGrant,
  type Signer,
  signRawMessage,
  toViemAccount,
} from "@latchkey/core";
import { signerRoutes } from "@latchkey/protocol";
import { keccak256, recoverAddress, recoverMessageAddress, toHex, verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";
import { SoftPasskeys } from "./helpers/softPasskeys";

// Split custody (docs/split-custody.md) against the real service: the wallet is made in the memory key
// holder at sign-up, every signature carries its share, and a new holder restores it with the code.
let svc: TestService;
const email = "split@example.com";
const ORIGIN = "http://localhost:5173";

beforeAll(async () => {
  svc = await startService({ devCustody: "split", devOrigins: [ORIGIN] });
});
afterAll(async () => {
  await svc?.close();
});

describe("a split-custody app, from Node", () => {
  let first: Signer;
  let address: `0x${string}`;
  let code: string;
  const kept: Record<string, Uint8Array> = {};

  it("makes the wallet in the key holder at sign-up, and signs (viem verifies)", async () => {
    first = await signInWithOtp(svc, email, {
      keyHolder: createMemoryKeyHolder({
        onUserShare: (organizationId, share) => {
          kept[organizationId] = share;
        },
      }),
    });
    expect(first.user?.custody).toBe("split");
    expect(first.user?.walletId).toEqual(expect.any(String));
    expect(first.walletAccess).toBe("ready");
    expect(first.getState().recovery).toEqual([]);
    address = first.user?.address as `0x${string}`;
    expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(Object.keys(kept)).toEqual([first.user?.orgId]);
    // The wallet came with the code's sign-in (docs/split-custody.md §3): no create_split_wallet after it.
    const db = svc.service.ctx.db;
    const made = await db
      .selectFrom("activities")
      .select("type")
      .where("user_id", "=", first.user?.userId ?? "")
      .execute();
    expect(made.map((a) => a.type)).not.toContain("ACTIVITY_TYPE_CREATE_SPLIT_WALLET");
    const created = await db
      .selectFrom("audit_log")
      .select("details")
      .where("user_id", "=", first.user?.userId ?? "")
      .where("event", "=", "wallet.created")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(created.details ?? "{}")).toMatchObject({
      custody: "split",
      walletId: first.user?.walletId,
    });

    const account = toViemAccount(first);
    const signature = await account.signMessage({ message: "split custody" });
    expect(await verifyMessage({ address, message: "split custody", signature })).toBe(true);
    const digest = keccak256(toHex("raw"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(first, { message: digest }) }),
    ).toBe(address);
  });

  it("protects the share with a recovery code of 160 bits, shown once", async () => {
    const protectedWith = await first.protectWallet({ method: "code" });
    expect(protectedWith.method).toBe("code");
    code = protectedWith.code as string;
    expect(code).toMatch(/^([0-9A-HJKMNP-TV-Z]{4}-){7}[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(first.getState().recovery).toEqual(["code"]);
  });

  it("a new key holder signs in, must restore before it signs, restores with the code and signs as the same address", async () => {
    const second = await signInWithOtp(svc, email);
    expect(second.user?.address).toBe(address);
    expect(second.walletAccess).toBe("restore_needed");
    expect(second.getState().recovery).toEqual(["code"]);

    const refused = await toViemAccount(second)
      .signMessage({ message: "no share here" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LatchkeyError);
    expect((refused as LatchkeyError).code).toBe("USER_SHARE_REQUIRED");
    expect((refused as Error).message).toMatch(/restore the wallet here/);

    // Past the client's check, the service itself refuses: it cannot sign alone.
    const direct = await second.client
      .callStamped(signerRoutes.signPayload, {
        organizationId: second.user?.orgId as string,
        parameters: {
          signWith: address,
          payload: keccak256(toHex("direct")),
          encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
          hashFunction: "HASH_FUNCTION_NO_OP",
        },
      })
      .catch((e: unknown) => e);
    expect((direct as LatchkeyError).code).toBe("USER_SHARE_REQUIRED");

    const wrong = await second
      .restoreWallet({ recoveryCode: "0000-0000-0000-0000-0000-0000-0000-0000" })
      .catch((e: unknown) => e);
    expect((wrong as LatchkeyError).code).toBe("RECOVERY_FAILED");
    expect(second.walletAccess).toBe("restore_needed");

    await second.restoreWallet({ recoveryCode: code.toLowerCase() });
    expect(second.walletAccess).toBe("ready");
    const signature = await toViemAccount(second).signMessage({ message: "restored" });
    expect(await verifyMessage({ address, message: "restored", signature })).toBe(true);
  });

  it("a restarted process that kept its share (onUserShare → userShares) signs without restoring", async () => {
    const bare = await signInWithOtp(svc, email, {
      keyHolder: createMemoryKeyHolder({ userShares: kept }),
    });
    expect(bare.walletAccess).toBe("ready");
    const digest = keccak256(toHex("kept share"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(bare, { message: digest }) }),
    ).toBe(address);
  });

  it("grants the app's backend: the key holder hands over its share with the consent, the bot signs with the user away", async () => {
    // A device without the share cannot consent: it has nothing to hand over.
    const bare = await signInWithOtp(svc, email);
    expect(bare.walletAccess).toBe("restore_needed");
    const permissions = { chainIds: [1], messages: true, maxOperations: 1, expiresAt: Date.now() + 3600_000 };
    const refused = await createGrant(bare, permissions).catch((e: unknown) => e);
    expect((refused as LatchkeyError).code).toBe("USER_SHARE_REQUIRED");

    const holder = await signInWithOtp(svc, email, {
      keyHolder: createMemoryKeyHolder({ userShares: kept }),
    });
    const grant = await createGrant(holder, permissions);
    expect(grant).toMatchObject({ status: "active", permissions: { maxOperations: 1 } });
    const serverKeyFile = svc.service.devApp?.serverKeyFile as string;
    const bot = createBackendClient({
      url: svc.baseUrl,
      appId: svc.service.devApp?.app.id as string,
      serverKey: readFileSync(serverKeyFile, "utf8"),
    });
    const userId = holder.user?.userId as string;
    const signed = await bot.signMessage({ userId, grantId: grant.grantId, message: "while you were away" });
    expect(await recoverMessageAddress({ message: "while you were away", signature: signed.signature })).toBe(
      address,
    );
    await revokeGrant(holder, { grantId: grant.grantId });
    const after = await bot
      .signMessage({ userId, grantId: grant.grantId, message: "after revoking" })
      .catch((e: unknown) => e);
    expect((after as { code?: string }).code).toBe("GRANT_REVOKED");
  });

  it("a grant whose consent a passkey stamps (the step-up) still carries the key holder's share", async () => {
    const passkeys = new SoftPasskeys(ORIGIN);
    const signer = await signInWithOtp(svc, email, {
      keyHolder: createMemoryKeyHolder({ userShares: kept }),
      rpId: "localhost",
      credentials: passkeys,
    });
    await signer.addPasskey();
    const before = passkeys.calls.get;
    const grant = await createGrant(
      signer,
      { chainIds: [1], messages: true, expiresAt: Date.now() + 3600_000 },
      { stepUp: { type: "passkey" } },
    );
    expect(passkeys.calls.get).toBe(before + 1);
    const row = await svc.service.ctx.db
      .selectFrom("grants")
      .select("sealed_user_share")
      .where("id", "=", grant.grantId)
      .executeTakeFirstOrThrow();
    expect(row.sealed_user_share).toMatch(/^v1\./);
  });
});
