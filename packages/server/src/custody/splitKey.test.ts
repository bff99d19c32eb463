import { randomBytes, randomUUID } from "node:crypto";
import { toHex } from "@latchkey/protocol";
import {
  encodeWalletSecret,
  newWalletSecret,
  publicKeyOf,
  sealServiceShare,
  sealUserShare,
  splitWalletSecret,
} from "@latchkey/protocol/custody";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Keyring } from "../crypto/keyring";
import { type Db, migrate, type OpenedDatabase, openDatabase } from "../db/index";
import { ApiError } from "../errors";
import { ServiceKeys } from "../serviceKeys/serviceKeys";
import {
  openNewServiceShare,
  openRequestShare,
  requireShare,
  shareKeyHex,
  splitUnsupported,
} from "./shareKey";
import { openCheckedUserShare, withSplitKey } from "./splitKey";

/**
 * The signing step of a split wallet (docs/split-custody.md §2) on a real keyring and share key, without
 * HTTP: which share opens, what the combined key must match, and what is wiped.
 */
let opened: OpenedDatabase;
let db: Db;
let ctx: { keyring: Keyring; serviceKeys: ServiceKeys };

beforeEach(async () => {
  opened = openDatabase(":memory:");
  db = opened.db;
  await migrate(db);
  const keyring = new Keyring(db, randomBytes(32));
  await keyring.init();
  ctx = {
    keyring,
    serviceKeys: new ServiceKeys({
      db,
      keyring,
      now: () => Date.now(),
      random: { uuid: () => randomUUID(), bytes: (n) => randomBytes(n) },
    }),
  };
});
afterEach(() => opened.close());

async function splitWallet() {
  const { secret } = await newWalletSecret();
  const keys = secret.accounts.map((a) => ({ curve: a.curve, privateKey: a.privateKey.slice() }));
  const { userShare, serviceShare } = await splitWalletSecret(encodeWalletSecret(secret));
  const walletId = randomUUID();
  const sealedServiceShare = ctx.keyring.seal(Buffer.from(serviceShare), `wallet_share:${walletId}`);
  const account = (secretIndex: number) => {
    const key = keys[secretIndex] as (typeof keys)[number];
    return {
      curve: key.curve,
      split: { walletId, secretIndex, publicKey: publicKeyOf(key), sealedServiceShare },
    };
  };
  return { keys, userShare, serviceShare, account };
}

const shareFor = async (userShare: Uint8Array, body: string) => ({
  sealed: await sealUserShare({ userShare, shareKey: await shareKeyHex(ctx), body }),
  body,
});

const codeOf = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return { code: (e as ApiError).code, status: (e as ApiError).status, message: (e as ApiError).message };
};

