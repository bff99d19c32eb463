/**
 * Sign-In with Ethereum (EIP-4361) served by the service: a nonce, the verification of the signed message
 * into a session token (ES256 JWT, key at /.well-known/jwks.json), and the token's check for the app's
 * backend. Wallets: EOAs (viem local accounts), and contract wallets on a real chain (hardhat from
 * test-support/chain): a deployed one (ERC-1271) and one not yet deployed (ERC-6492).
 */
import { randomBytes } from "node:crypto";
import { ErrorCode, SIWE_NONCE_TTL_MS, SIWE_TOKEN_TTL_SECONDS } from "@latchkey/protocol";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import {
  type Address,
  type Chain,
  createWalletClient,
  encodeFunctionData,
  type Hex,
  hashMessage,
  http,
  type LocalAccount,
  parseEther,
  serializeErc6492Signature,
  type Transport,
  type WalletClient,
} from "viem";
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { type CreateSiweMessageParameters, createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChainStack } from "../../../test-support/chain";
import { sharedChainStack } from "../../../test-support/chain/shared";
import { startTestService, type TestService } from "../../../test-support/service";
import type { AppConfig } from "../src/config";
import { compileErc1271Wallet, readErc1271WalletArtifacts } from "./contracts/compileErc1271Wallet";
import { freshDatabase, post } from "./helpers";

const PUBLIC_URL = "https://auth.example";
const SIWE_APP = {
  id: "siwe-app",
  name: "SIWE App",
  apiKeys: ["lk_siwe_key_0123456789abcdef"],
  allowedOrigins: ["https://app.example", "http://localhost:*"],
} satisfies AppConfig;
const OTHER_APP = {
  id: "other-app",
  name: "Other App",
  apiKeys: ["lk_other_key_0123456789abcdef"],
  allowedOrigins: ["https://other.example"],
} satisfies AppConfig;
const KEY = { authorization: `Bearer ${SIWE_APP.apiKeys[0]}` };
const OTHER_KEY = { authorization: `Bearer ${OTHER_APP.apiKeys[0]}` };
/** A chain the service lists whose node never answers (nothing listens on port 9). */
const DEAD_CHAIN = 10;
/** Nothing here mails; the service only needs to be able to. */
const NO_MAIL = "smtp://127.0.0.1:9";

const { wallet: walletArtifact, factory: factoryArtifact } = readErc1271WalletArtifacts();

describe("the committed Erc1271Wallet artifact", () => {
  it("is what solc 0.8.28 makes of contracts/Erc1271Wallet.sol (regenerate: node --import tsx packages/server/test/contracts/compileErc1271Wallet.ts)", () => {
    const compiled = compileErc1271Wallet();
    expect(walletArtifact).toEqual(compiled.wallet);
    expect(factoryArtifact).toEqual(compiled.factory);
  });
});

let stack: ChainStack;
let factory: Address;
/** A funded account that deploys the factory and the wallets. */
let deployer: WalletClient<Transport, Chain, LocalAccount>;

