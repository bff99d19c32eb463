import {
  createMemoryKeyHolder,
  importWallet,
  type Signer,
  signRawMessage,
  toViemAccount,
} from "@latchkey/core";
import { signerRoutes } from "@latchkey/protocol";
import { keccak256, recoverAddress, toHex, verifyMessage } from "viem";
import { mnemonicToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// Importing a wallet into a split-custody app from Node (docs/split-custody.md §5, Import), against the real
// service: the memory key holder splits the phrase, keeps its share under the wallet's id, the service
// gets only its share; the imported account signs; one recovery code protects both wallets, and a new
// holder restores both with it and signs as the imported address.
let svc: TestService;
const email = "split-import@example.com";
const WORDS = "legal winner thank year wave sausage worth useful legal winner thank yellow";
const IMPORTED = mnemonicToAccount(WORDS).address;

beforeAll(async () => {
  svc = await startService({ devCustody: "split", devOrigins: ["http://localhost:5173"] });
});
afterAll(async () => {
  await svc?.close();
});

describe("an import into a split-custody app, from Node", () => {
  let first: Signer;
  let firstAddress: string;
  let walletId: string;
  let code: string;
  const kept: Record<string, Uint8Array> = {};

  it("splits the phrase in the key holder, keeps its share by wallet, and signs as the imported address", async () => {
    first = await signInWithOtp(svc, email, {
      keyHolder: createMemoryKeyHolder({
        onUserShare: (name, share) => {
          kept[name] = share;
        },
      }),
    });
    expect(first.walletAccess).toBe("ready");
    firstAddress = first.user?.address as string;
    const orgId = first.user?.orgId as string;

    const bad = await importWallet(first, { secret: "legal winner thank year wave sausage" }).catch(
      (e: unknown) => e,
    );
    expect((bad as { code?: string }).code).toBe("INVALID_IMPORT_SECRET");

    const open = await importWallet(first, { secret: WORDS });
    const imported = await open.submit();
    walletId = imported.walletId;
    expect(imported).toMatchObject({ kind: "mnemonic", address: IMPORTED });
    expect(first.user?.address).toBe(IMPORTED);
    // The first wallet's share where it always was; the imported one's under its id, and the list.
    expect(Object.keys(kept).sort()).toEqual([orgId, `${orgId}#wallets`, `${orgId}/${walletId}`].sort());
    // Until the user protects again, no factor covers both wallets.
    expect(first.getState().recovery).toEqual([]);

    const signature = await toViemAccount(first).signMessage({ message: "imported, split" });
    expect(await verifyMessage({ address: IMPORTED, message: "imported, split", signature })).toBe(true);
    const digest = keccak256(toHex("raw, imported"));
    expect(
      await recoverAddress({ hash: digest, signature: await signRawMessage(first, { message: digest }) }),
    ).toBe(IMPORTED);
    // The first wallet still signs, with its own share.
    const own = keccak256(toHex("raw, first"));
    const { signature: firstSignature } = await first.client.callStamped(signerRoutes.signPayload, {
      organizationId: orgId,
      parameters: {
        signWith: firstAddress,
        payload: own,
        encoding: "PAYLOAD_ENCODING_HEXADECIMAL",
        hashFunction: "HASH_FUNCTION_NO_OP",
      },
    });
    expect(await recoverAddress({ hash: own, signature: firstSignature })).toBe(firstAddress);
  });

  it("one recovery code protects both wallets", async () => {
    const protectedWith = await first.protectWallet({ method: "code" });
    code = protectedWith.code as string;
    expect(first.getState().recovery).toEqual(["code"]);
  });

  it("a new key holder restores both with the code and signs as the imported address", async () => {
    const second = await signInWithOtp(svc, email);
    expect(second.user?.address).toBe(IMPORTED);
    expect(second.walletAccess).toBe("restore_needed");
    expect(second.getState().recovery).toEqual(["code"]);
    const restored = await second.restoreWallet({ recoveryCode: code });
    expect(restored.importedWalletIds).toEqual([walletId]);
    const signature = await toViemAccount(second).signMessage({ message: "restored import" });
    expect(await verifyMessage({ address: IMPORTED, message: "restored import", signature })).toBe(true);
  });

  it("an EVM private key too: one account, split, it signs", async () => {
    const key = `0x${"11".repeat(32)}` as const;
    const open = await importWallet(first, { secret: key, kind: "evm_private_key" });
    const imported = await open.submit();
    expect(imported.kind).toBe("evm_private_key");
    expect(imported.address).toBe(privateKeyToAddress(key));
    const signature = await toViemAccount(first).signMessage({ message: "a key, split" });
    expect(
      await verifyMessage({ address: imported.address as `0x${string}`, message: "a key, split", signature }),
    ).toBe(true);
  });
});
