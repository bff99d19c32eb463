import {
  decodeSplitImport,
  generateP256PrivateKey,
  openEncryptedImportBundle,
  p256PublicKeyFromPrivate,
  toHex,
} from "@latchkey/protocol/crypto";
import {
  combineShares,
  decodeWalletSecret,
  mnemonicOfSecret,
  openSignInWallet,
  openUserShare,
  sealSplitShare,
} from "@latchkey/protocol/custody";
import { describe, expect, it } from "vitest";
import { createShareHolder, memoryUserShares, walletShareName } from "./userShares";

// A new user's wallet carried by the code's sign-in (docs/split-custody.md §3), the key holder's part.
describe("a sign-in's wallet, in the key holder", () => {
  const shareKeyPrivate = generateP256PrivateKey();
  const shareKey = {
    privateKey: shareKeyPrivate,
    publicKey: toHex(p256PublicKeyFromPrivate(shareKeyPrivate, false)),
  };
  const binding = { organizationId: "org-1", otpId: "otp-1", targetPublicKey: shareKey.publicKey };

  it("seals both shares for that sign-in and keeps the user share only once the service answered its address", async () => {
    const stored = memoryUserShares();
    const holder = createShareHolder(stored);
    const made = await holder.prepareSignInWallet({ ...binding, shareKey: shareKey.publicKey });
    expect(made.accounts.map((a) => a.addressFormat)).toEqual([
      "ADDRESS_FORMAT_ETHEREUM",
      "ADDRESS_FORMAT_SOLANA",
    ]);
    const { userShare, serviceShare } = await openSignInWallet({ sealed: made.sealed, shareKey, ...binding });
    const secret = decodeWalletSecret(await combineShares(userShare, serviceShare));
    expect(mnemonicOfSecret(secret)?.split(" ")).toHaveLength(12);
    // Pending: nothing stored until the answer.
    expect(await stored.get("org-1")).toBeNull();
    // Another wallet answered (the sign-in recorded none of this one): forgotten, nothing stored.
    expect(
      await holder.keepSignInWallet({
        organizationId: "org-1",
        address: "0x0000000000000000000000000000000000000001",
      }),
    ).toBe(false);
    expect(await stored.get("org-1")).toBeNull();
    // Forgotten for good: even the right address finds nothing now.
    const address = made.accounts[0]?.address ?? "";
    expect(await holder.keepSignInWallet({ organizationId: "org-1", address })).toBe(false);

    const again = await holder.prepareSignInWallet({ ...binding, shareKey: shareKey.publicKey });
    const opened = await openSignInWallet({ sealed: again.sealed, shareKey, ...binding });
    expect(
      await holder.keepSignInWallet({
        organizationId: "org-1",
        address: (again.accounts[0]?.address ?? "").toLowerCase(),
      }),
    ).toBe(true);
    expect(await stored.get("org-1")).toEqual(opened.userShare);
  });
});

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

// Shares keyed by wallet (docs/split-custody.md §5, Import): the first wallet's under the organisation, as
// before; an imported wallet's under its id, picked by the account a body signs with.
describe("a further (imported) wallet's share", () => {
  const shareKeyPair = () => {
    const privateKey = generateP256PrivateKey();
    return { privateKey, publicKey: toHex(p256PublicKeyFromPrivate(privateKey, false)) };
  };
  const sign = (organizationId: string, signWith: string) =>
    JSON.stringify({
      type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
      organizationId,
      parameters: { signWith, payload: "00" },
    });

  it("keeps a share stored before wallets were keyed as the first wallet's, and an import's under its id", async () => {
    const first = new Uint8Array([1, 1, 1, 1]);
    // What an earlier version stored: one share under the organisation.
    const stored = memoryUserShares({ "org-1": first });
    const holder = createShareHolder(stored);
    const shareKey = shareKeyPair();
    const importKey = shareKeyPair();
    const words = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    const { encryptedBundle, accounts } = await holder.importSplitWallet({
      organizationId: "org-1",
      walletId: "w-imported",
      targetPublicKey: importKey.publicKey,
      secret: { kind: "mnemonic", secret: words },
    });
    const [evm, sol] = accounts;
    expect(evm?.address).toBe("0x58A57ed9d8d624cBD12e2C467D34787555bB1b25");
    expect(await holder.walletShares({ organizationId: "org-1" })).toEqual([
      { walletId: "w-imported", addresses: [evm?.address, sol?.address] },
    ]);
    expect(await stored.get("org-1")).toEqual(first);
    const importedShare = (await stored.get(walletShareName("org-1", "w-imported"))) as Uint8Array;
    // The bundle holds the service share only: with the kept share it is the phrase.
    const plaintext = await openEncryptedImportBundle({
      encryptedBundle,
      importPrivateKey: importKey.privateKey,
    });
    const serviceShare = decodeSplitImport(plaintext) as Uint8Array;
    expect(mnemonicOfSecret(decodeWalletSecret(await combineShares(importedShare, serviceShare)))).toBe(
      words,
    );

    const sealedFor = async (body: string) => {
      const sealed = await holder.userShareFor(body, shareKey.publicKey);
      return openUserShare({ sealed: sealed ?? "", body, shareKey });
    };
    // Signing picks the share of the wallet that holds the account (EVM addresses in any case).
    expect(await sealedFor(sign("org-1", evm?.address.toLowerCase() ?? ""))).toEqual(importedShare);
    expect(await sealedFor(sign("org-1", sol?.address ?? ""))).toEqual(importedShare);
    expect(await sealedFor(sign("org-1", "0x0000000000000000000000000000000000000001"))).toEqual(first);
    // The grant signs with the newest EVM account: the imported one.
    expect(
      await sealedFor(JSON.stringify({ type: "OPERATION_TYPE_CREATE_GRANT", organizationId: "org-1" })),
    ).toEqual(importedShare);
    expect(await holder.hasUserShare({ organizationId: "org-1", walletId: "w-imported" })).toBe(true);

    // Recovery: one code protects both; a new holder restores both and signs for each.
    const firstBlob = await holder.protectShare({ organizationId: "org-1", walletId: "w-first" });
    const importedBlob = await holder.protectShare({
      organizationId: "org-1",
      walletId: "w-imported",
      code: firstBlob.code ?? "",
    });
    expect(importedBlob.code).toBe(firstBlob.code);
    const fresh = memoryUserShares();
    const restored = createShareHolder(fresh);
    const code = firstBlob.code ?? "";
    await restored.restoreShare({ organizationId: "org-1", walletId: "w-first", blob: firstBlob.blob, code });
    expect(await restored.hasUserShare({ organizationId: "org-1" })).toBe(true);
    expect(await restored.hasUserShare({ organizationId: "org-1", walletId: "w-imported" })).toBe(false);
    await restored.restoreShare({
      organizationId: "org-1",
      walletId: "w-imported",
      blob: importedBlob.blob,
      code,
      addresses: [evm?.address ?? "", sol?.address ?? ""],
    });
    expect(await fresh.get("org-1")).toEqual(first);
    expect(await fresh.get(walletShareName("org-1", "w-imported"))).toEqual(importedShare);
    const body = sign("org-1", evm?.address ?? "");
    expect(
      await openUserShare({
        sealed: (await restored.userShareFor(body, shareKey.publicKey)) ?? "",
        body,
        shareKey,
      }),
    ).toEqual(importedShare);
  });
});