async function mined(hash: Hex) {
  const receipt = await stack.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} failed`);
  return receipt;
}

beforeAll(async () => {
  stack = await sharedChainStack({ bundler: false });
  const account = privateKeyToAccount(generatePrivateKey());
  await stack.fund(account.address, parseEther("1"));
  deployer = createWalletClient({ account, chain: stack.chain, transport: http(stack.rpcUrl) });
  const receipt = await mined(
    await deployer.deployContract({ abi: factoryArtifact.abi, bytecode: factoryArtifact.bytecode }),
  );
  if (!receipt.contractAddress) throw new Error("the factory was not deployed");
  factory = receipt.contractAddress;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/** A contract wallet of `owner`: where it is (or will be), and the factory call that deploys it. */
async function contractWallet(owner: PrivateKeyAccount) {
  const salt = `0x${randomBytes(32).toString("hex")}` as Hex;
  const address = (await stack.publicClient.readContract({
    address: factory,
    abi: factoryArtifact.abi,
    functionName: "walletAddress",
    args: [owner.address, salt],
  })) as Address;
  const factoryData = encodeFunctionData({
    abi: factoryArtifact.abi,
    functionName: "deploy",
    args: [owner.address, salt],
  });
  return {
    address,
    factoryData,
    async deploy() {
      await mined(await deployer.sendTransaction({ to: factory, data: factoryData }));
    },
    /** The owner's signature over the message's EIP-191 hash: what the wallet's isValidSignature accepts. */
    sign: (message: string) => owner.sign({ hash: hashMessage(message) }),
  };
}

type Answer = Awaited<ReturnType<typeof post>>;
type Refusals = Record<string, { status: number; code?: unknown; error?: unknown }>;
/** Each database's answers to every wrong request (an inline snapshot cannot sit in describe.each). */
const refusals: { sqlite?: Refusals; postgres?: Refusals } = {};
const errorOf = (r: Answer) => ({ status: r.status, ...r.json });

describe.each(["sqlite", "postgres"] as const)("Sign-In with Ethereum (%s)", (kind) => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let svc: TestService;
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  const masterKey = randomBytes(32);

  const start = () =>
    startTestService({
      db: database.url,
      masterKey,
      smtpUrl: NO_MAIL,
      publicUrl: PUBLIC_URL,
      apps: [SIWE_APP, OTHER_APP],
      chains: [
        { chainId: stack.chainId, rpcUrl: stack.rpcUrl },
        { chainId: DEAD_CHAIN, rpcUrl: "http://127.0.0.1:9" },
      ],
      now: clock.now,
      logLevel: "silent",
    });

  beforeAll(async () => {
    database = await freshDatabase(kind);
    svc = await start();
  });
  afterAll(async () => {
    await svc?.close();
    await database?.drop();
  });

  const nonceFor = async (address: Address, chainId = stack.chainId, headers = KEY, url = svc.url) => {
    const r = await post(url, "/signer/v1/siwe/nonce", { address, chainId }, headers);
    if (r.status !== 200) throw new Error(`nonce refused: ${JSON.stringify(r.json)}`);
    return r.json as { nonce: string; issuedAt: string; expirationTime: string };
  };

  /** The message a page on https://app.example would have its wallet sign. */
  const messageFor = (
    address: Address,
    nonce: string,
    fields: Partial<CreateSiweMessageParameters> = {},
  ): string =>
    createSiweMessage({
      domain: "app.example",
      address,
      statement: "Sign in to SIWE App.",
      uri: "https://app.example/login",
      version: "1",
      chainId: stack.chainId,
      nonce,
      issuedAt: new Date(clock.now()),
      ...fields,
    });

  const verify = (message: string, signature: Hex, headers = KEY, url = svc.url) =>
    post(url, "/signer/v1/siwe/verify", { message, signature }, headers);

  /** Nonce, message, signature, verification: the whole sign-in of an EOA. */
  async function signIn(
    account: LocalAccount,
    fields: Partial<CreateSiweMessageParameters> = {},
    headers = KEY,
  ): Promise<Answer & { message: string; signature: Hex }> {
    const { nonce } = await nonceFor(account.address, fields.chainId ?? stack.chainId, headers);
    const message = messageFor(account.address, nonce, fields);
    const signature = await account.signMessage({ message });
    return { ...(await verify(message, signature, headers)), message, signature };
  }

  it("issues single-use nonces: 24 letters and digits, valid for 5 minutes", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const a = await nonceFor(account.address);
    const b = await nonceFor(account.address);
    expect(a.nonce).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(a.nonce).not.toBe(b.nonce);
    expect(Date.parse(a.expirationTime) - Date.parse(a.issuedAt)).toBe(SIWE_NONCE_TTL_MS);
    const row = await svc.service.ctx.db
      .selectFrom("siwe_nonces")
      .selectAll()
      .where("nonce", "=", a.nonce)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      app_id: SIWE_APP.id,
      address: account.address.toLowerCase(),
      chain_id: stack.chainId,
      used_at: null,
    });
  });

  it("signs an EOA in: a token that verifies against /.well-known/jwks.json and through /signer/v1/siwe/session", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await signIn(account);
    expect(r.status).toBe(200);
    const body = r.json as { token: string; address: string; chainId: number; expiresAt: string };
    expect(body.address).toBe(account.address);
    expect(body.chainId).toBe(stack.chainId);

    const jwks = await fetch(`${svc.url}/.well-known/jwks.json`);
    expect(jwks.headers.get("access-control-allow-origin")).toBe("*");
    const keys = ((await jwks.json()) as { keys: Record<string, string>[] }).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" });
    expect(keys[0]).not.toHaveProperty("d");
    expect(decodeProtectedHeader(body.token)).toEqual({ alg: "ES256", typ: "JWT", kid: keys[0]?.kid });

    const { payload } = await jwtVerify(
      body.token,
      createRemoteJWKSet(new URL(`${svc.url}/.well-known/jwks.json`)),
      {
        issuer: PUBLIC_URL,
        audience: SIWE_APP.id,
        currentDate: new Date(clock.now()),
      },
    );
    expect(payload.sub).toBe(`eip155:${stack.chainId}:${account.address}`);
    expect(payload.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(SIWE_TOKEN_TTL_SECONDS);
    expect(body.expiresAt).toBe(new Date((payload.exp ?? 0) * 1000).toISOString());

    const session = await post(svc.url, "/signer/v1/siwe/session", { token: body.token }, KEY);
    expect(session).toMatchObject({
      status: 200,
      json: {
        address: account.address,
        chainId: stack.chainId,
        appId: SIWE_APP.id,
        expiresAt: body.expiresAt,
      },
    });
    // Another app's backend cannot use it; an altered token is nobody's.
    const other = await post(svc.url, "/signer/v1/siwe/session", { token: body.token }, OTHER_KEY);
    expect(errorOf(other)).toMatchObject({ status: 401, code: ErrorCode.SIWE_TOKEN_INVALID });
    const altered = `${body.token.slice(0, -4)}${body.token.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    const bad = await post(svc.url, "/signer/v1/siwe/session", { token: altered }, KEY);
    expect(errorOf(bad)).toMatchObject({ status: 401, code: ErrorCode.SIWE_TOKEN_INVALID });
    // The token has its life: past it, the session is over.
    clock.offset += SIWE_TOKEN_TTL_SECONDS * 1000 + 10_000;
    try {
      const expired = await post(svc.url, "/signer/v1/siwe/session", { token: body.token }, KEY);
      expect(errorOf(expired)).toMatchObject({ status: 401, code: ErrorCode.SIWE_TOKEN_INVALID });
    } finally {
      clock.offset -= SIWE_TOKEN_TTL_SECONDS * 1000 + 10_000;
    }
    // The sign-in is in the audit log.
    const audit = await svc.service.ctx.db
      .selectFrom("audit_log")
      .select(["event", "details"])
      .where("event", "=", "siwe.signin")
      .where("app_id", "=", SIWE_APP.id)
      .execute();
    expect(audit.some((a) => a.details?.includes(account.address))).toBe(true);
  });

  it("ends the token at the message's Expiration Time when that is sooner than a day", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const expirationTime = new Date(Math.floor(clock.now() / 1000) * 1000 + 600_000);
    const r = await signIn(account, { expirationTime });
    expect(r.status).toBe(200);
    expect(r.json.expiresAt).toBe(expirationTime.toISOString());
  });

  it("signs in from a page on a local dev port (http://localhost:*)", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const r = await signIn(account, {
      domain: "localhost:5173",
      uri: "http://localhost:5173/",
      scheme: "http",
    });
    expect(r.status).toBe(200);
  });

  it("refuses a replayed nonce, another app's nonce (and burns it), and a nonce past its life", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const first = await signIn(account);
    expect(first.status).toBe(200);
    const replay = await verify(first.message, first.signature);
    expect(errorOf(replay)).toMatchObject({ status: 400, code: ErrorCode.SIWE_NONCE_USED });

    // A nonce the other app asked for, presented with this app's key: refused, and spent.
    const { nonce } = await nonceFor(account.address, stack.chainId, OTHER_KEY);
    const message = messageFor(account.address, nonce);
    const signature = await account.signMessage({ message });
    expect(errorOf(await verify(message, signature))).toMatchObject({
      status: 400,
      code: ErrorCode.SIWE_NONCE_UNKNOWN,
    });
    const otherMessage = messageFor(account.address, nonce, {
      domain: "other.example",
      uri: "https://other.example",
    });
    const late = await verify(otherMessage, await account.signMessage({ message: otherMessage }), OTHER_KEY);
    expect(errorOf(late)).toMatchObject({ status: 400, code: ErrorCode.SIWE_NONCE_USED });

    // A nonce never issued.
    const unknown = messageFor(account.address, "NeverIssued0123456789abc");
    expect(errorOf(await verify(unknown, await account.signMessage({ message: unknown })))).toMatchObject({
      code: ErrorCode.SIWE_NONCE_UNKNOWN,
    });

    // A nonce presented after its 5 minutes.
    const old = await nonceFor(account.address);
    const oldMessage = messageFor(account.address, old.nonce);
    const oldSignature = await account.signMessage({ message: oldMessage });
    clock.offset += SIWE_NONCE_TTL_MS + 1000;
    try {
      expect(errorOf(await verify(oldMessage, oldSignature))).toMatchObject({
        status: 400,
        code: ErrorCode.SIWE_NONCE_EXPIRED,
      });
    } finally {
      clock.offset -= SIWE_NONCE_TTL_MS + 1000;
    }
  });

  it("spends a nonce once when two instances sharing the database race for it", async () => {
    const second = await start();
    try {
      const account = privateKeyToAccount(generatePrivateKey());
      for (let round = 0; round < 5; round++) {
        const { nonce } = await nonceFor(account.address);
        const message = messageFor(account.address, nonce);
        const signature = await account.signMessage({ message });
        const answers = await Promise.all([
          verify(message, signature),
          verify(message, signature, KEY, second.url),
          verify(message, signature),
          verify(message, signature, KEY, second.url),
        ]);
        expect(answers.map((a) => a.status).sort()).toEqual([200, 400, 400, 400]);
        expect(answers.filter((a) => a.status === 400).map((a) => a.json.code)).toEqual([
          ErrorCode.SIWE_NONCE_USED,
          ErrorCode.SIWE_NONCE_USED,
          ErrorCode.SIWE_NONCE_USED,
        ]);
      }
      // One token key for every instance: either can check the other's tokens.
      const jwks = async (url: string) => (await fetch(`${url}/.well-known/jwks.json`)).json();
      expect(await jwks(second.url)).toEqual(await jwks(svc.url));
      const r = await signIn(privateKeyToAccount(generatePrivateKey()));
      const check = await post(second.url, "/signer/v1/siwe/session", { token: r.json.token }, KEY);
      expect(check.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("refuses with stable codes: every way a message, a signature or a request can be wrong", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const stranger = privateKeyToAccount(generatePrivateKey());
    const refused: Refusals = {};
    const record = (name: string, r: Answer) => {
      refused[name] = { status: r.status, code: r.json.code, error: r.json.error };
    };

    record("other domain", await signIn(account, { domain: "evil.example" }));
    record("other uri", await signIn(account, { uri: "https://evil.example/login" }));
    record("scheme of another origin", await signIn(account, { scheme: "http" }));
    record("expired message", await signIn(account, { expirationTime: new Date(clock.now() - 1000) }));
    record("not before ahead", await signIn(account, { notBefore: new Date(clock.now() + 600_000) }));
    record("issued in the future", await signIn(account, { issuedAt: new Date(clock.now() + 600_000) }));

    // The chain of the message is not the nonce's, or not one the service serves.
    const { nonce } = await nonceFor(account.address);
    const otherChain = messageFor(account.address, nonce, { chainId: DEAD_CHAIN });
    record(
      "chain not the nonce's",
      await verify(otherChain, await account.signMessage({ message: otherChain })),
    );
    const n2 = await nonceFor(account.address);
    const unserved = messageFor(account.address, n2.nonce, { chainId: 1 });
    record(
      "chain not served (verify)",
      await verify(unserved, await account.signMessage({ message: unserved })),
    );
    record(
      "chain not served (nonce)",
      await post(svc.url, "/signer/v1/siwe/nonce", { address: account.address, chainId: 1 }, KEY),
    );
    // The address is not the one the nonce was issued for.
    const n3 = await nonceFor(stranger.address);
    const notYours = messageFor(account.address, n3.nonce);
    record(
      "address not the nonce's",
      await verify(notYours, await account.signMessage({ message: notYours })),
    );

    // Signed by someone else, or not a signature at all.
    const n4 = await nonceFor(account.address);
    const forged = messageFor(account.address, n4.nonce);
    record("signed by another key", await verify(forged, await stranger.signMessage({ message: forged })));
    const n5 = await nonceFor(account.address);
    record("not a signature", await verify(messageFor(account.address, n5.nonce), "0x1234"));

    // Not an EIP-4361 message.
    record("plain text", await verify("hello", "0x1234"));
    const n6 = await nonceFor(account.address);
    const twoNonces = messageFor(account.address, n6.nonce).replace(
      "\nIssued At:",
      `\nNonce: ${(await nonceFor(account.address)).nonce}\nIssued At:`,
    );
    record("a field twice", await verify(twoNonces, await account.signMessage({ message: twoNonces })));
    const trailing = `${messageFor(account.address, n6.nonce)}\nP.S. nothing to see`;
    record("text after the fields", await verify(trailing, await account.signMessage({ message: trailing })));

    // Not a request at all.
    const res = await fetch(`${svc.url}/signer/v1/siwe/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", ...KEY },
      body: "{not json",
    });
    refused["bad JSON"] = { status: res.status, ...((await res.json()) as object) };
    record("no signature", await post(svc.url, "/signer/v1/siwe/verify", { message: "hello" }, KEY));
    record(
      "message too long",
      await post(svc.url, "/signer/v1/siwe/verify", { message: "x".repeat(5000), signature: "0x00" }, KEY),
    );
    record(
      "bad address",
      await post(svc.url, "/signer/v1/siwe/nonce", { address: "0x1234", chainId: stack.chainId }, KEY),
    );
    record(
      "no API key",
      await post(svc.url, "/signer/v1/siwe/nonce", { address: account.address, chainId: 1 }),
    );
    record("garbage token", await post(svc.url, "/signer/v1/siwe/session", { token: "not.a.jwt" }, KEY));

    refusals[kind] = refused;
  });

  it("signs a deployed contract wallet in (ERC-1271), and refuses its owner's signature for another wallet", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await contractWallet(owner);
    await wallet.deploy();
    expect(await stack.publicClient.getCode({ address: wallet.address })).toMatch(/^0x[0-9a-f]{10,}/);

    const { nonce } = await nonceFor(wallet.address);
    const message = messageFor(wallet.address, nonce);
    const r = await verify(message, await wallet.sign(message));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ address: wallet.address, chainId: stack.chainId });
    const session = await post(svc.url, "/signer/v1/siwe/session", { token: r.json.token }, KEY);
    expect(session.json.address).toBe(wallet.address);

    // Someone else's key signs for this wallet: isValidSignature says no.
    const intruder = await contractWallet(privateKeyToAccount(generatePrivateKey()));
    const n2 = await nonceFor(wallet.address);
    const message2 = messageFor(wallet.address, n2.nonce);
    expect(errorOf(await verify(message2, await intruder.sign(message2)))).toMatchObject({
      status: 401,
      code: ErrorCode.SIWE_INVALID_SIGNATURE,
    });
  });

  it("signs a contract wallet in before it is deployed (ERC-6492), and leaves it undeployed", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await contractWallet(owner);
    expect(await stack.publicClient.getCode({ address: wallet.address })).toBeUndefined();

    const { nonce } = await nonceFor(wallet.address);
    const message = messageFor(wallet.address, nonce);
    const signature = serializeErc6492Signature({
      address: factory,
      data: wallet.factoryData,
      signature: await wallet.sign(message),
    });
    const r = await verify(message, signature);
    expect(r.status).toBe(200);
    expect(r.json.address).toBe(wallet.address);
    expect(await stack.publicClient.getCode({ address: wallet.address })).toBeUndefined();

    // The same wrapper around a stranger's signature is refused.
    const n2 = await nonceFor(wallet.address);
    const message2 = messageFor(wallet.address, n2.nonce);
    const forged = serializeErc6492Signature({
      address: factory,
      data: wallet.factoryData,
      signature: await privateKeyToAccount(generatePrivateKey()).sign({ hash: hashMessage(message2) }),
    });
    expect(errorOf(await verify(message2, forged))).toMatchObject({
      status: 401,
      code: ErrorCode.SIWE_INVALID_SIGNATURE,
    });
  });

  it("answers 503 CHAIN_UNAVAILABLE when a contract wallet's chain does not answer; an EOA needs no node", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const wallet = await contractWallet(owner);
    const { nonce } = await nonceFor(wallet.address, DEAD_CHAIN);
    const message = messageFor(wallet.address, nonce, { chainId: DEAD_CHAIN });
    const r = await verify(message, await wallet.sign(message));
    expect(errorOf(r)).toEqual({
      status: 503,
      code: ErrorCode.CHAIN_UNAVAILABLE,
      error: `The node of chain ${DEAD_CHAIN} did not answer while checking a contract wallet's signature: try again`,
    });
    const eoa = await signIn(privateKeyToAccount(generatePrivateKey()), { chainId: DEAD_CHAIN });
    expect(eoa.status).toBe(200);
  });

  it("deletes nonces long expired when it issues new ones", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const { nonce } = await nonceFor(account.address);
    clock.offset += 2 * SIWE_NONCE_TTL_MS + 1000;
    try {
      await nonceFor(account.address);
      const row = await svc.service.ctx.db
        .selectFrom("siwe_nonces")
        .select("nonce")
        .where("nonce", "=", nonce)
        .executeTakeFirst();
      expect(row).toBeUndefined();
    } finally {
      clock.offset -= 2 * SIWE_NONCE_TTL_MS + 1000;
    }
  });
});

