/**
 * Held signatures of a split-custody wallet through @latchkey/core (docs/split-custody.md §7): the
 * policy holds a signature (ActivityError CONSENSUS_NEEDED); an app admin's approval signs nothing; the
 * client that waits (`waitForActivity`) completes it with its key holder's share and answers the
 * signature; after a reload, `completeApprovedActivities` completes what was approved meanwhile; a
 * device without the share cannot.
 */
import {
  ActivityError,
  completeApprovedActivities,
  createMemoryKeyHolder,
  importWallet,
  type LatchkeyError,
  type Signer,
  signRawMessage,
  waitForActivity,
} from "@latchkey/core";
import {
  type Activity,
  generateP256PrivateKey,
  p256PublicKeyFromPrivate,
  stampWithPrivateKey,
  toHex,
} from "@latchkey/protocol";
import { type Hex, keccak256, recoverAddress, toHex as viemHex } from "viem";
import { mnemonicToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

const ADMIN_KEY = generateP256PrivateKey();
const APP = {
  id: "split-held-core",
  name: "Split Held",
  apiKeys: ["lk_split_held_core_0123456789"],
  allowedOrigins: ["http://127.0.0.1:1"],
  custody: "split" as const,
  signingPolicy: {
    rawPayloads: "needs_approval" as const,
    adminKeys: [{ name: "ops", publicKey: toHex(p256PublicKeyFromPrivate(ADMIN_KEY, true)) }],
  },
};
const email = "held-split@example.com";

let svc: TestService;
let appOrg: string;
let signer: Signer;
let address: Hex;
const kept: Record<string, Uint8Array> = {};

beforeAll(async () => {
  svc = await startService({ apps: [APP] });
  appOrg = (await svc.service.ctx.apps.byId(APP.id))?.orgId as string;
  signer = await signInWithOtp(svc, email, {
    apiKey: APP.apiKeys[0] as string,
    keyHolder: createMemoryKeyHolder({
      onUserShare: (organizationId, share) => {
        kept[organizationId] = share;
      },
    }),
  });
  address = signer.user?.address as Hex;
});
afterAll(async () => {
  await svc?.close();
});

/** What an app admin's backend (or `latchkey activity approve`) sends, stamped by its admin key. */
async function approve(activityId: string) {
  const body = JSON.stringify({
    type: "ACTIVITY_TYPE_APPROVE_ACTIVITY",
    timestampMs: String(Date.now()),
    organizationId: appOrg,
    parameters: { activityId },
  });
  const stamp = stampWithPrivateKey(body, ADMIN_KEY);
  const res = await fetch(`${svc.baseUrl}/public/v1/submit/approve_activity`, {
    method: "POST",
    headers: { "content-type": "application/json", [stamp.stampHeaderName]: stamp.stampHeaderValue },
    body,
  });
  expect(res.status).toBe(200);
}

/** The held activity's id from a signature the policy held. */
async function held(digest: Hex, who = signer): Promise<string> {
  const error = await signRawMessage(who, { message: digest }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ActivityError);
  expect((error as ActivityError).activityStatus).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
  return (error as ActivityError).activityId;
}

const activityOf = async (activityId: string) =>
  (
    await signer.client.query<{ activity: Activity }>("get_activity", {
      organizationId: signer.user?.orgId as string,
      activityId,
    })
  ).activity;

describe("held signatures of a split wallet, from Node", () => {
  it("a waiting client completes the approved signature with its share; the signature is the user's", async () => {
    expect(signer.user?.custody).toBe("split");
    const digest = keccak256(viemHex("held, then approved"));
    const activityId = await held(digest);
    const waiting = waitForActivity(signer, { activityId });
    await approve(activityId);
    const { activity, signature } = await waiting;
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverAddress({ hash: digest, signature: signature as Hex })).toBe(address);
  });

  it("approved while the app was closed: the approval signs nothing; completeApprovedActivities does, once", async () => {
    const digest = keccak256(viemHex("approved while away"));
    const activityId = await held(digest);
    await approve(activityId);
    const before = await activityOf(activityId);
    expect([before.status, before.result, before.approval?.approvedBy]).toEqual([
      "ACTIVITY_STATUS_CONSENSUS_NEEDED",
      {},
      "ops",
    ]);
    // A device without the share (signed in elsewhere, not restored) cannot complete it.
    const elsewhere = await signInWithOtp(svc, email, { apiKey: APP.apiKeys[0] as string });
    expect(elsewhere.walletAccess).toBe("restore_needed");
    const refused = await completeApprovedActivities(elsewhere).catch((e: unknown) => e);
    expect((refused as LatchkeyError).code).toBe("USER_SHARE_REQUIRED");
    expect((await activityOf(activityId)).status).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");

    // The same device, reloaded (its share kept), completes it at sign-in.
    const reloaded = await signInWithOtp(svc, email, {
      apiKey: APP.apiKeys[0] as string,
      keyHolder: createMemoryKeyHolder({ userShares: kept }),
    });
    const done = await reloaded.completeApprovedActivities();
    expect(done.map((d) => d.activity.id)).toEqual([activityId]);
    expect(await recoverAddress({ hash: digest, signature: done[0]?.signature as Hex })).toBe(address);
    expect(await reloaded.completeApprovedActivities()).toEqual([]);
  });

  it("a held signature no admin approved is not completed, and waiting says so", async () => {
    const activityId = await held(keccak256(viemHex("not approved")));
    expect(await completeApprovedActivities(signer)).toEqual([]);
    const early = await waitForActivity(signer, { activityId, timeoutMs: 0 }).catch((e: unknown) => e);
    expect((early as ActivityError).activityStatus).toBe("ACTIVITY_STATUS_CONSENSUS_NEEDED");
  });
  it("a held signature of an imported wallet: the device completes it with that wallet's share", async () => {
    const words = "legal winner thank year wave sausage worth useful legal winner thank yellow";
    const imported = mnemonicToAccount(words).address;
    await (await importWallet(signer, { secret: words })).submit();
    expect(signer.user?.address).toBe(imported);
    const digest = keccak256(viemHex("held, imported, then approved"));
    const activityId = await held(digest);
    const waiting = waitForActivity(signer, { activityId });
    await approve(activityId);
    const { activity, signature } = await waiting;
    expect(activity.status).toBe("ACTIVITY_STATUS_COMPLETED");
    expect(await recoverAddress({ hash: digest, signature: signature as Hex })).toBe(imported);
  });
});