describe("withSplitKey", () => {
  it("hands `sign` the account's own key, for either curve, and wipes it after", async () => {
    const w = await splitWallet();
    expect(w.keys.map((k) => k.curve)).toEqual(["CURVE_SECP256K1", "CURVE_ED25519"]);
    for (const index of [0, 1]) {
      const body = `{"n":${index}}`;
      let handed: Uint8Array | undefined;
      let copy = "";
      const out = await withSplitKey(
        ctx,
        w.account(index),
        await shareFor(w.userShare, body),
        (curve, key) => {
          handed = key;
          copy = toHex(key);
          return `${curve}:signed`;
        },
      );
      expect(out).toBe(`${w.keys[index]?.curve}:signed`);
      expect(copy).toBe(toHex(w.keys[index]?.privateKey as Uint8Array));
      expect(handed?.every((b) => b === 0)).toBe(true);
    }
  });

  it("awaits an asynchronous `sign`, and wipes the key even when it throws", async () => {
    const w = await splitWallet();
    let handed: Uint8Array | undefined;
    await expect(
      withSplitKey(ctx, w.account(0), await shareFor(w.userShare, "b"), async (_c, key) => {
        handed = key;
        await new Promise((r) => setTimeout(r, 1));
        throw new Error("signer failed");
      }),
    ).rejects.toThrow("signer failed");
    expect(handed?.some((b) => b !== 0)).toBe(false);
    expect(
      await withSplitKey(ctx, w.account(0), await shareFor(w.userShare, "b"), async () => {
        await new Promise((r) => setTimeout(r, 1));
        return 7;
      }),
    ).toBe(7);
  });

  it("403 USER_SHARE_REQUIRED without a share, before anything is opened or signed", async () => {
    const w = await splitWallet();
    let signed = false;
    const sign = () => {
      signed = true;
    };
    for (const share of [undefined, { body: "b" }, { sealed: "", body: "b" }]) {
      const e = await codeOf(withSplitKey(ctx, w.account(0), share, sign));
      expect(e).toMatchObject({ code: "USER_SHARE_REQUIRED", status: 403 });
      expect(e.message).toContain("X-User-Share");
    }
    expect(signed).toBe(false);
  });

  it("400 USER_SHARE_INVALID: a share for another body, garbage, another wallet's share, the service share", async () => {
    const w = await splitWallet();
    const other = await splitWallet();
    let signed = false;
    const sign = () => {
      signed = true;
    };
    const cases = [
      { ...(await shareFor(w.userShare, "body one")), body: "body two" },
      { sealed: "not-a-share", body: "b" },
      await shareFor(other.userShare, "b"),
      await shareFor(w.serviceShare, "b"),
    ];
    for (const share of cases) {
      const e = await codeOf(withSplitKey(ctx, w.account(0), share, sign));
      expect(e).toMatchObject({ code: "USER_SHARE_INVALID", status: 400 });
    }
    expect(signed).toBe(false);
  });

  it("400 when the combined key is not the account's: another index, curve or public key", async () => {
    const w = await splitWallet();
    const evm = w.account(0);
    const wrong = [
      { ...evm, split: { ...evm.split, secretIndex: 1 } },
      { ...evm, split: { ...evm.split, secretIndex: 5 } },
      { ...evm, curve: "CURVE_ED25519" as const },
      { ...evm, split: { ...evm.split, publicKey: w.account(1).split.publicKey } },
      { ...evm, split: { ...evm.split, publicKey: "zz" } },
    ];
    for (const account of wrong) {
      const e = await codeOf(withSplitKey(ctx, account, await shareFor(w.userShare, "b"), () => "signed"));
      expect(e).toMatchObject({ code: "USER_SHARE_INVALID", status: 400 });
      expect(e.message).toContain("does not combine");
    }
    // The stored public key is compared whatever its case.
    const upper = { ...evm, split: { ...evm.split, publicKey: evm.split.publicKey.toUpperCase() } };
    expect(await withSplitKey(ctx, upper, await shareFor(w.userShare, "b"), () => "ok")).toBe("ok");
  });

  it("opens the service share under its own wallet's context only", async () => {
    const w = await splitWallet();
    const evm = w.account(0);
    const moved = { ...evm, split: { ...evm.split, walletId: randomUUID() } };
    await expect(
      withSplitKey(ctx, moved, await shareFor(w.userShare, "b"), () => "signed"),
    ).rejects.toThrow();
  });
});

describe("a share the service holds (a grant's) and the consent's check", () => {
  it("withSplitKey signs with a held share without a request share, and wipes what it opened", async () => {
    const w = await splitWallet();
    let opened: Uint8Array | undefined;
    const held = {
      open: async () => {
        opened = w.userShare.slice();
        return opened;
      },
    };
    expect(await withSplitKey(ctx, w.account(0), held, (_c, key) => toHex(key))).toBe(
      toHex(w.keys[0]?.privateKey as Uint8Array),
    );
    expect(opened?.every((b) => b === 0)).toBe(true);
    // What the held share opens is checked as a request's is; a refusal to open is the holder's error.
    const other = await splitWallet();
    const wrong = { open: async () => other.userShare.slice() };
    expect((await codeOf(withSplitKey(ctx, w.account(0), wrong, () => "signed"))).code).toBe(
      "USER_SHARE_INVALID",
    );
    const gone = { open: () => Promise.reject(new Error("the grant was revoked")) };
    await expect(withSplitKey(ctx, w.account(0), gone, () => "signed")).rejects.toThrow(
      "the grant was revoked",
    );
  });

  it("openCheckedUserShare answers the request's share when it makes the account's key, else 400", async () => {
    const w = await splitWallet();
    const share = await shareFor(w.userShare, "consent");
    expect(await openCheckedUserShare(ctx, w.account(1), share)).toEqual(w.userShare);
    const other = await splitWallet();
    const e = await codeOf(
      openCheckedUserShare(ctx, w.account(1), await shareFor(other.userShare, "consent")),
    );
    expect(e).toMatchObject({ code: "USER_SHARE_INVALID", status: 400 });
    expect((await codeOf(openCheckedUserShare(ctx, w.account(1), undefined))).code).toBe(
      "USER_SHARE_REQUIRED",
    );
  });

  it("a secret whose key is no scalar (all zeros) makes no signature: 400", async () => {
    const secret = {
      entropy: new Uint8Array(16),
      accounts: [{ curve: "CURVE_SECP256K1" as const, privateKey: new Uint8Array(32) }],
    };
    const { userShare, serviceShare } = await splitWalletSecret(encodeWalletSecret(secret));
    const walletId = randomUUID();
    const account = {
      curve: "CURVE_SECP256K1" as const,
      split: {
        walletId,
        secretIndex: 0,
        publicKey: `04${"00".repeat(64)}`,
        sealedServiceShare: ctx.keyring.seal(Buffer.from(serviceShare), `wallet_share:${walletId}`),
      },
    };
    let signed = false;
    const e = await codeOf(
      withSplitKey(ctx, account, await shareFor(userShare, "b"), () => {
        signed = true;
      }),
    );
    expect(e.code).toBe("USER_SHARE_INVALID");
    expect(signed).toBe(false);
  });
});