describe("Sign-In with Ethereum's refusals", () => {
  it("are the same on both databases, with these statuses, codes and messages", () => {
    expect(refusals.postgres).toEqual(refusals.sqlite);
    expect(refusals.sqlite).toMatchInlineSnapshot(`
      {
        "a field twice": {
          "code": "SIWE_INVALID_MESSAGE",
          "error": "The message is not an EIP-4361 message: 'Issued At:' is missing or out of order",
          "status": 400,
        },
        "address not the nonce's": {
          "code": "SIWE_NONCE_MISMATCH",
          "error": "The message's address or chain is not the one its nonce was issued for",
          "status": 400,
        },
        "bad JSON": {
          "code": "INVALID_JSON",
          "error": "The request body is not valid JSON",
          "status": 400,
        },
        "bad address": {
          "code": "INVALID_REQUEST",
          "error": "Invalid request: address: must be an EVM address: 0x followed by 40 hex digits",
          "status": 400,
        },
        "chain not served (nonce)": {
          "code": "SIWE_CHAIN_NOT_SUPPORTED",
          "error": "Chain 1 is not supported here; supported chains: 31337, 10",
          "status": 400,
        },
        "chain not served (verify)": {
          "code": "SIWE_CHAIN_NOT_SUPPORTED",
          "error": "Chain 1 is not supported here; supported chains: 31337, 10",
          "status": 400,
        },
        "chain not the nonce's": {
          "code": "SIWE_NONCE_MISMATCH",
          "error": "The message's address or chain is not the one its nonce was issued for",
          "status": 400,
        },
        "expired message": {
          "code": "SIWE_MESSAGE_EXPIRED",
          "error": "The message has expired (Expiration Time)",
          "status": 400,
        },
        "garbage token": {
          "code": "SIWE_TOKEN_INVALID",
          "error": "The token is not a valid SIWE session of this app, or has expired",
          "status": 401,
        },
        "issued in the future": {
          "code": "SIWE_MESSAGE_NOT_YET_VALID",
          "error": "The message is issued in the future (Issued At)",
          "status": 400,
        },
        "message too long": {
          "code": "INVALID_REQUEST",
          "error": "Invalid request: message: Too big: expected string to have <=4096 characters",
          "status": 400,
        },
        "no API key": {
          "code": "UNAUTHENTICATED",
          "error": "Missing app API key (Authorization: Bearer <key or JWT>)",
          "status": 401,
        },
        "no signature": {
          "code": "INVALID_REQUEST",
          "error": "Invalid request: signature: Invalid input: expected string, received undefined",
          "status": 400,
        },
        "not a signature": {
          "code": "SIWE_INVALID_SIGNATURE",
          "error": "The signature is not the address's",
          "status": 401,
        },
        "not before ahead": {
          "code": "SIWE_MESSAGE_NOT_YET_VALID",
          "error": "The message is not valid yet (Not Before)",
          "status": 400,
        },
        "other domain": {
          "code": "SIWE_DOMAIN_NOT_ALLOWED",
          "error": "The message's domain evil.example is not one of the app's allowed origins",
          "status": 403,
        },
        "other uri": {
          "code": "SIWE_URI_NOT_ALLOWED",
          "error": "The message's URI is not on one of the app's allowed origins",
          "status": 403,
        },
        "plain text": {
          "code": "SIWE_INVALID_MESSAGE",
          "error": "The message is not an EIP-4361 message: the first line must end with 'wants you to sign in…'",
          "status": 400,
        },
        "scheme of another origin": {
          "code": "SIWE_DOMAIN_NOT_ALLOWED",
          "error": "The message's domain http://app.example is not one of the app's allowed origins",
          "status": 403,
        },
        "signed by another key": {
          "code": "SIWE_INVALID_SIGNATURE",
          "error": "The signature is not the address's",
          "status": 401,
        },
        "text after the fields": {
          "code": "SIWE_INVALID_MESSAGE",
          "error": "The message is not an EIP-4361 message: line 11 is not part of the grammar",
          "status": 400,
        },
      }
    `);
  });
});

