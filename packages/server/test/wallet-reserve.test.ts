/**
 * The wallet reserve (users/walletReserve.ts): wallets derived ahead of sign-ups. A sign-up takes one
 * inside its own transaction, so each reserved wallet gets exactly one owner, a failed sign-up leaves it
 * in the reserve, and an empty reserve only means the sign-up derives its own. The wallet a user gets
 * from the reserve is a whole one: its recovery phrase and keys open and sign for its addresses.
 */
import { hashMessage, recoverAddress } from "viem";
import { afterEach, describe, expect, it } from "vitest";
import { deriveAccounts } from "../src/crypto/wallet";
import { createUser } from "../src/users/userStore";
import {
  type Harness,
  post,
  signBody,
  signUpByEmail,
  stamped,
  startHarness,
  TEST_APP,
  targetKey,
} from "./helpers";

const KEY = { authorization: `Bearer ${TEST_APP.apiKeys[0]}` };

describe.each(["sqlite", "postgres"] as const)("wallet reserve on %s", (kind) => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const db = () => (h as Harness).service.ctx.db;
  const reserveIds = async () =>
    new Set((await db().selectFrom("wallet_reserve").select("id").execute()).map((r) => r.id));
  const full = async (target: number) => {
    await expect
      .poll(async () => (await reserveIds()).size, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(target);
    return reserveIds();
  };
  /** Every wallet that was in the reserve is still there or has exactly one owner. */
  const expectConserved = async (snapshot: Set<string>) => {
    const left = await reserveIds();
    const owned = await db()
      .selectFrom("wallets")
      .select(["id", "user_id"])
      .where("id", "in", [...snapshot])
      .execute();
    for (const id of snapshot) {
      const owners = owned.filter((w) => w.id === id).length;
      expect({ id, state: left.has(id) ? "reserve" : owners === 1 ? "owned" : `owners: ${owners}` }).toEqual({
        id,
        state: left.has(id) ? "reserve" : "owned",
      });
    }
    return owned;
  };

  it("fills while idle; a sign-up's wallet comes out of it, opens and signs for its addresses", async () => {
    h = await startHarness(kind, { walletReserve: 8 });
    const snapshot = await full(8);
    // Every reserved wallet is whole, whichever thread derived it: its phrase derives its accounts, and
    // each sealed key opens to the key derived for its address.
    for (const row of await db().selectFrom("wallet_reserve").selectAll().execute()) {
      const phrase = await h.service.ctx.keyring.open(row.sealed_mnemonic, `wallet:${row.id}`);
      const expected = deriveAccounts(phrase.toString());
      const accounts = JSON.parse(row.accounts) as {
        id: string;
        address: string;
        sealed_private_key: string;
      }[];
      expect(accounts.map((a) => a.address)).toEqual(expected.map((a) => a.address));
      for (const [i, a] of accounts.entries()) {
        const key = await h.service.ctx.keyring.open(a.sealed_private_key, `wallet_account:${a.id}`);
        expect(key.toString("hex")).toBe(Buffer.from(expected[i]?.privateKey as Uint8Array).toString("hex"));
      }
    }
    const user = await signUpByEmail(h, "reserved@example.com", KEY);

    const [wallet] = await db().selectFrom("wallets").selectAll().where("org_id", "=", user.orgId).execute();
    expect(snapshot.has(wallet?.id as string)).toBe(true);
    expect((await reserveIds()).has(wallet?.id as string)).toBe(false);
    // The recovery phrase, sealed before the user existed, opens under the user's wallet and derives the
    // addresses the sign-up answered with.
    const mnemonic = await h.service.ctx.keyring.open(
      wallet?.sealed_mnemonic as string,
      `wallet:${wallet?.id}`,
    );
    const derived = deriveAccounts(mnemonic.toString());
    expect(derived.map((a) => a.address)).toEqual([user.address, user.solanaAddress]);
    const accounts = await db()
      .selectFrom("wallet_accounts")
      .select(["wallet_id", "org_id", "address"])
      .where("org_id", "=", user.orgId)
      .execute();
    expect(accounts).toHaveLength(2);
    expect(accounts.every((a) => a.wallet_id === wallet?.id)).toBe(true);

    // The EVM key signs, and the signature recovers to the address.
    const digest = hashMessage("from the reserve");
    const signed = await post(
      h.url,
      "/signer/v1/sign-payload",
      stamped(
        "/public/v1/submit/sign_raw_payload",
        signBody(user.orgId, user.address, digest, "HASH_FUNCTION_NO_OP"),
        user.sessionKey,
      ),
      KEY,
    );
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    expect(await recoverAddress({ hash: digest, signature: signed.json.signature as `0x${string}` })).toBe(
      user.address,
    );
  });

  it("concurrent sign-ups never share a wallet; more sign-ups than reserved wallets derive the rest", async () => {
    h = await startHarness(kind, { walletReserve: 12, rateLimits: { signupsPerIp: 1000, mailsPerIp: 1000 } });
    const snapshot = await full(12);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post(
          h?.url as string,
          "/signer/v1/signup",
          { email: `many-${i}@example.com`, targetPublicKey: targetKey().publicKey },
          KEY,
        ),
      ),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.json)).toBe(200);
    const wallets = await db().selectFrom("wallets").select(["id", "user_id"]).execute();
    expect(wallets).toHaveLength(30);
    expect(new Set(wallets.map((w) => w.id)).size).toBe(30);
    expect(new Set(answers.map((a) => a.json.address)).size).toBe(30);
    const owned = await expectConserved(snapshot);
    expect(owned.length).toBeGreaterThan(0);
    // Every user has its whole wallet.
    const accounts = await db().selectFrom("wallet_accounts").select(["wallet_id"]).execute();
    for (const w of wallets) expect(accounts.filter((a) => a.wallet_id === w.id)).toHaveLength(2);
  });

  it("a sign-up that fails inside its transaction leaves the wallet in the reserve", async () => {
    h = await startHarness(kind, { walletReserve: 4 });
    const snapshot = await full(4);
    const ctx = h.service.ctx;
    // No refills from here on: the reserve holds what it held.
    await ctx.walletReserve?.close();
    expect(ctx.walletReserve?.likelyStocked).toBe(true);
    let claimed = "";
    await expect(
      createUser(ctx, { appId: TEST_APP.id, email: "rolled-back@example.com" }, async (_trx, user) => {
        claimed = user.walletId ?? "";
        throw new Error("the sign-up's next write failed");
      }),
    ).rejects.toThrow("the sign-up's next write failed");
    expect(snapshot.has(claimed)).toBe(true);
    expect((await reserveIds()).has(claimed)).toBe(true);
    expect(await db().selectFrom("users").select("id").execute()).toHaveLength(0);

    // The same address signing up five times at once: one user, and the losers' wallets go back.
    const email = "twice@example.com";
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post(h?.url as string, "/signer/v1/signup", { email, targetPublicKey: targetKey().publicKey }, KEY),
      ),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expect(a.json.code).toBe("USER_EXISTS");
    const owned = await expectConserved(snapshot);
    expect(owned.length).toBeLessThanOrEqual(1);
    expect(await db().selectFrom("wallets").select("id").execute()).toHaveLength(1);
  });

  it("an empty reserve, though this process counted wallets in it, means the sign-up derives its own", async () => {
    h = await startHarness(kind, { walletReserve: 4 });
    await full(4);
    await h.service.ctx.walletReserve?.close();
    // Another process took them all: this one's count is out of date.
    await db().deleteFrom("wallet_reserve").execute();
    expect(h.service.ctx.walletReserve?.likelyStocked).toBe(true);
    const user = await signUpByEmail(h, "derived@example.com", KEY);
    expect(h.service.ctx.walletReserve?.likelyStocked).toBe(false);
    expect(user.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const wallets = await db().selectFrom("wallets").select("id").where("org_id", "=", user.orgId).execute();
    expect(wallets).toHaveLength(1);
  });

  it("does not refill while the event loop is busy, and refills once it is idle", async () => {
    h = await startHarness(kind, { walletReserve: 16 });
    await full(16);
    // Keep the loop ~95% busy, in slices that let timers and queries run; empty the reserve once the
    // reserve's last look at the loop saw it busy.
    const spin = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        const slice = Date.now() + 40;
        while (Date.now() < slice) {
          // busy, as a service under a burst of requests
        }
        await new Promise((r) => setImmediate(r));
      }
    };
    await spin(400);
    await db().deleteFrom("wallet_reserve").execute();
    // Longer than a full reserve waits between looks (2 s), so it looks at least once meanwhile.
    await spin(2800);
    expect((await reserveIds()).size).toBe(0);
    await full(16);
  });
});
