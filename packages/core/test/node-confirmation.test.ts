import {
  createEip1193Provider,
  isUserRejected,
  type Signer,
  SignerError,
  type SigningConfirmation,
  setSigningConfirmation,
  toViemAccount,
  withSigningConfirmation,
} from "@latchkey/core";
import { type Hex, parseEther, parseGwei, recoverTransactionAddress, toHex, verifyMessage } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startService, type TestService } from "./helpers/service";
import { signInWithOtp } from "./helpers/signIn";

// The confirmation before a signature (issue 46): the signer asks its handler (the modal's confirmation
// step in @latchkey/react) with what is signed, exactly as the service will get it; a refusal is
// USER_REJECTED (4001 from the EIP-1193 provider) and nothing reaches the service.
let svc: TestService;
let signer: Signer;

beforeAll(async () => {
  svc = await startService();
  signer = await signInWithOtp(svc, "confirm@example.com");
});
afterAll(async () => {
  await svc?.close();
});

let off = () => {};
afterEach(() => off());

/** Sets a handler answering `answer`, and records what it was asked. */
function handler(answer: boolean): SigningConfirmation[] {
  const asked: SigningConfirmation[] = [];
  off = setSigningConfirmation(signer, async (c) => {
    asked.push(c);
    return answer;
  });
  return asked;
}

const activities = async () =>
  (await svc.service.ctx.db.selectFrom("activities").select(["type", "status"]).execute()).length;

const friend = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const tx = {
  type: "eip1559" as const,
  chainId: 1,
  nonce: 0,
  to: friend,
  value: parseEther("0.01"),
  gas: 21000n,
  maxFeePerGas: parseGwei("2"),
  maxPriorityFeePerGas: parseGwei("1"),
};

describe("confirming a signature", () => {
  it("asks with the message and the exact request the service gets; a refusal signs nothing", async () => {
    const asked = handler(false);
    const before = await activities();
    const error = await toViemAccount(signer)
      .signMessage({ message: "hello" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SignerError);
    expect([(error as SignerError).code, (error as Error).message]).toEqual([
      "USER_REJECTED",
      "User rejected the request.",
    ]);
    expect(isUserRejected(error)).toBe(true);
    expect(asked).toEqual([
      {
        requested: false,
        request: {
          kind: "message",
          message: toHex("hello"),
          activity: {
            type: "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2",
            parameters: {
              signWith: signer.user?.address,
              payload: toHex("hello"),
              encoding: "PAYLOAD_ENCODING_EIP191_MESSAGE",
              hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
            },
          },
        },
      },
    ]);
    expect(await activities()).toBe(before);
  });

  it("signs once confirmed", async () => {
    handler(true);
    const account = toViemAccount(signer);
    const signature = await account.signMessage({ message: "hello" });
    expect(await verifyMessage({ address: account.address, message: "hello", signature })).toBe(true);
  });

  it("shows a transaction's chain, target and value, and its unsigned form for the service", async () => {
    const asked = handler(true);
    const account = toViemAccount(signer);
    const signed = await account.signTransaction(tx);
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(account.address);
    const request = asked[0]?.request;
    expect(request).toMatchObject({
      kind: "transaction",
      chainId: 1,
      from: account.address,
      to: friend,
      value: parseEther("0.01"),
      activity: { type: "ACTIVITY_TYPE_SIGN_TRANSACTION_V2" },
    });

    handler(false);
    const before = await activities();
    await expect(account.signTransaction(tx)).rejects.toMatchObject({ code: "USER_REJECTED" });
    expect(await activities()).toBe(before);
  });

  it("a call's confirm: true is asked even with nobody to show it: CONFIRMATION_UNAVAILABLE", async () => {
    off();
    await expect(
      toViemAccount(signer, { confirm: true }).signMessage({ message: "x" }),
    ).rejects.toMatchObject({
      code: "CONFIRMATION_UNAVAILABLE",
    });
    // Without it, and without a handler, the spec's behaviour: signed at once.
    expect(await toViemAccount(signer).signMessage({ message: "x" })).toMatch(/^0x[0-9a-f]{130}$/);
    const asked = handler(true);
    await toViemAccount(signer, { confirm: true }).signMessage({ message: "x" });
    await withSigningConfirmation(signer, true, () => toViemAccount(signer).signMessage({ message: "y" }));
    expect(asked.map((a) => a.requested)).toEqual([true, true]);
  });

  it("the EIP-1193 provider answers a refusal with 4001", async () => {
    handler(false);
    const provider = createEip1193Provider(signer);
    const error = (await provider
      .request({ method: "personal_sign", params: [toHex("hello"), signer.user?.address as Hex] })
      .catch((e: unknown) => e)) as { code: number; data: { code: string } };
    expect([error.code, error.data.code]).toEqual([4001, "USER_REJECTED"]);
  });

  it("a 7702 account's delegation to Simple7702Account is not asked; another delegate is", async () => {
    const asked = handler(true);
    const account = toViemAccount(signer);
    const sign = account.signAuthorization as NonNullable<typeof account.signAuthorization>;
    await sign({ chainId: 1, address: "0xe6Cae83BdE06E4c305530e199D7217f42808555B", nonce: 0 });
    expect(asked).toEqual([]);
    handler(false);
    await expect(sign({ chainId: 1, address: friend, nonce: 0 })).rejects.toMatchObject({
      code: "USER_REJECTED",
    });
  });
});