describe("Sign-In with Ethereum on a service without chains", () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({
      smtpUrl: NO_MAIL,
      apps: [SIWE_APP],
      rateLimits: { siweNoncesPerIp: 3 },
      logLevel: "silent",
    });
  });
  afterAll(async () => {
    await svc?.close();
  });

  it("signs EOAs in on any chain, refuses contract wallets' signatures it cannot check, and limits nonces per network", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const nonce = await post(svc.url, "/signer/v1/siwe/nonce", { address: account.address, chainId: 1 }, KEY);
    expect(nonce.status).toBe(200);
    const message = createSiweMessage({
      domain: "app.example",
      address: account.address,
      uri: "https://app.example",
      version: "1",
      chainId: 1,
      nonce: nonce.json.nonce as string,
    });
    const ok = await post(
      svc.url,
      "/signer/v1/siwe/verify",
      { message, signature: await account.signMessage({ message }) },
      KEY,
    );
    expect(ok.status).toBe(200);

    const wallet = "0x000000000000000000000000000000000000dEaD";
    const n2 = await post(svc.url, "/signer/v1/siwe/nonce", { address: wallet, chainId: 1 }, KEY);
    const message2 = createSiweMessage({
      domain: "app.example",
      address: wallet,
      uri: "https://app.example",
      version: "1",
      chainId: 1,
      nonce: n2.json.nonce as string,
    });
    const refused = await post(
      svc.url,
      "/signer/v1/siwe/verify",
      { message: message2, signature: await account.signMessage({ message: message2 }) },
      KEY,
    );
    expect(errorOf(refused)).toEqual({
      status: 401,
      code: ErrorCode.SIWE_INVALID_SIGNATURE,
      error:
        "The signature is not the address's (no node of chain 1 is configured here to check a contract wallet's signature)",
    });

    const third = await post(svc.url, "/signer/v1/siwe/nonce", { address: wallet, chainId: 1 }, KEY);
    expect(third.status).toBe(200);
    const limited = await post(svc.url, "/signer/v1/siwe/nonce", { address: wallet, chainId: 1 }, KEY);
    expect(errorOf(limited)).toMatchObject({ status: 429, code: ErrorCode.RATE_LIMITED });
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });
});