describe("the share key", () => {
  it("is one P-256 key per service, uncompressed, made once", async () => {
    const hex = await shareKeyHex(ctx);
    expect(hex).toMatch(/^04[0-9a-f]{128}$/);
    expect(await shareKeyHex(ctx)).toBe(hex);
    const again = new ServiceKeys({
      db,
      keyring: ctx.keyring,
      now: () => Date.now(),
      random: { uuid: () => randomUUID(), bytes: (n) => randomBytes(n) },
    });
    expect(await shareKeyHex({ serviceKeys: again })).toBe(hex);
  });

  it("requireShare and openRequestShare: the share back for its body; coded errors otherwise", async () => {
    const userShare = new Uint8Array(randomBytes(33));
    const share = await shareFor(userShare, "the body");
    expect(requireShare(share)).toEqual(share);
    expect(await openRequestShare(ctx, share)).toEqual(userShare);
    expect(await codeOf(openRequestShare(ctx, { ...share, body: "another" }))).toMatchObject({
      code: "USER_SHARE_INVALID",
      message: "The user's share does not open for this request",
    });
    expect(() => requireShare(undefined)).toThrow(ApiError);
  });

  it("openNewServiceShare: a new wallet's service share opens for its organisation only", async () => {
    const serviceShare = new Uint8Array(randomBytes(40));
    const sealed = await sealServiceShare({
      serviceShare,
      shareKey: await shareKeyHex(ctx),
      organizationId: "org-1",
    });
    expect(await openNewServiceShare(ctx, { sealed, organizationId: "org-1" })).toEqual(serviceShare);
    const e = await codeOf(openNewServiceShare(ctx, { sealed, organizationId: "org-2" }));
    expect(e).toMatchObject({ code: "USER_SHARE_INVALID", status: 400 });
    expect(e.message).toContain("sealed to the share key for this organization");
    // A user share never opens as a service share (another HPKE info).
    const user = await shareFor(serviceShare, "create:org-1");
    expect(
      (await codeOf(openNewServiceShare(ctx, { sealed: user.sealed, organizationId: "org-1" }))).code,
    ).toBe("USER_SHARE_INVALID");
  });

  it("splitUnsupported: 409 that names what is not supported", () => {
    const e = splitUnsupported("Importing a wallet");
    expect(e.status).toBe(409);
    expect(e.code).toBe("SPLIT_CUSTODY_UNSUPPORTED");
    expect(e.message).toMatch(/^Importing a wallet is not supported yet for split custody/);
  });

  it("a share key that fails to open is the service's error, not the user's, and the next request tries again", async () => {
    const real = ctx.serviceKeys;
    const userShare = new Uint8Array(randomBytes(33));
    const share = await shareFor(userShare, "body");
    const sealedService = await sealServiceShare({
      serviceShare: userShare,
      shareKey: await shareKeyHex(ctx),
      organizationId: "org",
    });
    let fail = true;
    // The HSM or the database failing once while the key is opened (the public key already known).
    const flaky = {
      publicKey: (purpose: "share") => real.publicKey(purpose),
      withPrivateKey: <T>(purpose: "share", use: (raw: Uint8Array) => Promise<T>) => {
        if (fail) return Promise.reject(new Error("the HSM is unreachable"));
        return real.withPrivateKey(purpose, use);
      },
    } as unknown as ServiceKeys;
    const flakyCtx = { serviceKeys: flaky };
    await expect(openRequestShare(flakyCtx, share)).rejects.toThrow("the HSM is unreachable");
    await expect(
      openNewServiceShare(flakyCtx, { sealed: sealedService, organizationId: "org" }),
    ).rejects.toThrow("the HSM is unreachable");
    fail = false;
    expect(await openRequestShare(flakyCtx, share)).toEqual(userShare);
    expect(await openNewServiceShare(flakyCtx, { sealed: sealedService, organizationId: "org" })).toEqual(
      userShare,
    );
  });
});
