import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import {
  encodeFunctionData,
  getContractAddress,
  type Hex,
  hashTypedData,
  parseAbi,
  serializeTransaction,
  type TypedDataDefinition,
} from "viem";
import { entryPoint08Address, getUserOperationTypedData } from "viem/account-abstraction";
import { describe, expect, it } from "vitest";
import { simpleAccountCallsAbi } from "../../userOperations/decodeCalls";
import { callsOf, nativeValueOf } from "./callsOf";
import { describeSigningPolicy } from "./describePolicy";
import { evaluatePolicy, type SigningRequest } from "./evaluatePolicy";
import { ownAccounts, simpleAccountAddress } from "./ownAccounts";
import {
  holdsForApproval,
  SIMPLE_7702_ACCOUNT,
  type SigningPolicyConfig,
  signingPolicySchema,
} from "./policySchema";
import { payloadSigningRequest, readStructuredPayload, structuredDigest } from "./structuredPayloads";
import { parseUnsignedTransaction, transactionSigningRequest } from "./unsignedTransaction";

const BURN = "0x000000000000000000000000000000000000dead";
const TOKEN = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const FRIEND = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const TRANSFER = "0xa9059cbb";
const ADMIN = { name: "ops", publicKey: `02${"11".repeat(32)}` };
const ETH = 10n ** 18n;

const policy = (config: SigningPolicyConfig) => signingPolicySchema.parse(config);
const tx = (over: Partial<Extract<SigningRequest, { kind: "transaction" }>> = {}): SigningRequest => ({
  kind: "transaction",
  chainId: 1,
  to: FRIEND,
  data: "0x",
  value: 0n,
  ...over,
});

describe("evaluatePolicy", () => {
  it("allows everything without a policy, and with an empty one", () => {
    expect(evaluatePolicy(undefined, tx())).toEqual({ effect: "allow" });
    expect(evaluatePolicy(policy({}), tx())).toEqual({ effect: "allow" });
    expect(evaluatePolicy(policy({}), { kind: "rawPayload" })).toEqual({ effect: "allow" });
  });

  it("denies a contract, naming the rule and its description", () => {
    const p = policy({
      rules: [{ id: "no-burn", effect: "deny", contracts: [BURN], description: "Not to the burn address" }],
    });
    expect(evaluatePolicy(p, tx({ to: BURN }))).toEqual({
      effect: "deny",
      ruleId: "no-burn",
      message: 'Refused by signing policy rule "no-burn": Not to the burn address',
    });
    expect(evaluatePolicy(p, tx()).effect).toBe("allow");
    // A contract creation has no `to`: a contracts rule never matches it.
    expect(evaluatePolicy(p, tx({ to: null })).effect).toBe("allow");
  });

  it("caps the value: only more than valueAboveWei matches", () => {
    const p = policy({ rules: [{ id: "cap", effect: "deny", valueAboveWei: String(ETH) }] });
    expect(evaluatePolicy(p, tx({ value: ETH })).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ value: ETH + 1n }))).toMatchObject({ effect: "deny", ruleId: "cap" });
  });

  it("matches chains and selectors; a call without a selector matches no selectors rule", () => {
    const p = policy({
      rules: [
        { id: "no-token-transfer", effect: "deny", chainIds: [1], contracts: [TOKEN], selectors: [TRANSFER] },
      ],
    });
    const transfer = `${TRANSFER}${"00".repeat(64)}` as const;
    const token = TOKEN.toLowerCase() as `0x${string}`;
    expect(evaluatePolicy(p, tx({ to: token, data: transfer })).effect).toBe("deny");
    expect(evaluatePolicy(p, tx({ to: token, data: transfer, chainId: 10 })).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ to: token, data: "0x095ea7b3" })).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ to: token, data: "0xa905" })).effect).toBe("allow");
    // Selectors compare in any case.
    expect(evaluatePolicy(p, tx({ to: token, data: "0xA9059CBB" })).effect).toBe("deny");
  });

  it("takes the strictest matching effect whatever the order: deny > needs_approval > allow", () => {
    const rules = [
      { id: "friends", effect: "allow" as const, contracts: [FRIEND] },
      { id: "large", effect: "needs_approval" as const, valueAboveWei: String(ETH) },
      { id: "huge", effect: "deny" as const, valueAboveWei: String(100n * ETH) },
    ];
    for (const ordered of [rules, [...rules].reverse()]) {
      const p = policy({ rules: ordered, adminKeys: [ADMIN] });
      expect(evaluatePolicy(p, tx({ value: 1n }))).toEqual({ effect: "allow", ruleId: "friends" });
      expect(evaluatePolicy(p, tx({ value: 2n * ETH }))).toMatchObject({
        effect: "needs_approval",
        ruleId: "large",
      });
      expect(evaluatePolicy(p, tx({ value: 101n * ETH }))).toMatchObject({ effect: "deny", ruleId: "huge" });
    }
  });

  it("with default deny, only what an allow rule matches is signed", () => {
    const p = policy({ default: "deny", rules: [{ id: "mainnet", effect: "allow", chainIds: [1] }] });
    expect(evaluatePolicy(p, tx()).effect).toBe("allow");
    expect(evaluatePolicy(p, tx({ chainId: 5 }))).toEqual({
      effect: "deny",
      ruleId: "default",
      message: "Refused by the signing policy: no rule allows this transaction",
    });
  });

  it("a transaction without a chain id matches every deny rule's chains and no allow rule's", () => {
    const allowOnly = policy({ default: "deny", rules: [{ id: "mainnet", effect: "allow", chainIds: [1] }] });
    expect(evaluatePolicy(allowOnly, tx({ chainId: undefined })).effect).toBe("deny");
    const denyOne = policy({ rules: [{ id: "not-mainnet", effect: "deny", chainIds: [1] }] });
    expect(evaluatePolicy(denyOne, tx({ chainId: undefined })).effect).toBe("deny");
  });

  it("decides raw payloads by rawPayloads alone", () => {
    const deny = policy({ rawPayloads: "deny", rules: [{ id: "all", effect: "allow" }] });
    expect(evaluatePolicy(deny, { kind: "rawPayload" })).toMatchObject({
      effect: "deny",
      ruleId: "rawPayloads",
    });
    const held = policy({ rawPayloads: "needs_approval", adminKeys: [ADMIN] });
    expect(evaluatePolicy(held, { kind: "rawPayload" }).effect).toBe("needs_approval");
  });

  it("refuses configs that could never work", () => {
    const issues = (config: unknown) => {
      const r = signingPolicySchema.safeParse(config);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    };
    // Holding without admin keys is allowed: the app's console admins approve (serve warns when there are none).
    expect(issues({ rules: [{ id: "a", effect: "needs_approval" }] })).toEqual([]);
    expect(
      issues({
        rules: [
          { id: "a", effect: "deny" },
          { id: "a", effect: "allow" },
        ],
      }),
    ).toEqual(["rules.1.id: rule a is listed twice"]);
    expect(issues({ rules: [{ id: "a", effect: "deny", valueAboveWei: 5 }] })[0]).toContain("decimal string");
    expect(issues({ rules: [{ id: "a", effect: "deny", contracts: ["0x12"] }] })[0]).toContain("EVM address");
    expect(issues({ rules: [{ id: "a", effect: "maybe" }] })[0]).toContain("rules.0.effect");
    expect(issues({ adminKeys: [{ name: "x", publicKey: "04ab" }] })[0]).toContain("compressed P-256");
    expect(issues({ rules: [{ id: "a", effect: "deny", to: BURN }] })[0]).toContain("rules.0");
  });

  it("denies what a rule describes, whatever it is signed as; a raw digest by rawPayloads's default", () => {
    const noBurn = { id: "no-burn", effect: "deny" as const, contracts: [BURN] };
    const defaults = (config: SigningPolicyConfig) => evaluatePolicy(policy(config), { kind: "rawPayload" });
    expect(defaults({}).effect).toBe("allow");
    expect(defaults({ rules: [noBurn] })).toEqual({
      effect: "deny",
      ruleId: "rawPayloads",
      message:
        "Refused by the signing policy: this app does not sign bare hashes (raw payloads), which no rule can read",
    });
    expect(defaults({ default: "deny" }).effect).toBe("deny");
    expect(defaults({ rules: [noBurn], adminKeys: [ADMIN] }).effect).toBe("needs_approval");
    expect(defaults({ rules: [noBurn], rawPayloads: "allow" }).effect).toBe("allow");
    // Parsing the parsed policy again (as the dev app's restart does) keeps it.
    const parsed = policy({ rules: [noBurn] });
    expect(signingPolicySchema.parse(parsed)).toEqual(parsed);
    // Solana payloads: EVM rules do not describe them; an explicit rawPayloads still covers them.
    expect(evaluatePolicy(policy({ rules: [noBurn] }), { kind: "solanaPayload" }).effect).toBe("allow");
    expect(evaluatePolicy(policy({ rawPayloads: "deny" }), { kind: "solanaPayload" }).effect).toBe("deny");
    expect(
      evaluatePolicy(policy({ rawPayloads: "deny", solanaPayloads: "allow" }), { kind: "solanaPayload" })
        .effect,
    ).toBe("allow");
    // Messages (EIP-191) follow `messages`.
    expect(evaluatePolicy(policy({ rules: [noBurn] }), { kind: "message" }).effect).toBe("allow");
    expect(evaluatePolicy(policy({ messages: "deny" }), { kind: "message" }).ruleId).toBe("messages");
  });

  it("reads a permit as the approve call it is: EIP-2612, DAI, Permit2 single and batch", () => {
    const SPENDER = "0x1111111111111111111111111111111111111111";
    const token = TOKEN.toLowerCase();
    const p = policy({
      rules: [
        { id: "no-approve-token", effect: "deny", contracts: [TOKEN], selectors: ["0x095ea7b3"] },
        { id: "no-spender", effect: "deny", spenders: [SPENDER] },
        { id: "cap", effect: "needs_approval", amountAbove: "1000000", primaryTypes: ["PermitSingle"] },
      ],
      adminKeys: [ADMIN],
    });
    const OTHER_TOKEN = "0x2222222222222222222222222222222222222222";
    const decide = (typedData: unknown) => evaluatePolicy(p, requestOf(typedData));
    expect(decide(permit({ token: TOKEN, spender: FRIEND, value: 5n }))).toMatchObject({
      effect: "deny",
      ruleId: "no-approve-token",
    });
    expect(decide(permit({ token: OTHER_TOKEN, spender: SPENDER, value: 5n })).ruleId).toBe("no-spender");
    expect(decide(permit({ token: OTHER_TOKEN, spender: FRIEND, value: 5n }))).toEqual({ effect: "allow" });
    expect(decide(daiPermit({ token: OTHER_TOKEN, spender: SPENDER })).ruleId).toBe("no-spender");
    expect(decide(permit2Single({ token: OTHER_TOKEN, spender: FRIEND, amount: 2_000_000n })).effect).toBe(
      "needs_approval",
    );
    expect(decide(permit2Single({ token: OTHER_TOKEN, spender: FRIEND, amount: 10n })).effect).toBe("allow");
    expect(decide(permit2Batch([OTHER_TOKEN, TOKEN], FRIEND)).ruleId).toBe("no-approve-token");
    expect(decide(permit2Transfer(TOKEN, FRIEND)).ruleId).toBe("no-approve-token");
    expect(decide(permit2Transfer(OTHER_TOKEN, FRIEND)).effect).toBe("allow");
    expect(decide(nftPermit(OTHER_TOKEN, SPENDER)).ruleId).toBe("no-spender");
    // Renamed fields sign nothing a token accepts: read as other typed data (allowed by `typedData`).
    const renamed = permit({ token: TOKEN, spender: FRIEND, value: 5n });
    renamed.types.Permit[1] = { name: "to", type: "address" };
    expect(requestOf({ ...renamed, message: { ...renamed.message, to: FRIEND } })).toMatchObject({
      kind: "typedData",
      approvals: [],
    });
    // The same approve as a transaction, and inside a user operation.
    const approve = encodeFunctionData({
      abi: parseAbi(["function approve(address,uint256)"]),
      args: [SPENDER, 1n],
    });
    expect(
      evaluatePolicy(p, tx({ to: "0x2222222222222222222222222222222222222222", data: approve })).ruleId,
    ).toBe("no-spender");
    expect(requestOf(permit({ token: TOKEN, spender: FRIEND, value: 5n }))).toMatchObject({
      kind: "typedData",
      approvals: [{ token, spender: FRIEND, amount: 5n }],
    });
  });

  it("reads a user operation's calls: the strictest call decides; undecodable data is refused when the app has rules", () => {
    const p = policy({ rules: [{ id: "no-burn", effect: "deny", contracts: [BURN] }] });
    const SENDER = "0x3333333333333333333333333333333333333333";
    const execute = (to: Hex) =>
      encodeFunctionData({ abi: simpleAccountCallsAbi, functionName: "execute", args: [to, 0n, "0x"] });
    const batch = encodeFunctionData({
      abi: simpleAccountCallsAbi,
      functionName: "executeBatch",
      args: [
        [
          { target: FRIEND, value: 1n, data: "0x" },
          { target: BURN, value: 0n, data: "0x" },
        ],
      ],
    });
    expect(evaluatePolicy(p, requestOf(userOperation(SENDER, execute(FRIEND)))).effect).toBe("allow");
    expect(evaluatePolicy(p, requestOf(userOperation(SENDER, execute(BURN)))).ruleId).toBe("no-burn");
    expect(evaluatePolicy(p, requestOf(userOperation(SENDER, batch))).ruleId).toBe("no-burn");
    // The EntryPoint calls the sender with the operation's call data; the sender runs what it decodes.
    expect(requestOf(userOperation(SENDER, "0xdeadbeef"))).toMatchObject({
      kind: "userOperation",
      chainId: 1,
      sender: SENDER,
      calls: [{ to: SENDER, data: "0xdeadbeef", value: 0n }],
    });
    expect(evaluatePolicy(p, requestOf(userOperation(SENDER, "0xdeadbeef")))).toMatchObject({
      effect: "deny",
      ruleId: "ownAccountCalls",
    });
    expect(evaluatePolicy(policy({}), requestOf(userOperation(SENDER, "0xdeadbeef"))).effect).toBe("allow");
    const onlyFriends = policy({
      default: "deny",
      rules: [{ id: "friends", effect: "allow", contracts: [FRIEND] }],
    });
    expect(evaluatePolicy(onlyFriends, requestOf(userOperation(SENDER, "0xdeadbeef"))).ruleId).toBe(
      "ownAccountCalls",
    );
  });

  it("other typed data: only rules naming primaryTypes match it, else `typedData` decides", () => {
    const mail = {
      domain: { name: "Mail", chainId: 1, verifyingContract: TOKEN },
      types: { Mail: [{ name: "contents", type: "string" }] },
      primaryType: "Mail",
      message: { contents: "hi" },
    };
    const all = { id: "all", effect: "deny" as const };
    expect(evaluatePolicy(policy({ rules: [all] }), requestOf(mail)).effect).toBe("allow");
    expect(evaluatePolicy(policy({ rules: [all], typedData: "deny" }), requestOf(mail)).ruleId).toBe(
      "typedData",
    );
    // An allow-list app (default deny) signs only the typed data its rules name, unless it says otherwise.
    const allowList = policy({
      default: "deny",
      rules: [{ id: "mail", effect: "allow", primaryTypes: ["Mail"] }],
    });
    expect(evaluatePolicy(allowList, requestOf(mail))).toEqual({ effect: "allow", ruleId: "mail" });
    const other = { ...mail, primaryType: "Other", types: { Other: mail.types.Mail } };
    expect(evaluatePolicy(allowList, requestOf(other))).toMatchObject({
      effect: "deny",
      ruleId: "typedData",
    });
    expect(evaluatePolicy(policy({ default: "deny", typedData: "allow" }), requestOf(mail)).effect).toBe(
      "allow",
    );
    const noMail = { id: "no-mail", effect: "deny" as const, primaryTypes: ["Mail"], contracts: [TOKEN] };
    expect(evaluatePolicy(policy({ rules: [noMail] }), requestOf(mail)).ruleId).toBe("no-mail");
    // A primaryTypes rule never matches a transaction.
    expect(evaluatePolicy(policy({ rules: [noMail] }), tx({ to: TOKEN.toLowerCase() as Hex })).effect).toBe(
      "allow",
    );
  });

  it("EIP-7702: only the allow-listed delegates (default Simple7702Account), whatever rawPayloads says", () => {
    const authorization = (address: string) =>
      payloadSigningRequest({
        signWith: FRIEND,
        payload: JSON.stringify({ chainId: 1, address, nonce: 0 }),
        encoding: "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
        hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
      });
    for (const p of [undefined, policy({ rawPayloads: "allow" })]) {
      expect(evaluatePolicy(p, authorization(FRIEND))).toEqual({
        effect: "deny",
        ruleId: "authorizationDelegates",
        message: `Refused by the signing policy: ${FRIEND} is not an EIP-7702 delegate this app allows (authorizationDelegates)`,
      });
      expect(evaluatePolicy(p, authorization("0xe6Cae83BdE06E4c305530e199D7217f42808555B")).effect).toBe(
        "allow",
      );
      expect(evaluatePolicy(p, authorization(`0x${"00".repeat(20)}`)).effect).toBe("allow");
    }
    const friends = policy({ authorizationDelegates: [FRIEND] });
    expect(evaluatePolicy(friends, authorization(FRIEND)).effect).toBe("allow");
    expect(evaluatePolicy(friends, authorization(SIMPLE_7702_ACCOUNT)).effect).toBe("deny");
    // A type-4 transaction's authorizations too.
    const type4 = (address: Hex) =>
      transactionSigningRequest(
        parseUnsignedTransaction(
          serializeTransaction({
            type: "eip7702",
            chainId: 1,
            nonce: 0,
            to: FRIEND,
            gas: 1n,
            maxFeePerGas: 1n,
            authorizationList: [{ address, chainId: 1, nonce: 0, r: "0x01", s: "0x02", yParity: 0 }],
          }),
        ),
        undefined,
      );
    expect(evaluatePolicy(undefined, type4(FRIEND)).ruleId).toBe("authorizationDelegates");
    expect(evaluatePolicy(undefined, type4(SIMPLE_7702_ACCOUNT)).effect).toBe("allow");
  });

  it("Simple7702Account's canonical address is its v0.8 artifact through the CREATE2 deployer, salt 0", () => {
    const require = createRequire(import.meta.url);
    const artifact = JSON.parse(
      readFileSync(
        require.resolve("@account-abstraction/contracts/artifacts/Simple7702Account.json"),
        "utf8",
      ),
    ) as { bytecode: Hex };
    expect(artifact.bytecode.toLowerCase()).toContain(entryPoint08Address.slice(2).toLowerCase());
    const address = getContractAddress({
      opcode: "CREATE2",
      from: "0x4e59b44847b379578588920ca78fbf26c0b4956c",
      salt: `0x${"00".repeat(32)}`,
      bytecode: artifact.bytecode,
    });
    expect(address.toLowerCase()).toBe(SIMPLE_7702_ACCOUNT);
  });

  it("hashes structured payloads as viem does, and refuses malformed ones", () => {
    const typed = permit({ token: TOKEN, spender: FRIEND, value: 5n });
    const read = readStructuredPayload(
      json(typed),
      "PAYLOAD_ENCODING_EIP712",
      "HASH_FUNCTION_NOT_APPLICABLE",
    );
    expect(Buffer.from(structuredDigest(read)).toString("hex")).toBe(
      hashTypedData(typed as TypedDataDefinition).slice(2),
    );
    const bad = (
      payload: string,
      encoding: "PAYLOAD_ENCODING_EIP712" | "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION",
    ) =>
      (() => {
        try {
          readStructuredPayload(payload, encoding, "HASH_FUNCTION_NOT_APPLICABLE");
          return "";
        } catch (e) {
          return (e as Error).message;
        }
      })();
    expect(bad("{", "PAYLOAD_ENCODING_EIP712")).toBe("payload is not JSON for PAYLOAD_ENCODING_EIP712");
    expect(
      bad(json({ ...typed, message: { ...typed.message, value: "x" } }), "PAYLOAD_ENCODING_EIP712"),
    ).toBe("payload is not valid EIP-712 typed data: a value does not match its type");
    expect(
      bad(json({ chainId: 1, address: "0x12", nonce: 0 }), "PAYLOAD_ENCODING_EIP7702_AUTHORIZATION"),
    ).toBe("payload must be an EIP-7702 authorization: {chainId, address, nonce}");
    expect(() =>
      readStructuredPayload(json(typed), "PAYLOAD_ENCODING_EIP712", "HASH_FUNCTION_KECCAK256"),
    ).toThrow("hashFunction must be HASH_FUNCTION_NOT_APPLICABLE");
  });

  it("says at start what an app's bare hashes get, and why when it is the default", () => {
    const noBurn = { id: "no-burn", effect: "deny" as const, contracts: [BURN] };
    expect(describeSigningPolicy("shop", policy({ rules: [noBurn] }))).toBe(
      "Signing policy of app shop: 1 rule (default allow); bare hashes (raw payloads): deny (the default for an app with transaction rules and no admin keys; set rawPayloads to choose); EIP-7702 delegates: Simple7702Account",
    );
    expect(describeSigningPolicy("shop", policy({ rules: [noBurn], adminKeys: [ADMIN] }))).toContain(
      "bare hashes (raw payloads): needs_approval (the default for an app with transaction rules and admin keys;",
    );
    expect(describeSigningPolicy("shop", policy({ authorizationDelegates: [] }))).toBe(
      "Signing policy of app shop: 0 rules (default allow); bare hashes (raw payloads): allow (the default for an app without transaction rules; set rawPayloads to choose); EIP-7702 delegates: none",
    );
  });

  it("refuses rule settings for typed data that could never work", () => {
    const issue = (rule: object) => {
      const r = signingPolicySchema.safeParse({ rules: [{ id: "a", effect: "deny", ...rule }] });
      return r.success ? "" : `${r.error.issues[0]?.path.join(".")}: ${r.error.issues[0]?.message}`;
    };
    expect(issue({ amountAbove: 5 })).toContain("rules.0.amountAbove: must be a decimal string");
    expect(issue({ spenders: ["0x12"] })).toContain("rules.0.spenders.0: must be an EVM address");
    expect(issue({ primaryTypes: ["Not a type"] })).toBe(
      "rules.0.primaryTypes.0: must be an EIP-712 type name",
    );
    expect(signingPolicySchema.safeParse({ authorizationDelegates: ["0x12"] }).success).toBe(false);
    expect(holdsForApproval(signingPolicySchema.parse({ messages: "needs_approval" }))).toBe(true);
    expect(holdsForApproval(signingPolicySchema.parse({ rules: [{ id: "a", effect: "deny" }] }))).toBe(false);
  });
});

describe("calls through the signer's own accounts", () => {
  const USER = "0x4444444444444444444444444444444444444444";
  const APPROVE_SEL = "0x095ea7b3";
  const exec = (to: Hex, value: bigint, data: Hex = "0x") =>
    encodeFunctionData({ abi: simpleAccountCallsAbi, functionName: "execute", args: [to, value, data] });
  const batchOf = (...calls: [Hex, bigint, Hex][]) =>
    encodeFunctionData({
      abi: simpleAccountCallsAbi,
      functionName: "executeBatch",
      args: [calls.map(([target, value, data]) => ({ target, value, data }))],
    });
  const approveMax = encodeFunctionData({
    abi: parseAbi(["function approve(address,uint256)"]),
    args: [FRIEND, 2n ** 256n - 1n],
  });
  const signed = (over: Partial<Extract<SigningRequest, { kind: "transaction" }>>): SigningRequest => ({
    kind: "transaction",
    chainId: 1,
    signer: USER,
    to: USER,
    data: "0x",
    value: 0n,
    ...over,
  });
  const rules = policy({
    rules: [
      { id: "no-burn", effect: "deny", contracts: [BURN] },
      { id: "no-approve", effect: "deny", contracts: [TOKEN.toLowerCase()], selectors: [APPROVE_SEL] },
    ],
  });
  const caps = policy({
    rules: [
      { id: "cap", effect: "deny", valueAboveWei: (5n * ETH).toString() },
      { id: "big", effect: "needs_approval", valueAboveWei: ETH.toString() },
    ],
    adminKeys: [ADMIN],
  });
  const own = ownAccounts(USER);
  const simpleAccount = simpleAccountAddress({ factory: "SimpleAccountFactory", owner: USER });

  it("the signer's accounts: its EOA and its SimpleAccount and LatchkeySimpleAccount of salt 0", () => {
    expect([...own]).toEqual([
      USER,
      simpleAccount,
      simpleAccountAddress({ factory: "LatchkeySimpleAccountFactory", owner: USER }),
    ]);
    expect(ownAccounts("So1ana1111111111111111111111111111111111111").size).toBe(0);
  });

  it("a 7702 self-call and the owner's call to their SimpleAccount are the calls they run", () => {
    const viaSelf = signed({ data: exec(BURN, ETH / 10n) });
    expect(callsOf(viaSelf)).toEqual({
      calls: [{ to: BURN, data: "0x", value: ETH / 10n }],
      unreadable: null,
    });
    expect(evaluatePolicy(rules, viaSelf)).toMatchObject({ effect: "deny", ruleId: "no-burn" });
    expect(evaluatePolicy(rules, signed({ to: simpleAccount, data: exec(BURN, 1n) })).ruleId).toBe("no-burn");
    expect(evaluatePolicy(rules, signed({ data: exec(FRIEND, 1n) }))).toEqual({ effect: "allow" });
    // Read from a serialized transaction as sign_transaction gets it.
    const serialized = serializeTransaction({
      chainId: 1,
      to: USER,
      data: exec(BURN, 1n),
      gas: 1n,
      maxFeePerGas: 1n,
    });
    expect(
      evaluatePolicy(rules, transactionSigningRequest(parseUnsignedTransaction(serialized), USER)).ruleId,
    ).toBe("no-burn");
    // A plain transfer to self stays a call to self.
    expect(evaluatePolicy(rules, signed({ value: ETH }))).toEqual({ effect: "allow" });
  });

  it("a nested user operation, and an approve nested in a batch", () => {
    const nested = requestOf(userOperation(USER, exec(USER, 0n, exec(BURN, ETH / 10n))));
    expect(evaluatePolicy(rules, nested)).toMatchObject({ effect: "deny", ruleId: "no-burn" });
    const batch = batchOf([TOKEN, 0n, "0xd09de08a"], [USER, 0n, exec(TOKEN, 0n, approveMax)]);
    expect(evaluatePolicy(rules, signed({ data: batch })).ruleId).toBe("no-approve");
    expect(evaluatePolicy(rules, requestOf(userOperation(USER, batch))).ruleId).toBe("no-approve");
    // The same approve as a permit's approval is read as the same call.
    expect(evaluatePolicy(rules, requestOf(userOperation(simpleAccount, exec(FRIEND, 0n)))).effect).toBe(
      "allow",
    );
  });

  it("a value rule sums the calls that meet its other conditions, across a batch and through self-calls", () => {
    expect(evaluatePolicy(caps, signed({ data: exec(FRIEND, 6n * ETH) }))).toMatchObject({
      effect: "deny",
      ruleId: "cap",
    });
    expect(evaluatePolicy(caps, signed({ data: exec(FRIEND, 2n * ETH) }))).toMatchObject({
      effect: "needs_approval",
      ruleId: "big",
    });
    const threeTimesTwo = batchOf(
      [FRIEND, 2n * ETH, "0x"],
      [BURN, 2n * ETH, "0x"],
      [USER, 0n, exec(FRIEND, 2n * ETH)],
    );
    expect(evaluatePolicy(caps, signed({ data: threeTimesTwo })).ruleId).toBe("cap");
    const twoHalves = batchOf([FRIEND, ETH / 2n, "0x"], [TOKEN, ETH / 2n + 1n, "0x"]);
    expect(evaluatePolicy(caps, signed({ data: twoHalves })).ruleId).toBe("big");
    // Only the calls a rule's other conditions match count toward it.
    const toFriend = policy({
      rules: [{ id: "friend-cap", effect: "deny", contracts: [FRIEND], valueAboveWei: ETH.toString() }],
    });
    expect(
      evaluatePolicy(toFriend, signed({ data: batchOf([FRIEND, ETH, "0x"], [TOKEN, ETH, "0x"]) })).effect,
    ).toBe("allow");
    expect(
      evaluatePolicy(toFriend, signed({ data: batchOf([FRIEND, ETH, "0x"], [FRIEND, 1n, "0x"]) })).ruleId,
    ).toBe("friend-cap");
    expect(nativeValueOf(signed({ data: threeTimesTwo }))).toBe(6n * ETH);
  });

  it("a self-call that runs anything else, or nests deeper than 4, is refused when the app has rules", () => {
    const upgrade = encodeFunctionData({
      abi: parseAbi(["function upgradeToAndCall(address,bytes)"]),
      args: [FRIEND, "0x"],
    });
    for (const to of [USER, simpleAccount] as Hex[]) {
      expect(evaluatePolicy(rules, signed({ to, data: upgrade }))).toMatchObject({
        effect: "deny",
        ruleId: "ownAccountCalls",
      });
      expect(evaluatePolicy(policy({}), signed({ to, data: upgrade }))).toEqual({ effect: "allow" });
    }
    expect(evaluatePolicy(policy({ default: "deny" }), signed({ data: "0xdeadbeef" })).ruleId).toBe(
      "ownAccountCalls",
    );
    let deep = exec(FRIEND, 0n);
    for (let i = 0; i < 3; i++) deep = exec(USER, 0n, deep);
    expect(evaluatePolicy(rules, signed({ data: deep }))).toEqual({ effect: "allow" });
    expect(evaluatePolicy(rules, signed({ data: exec(USER, 0n, deep) })).ruleId).toBe("ownAccountCalls");
  });

  it("an execute to an account not known to be the signer's is checked, and so are the calls it runs", () => {
    const other = "0x5555555555555555555555555555555555555555";
    expect(callsOf(signed({ to: other, data: exec(BURN, 1n) })).calls.map((c) => c.to)).toEqual([
      other,
      BURN,
    ]);
    expect(evaluatePolicy(rules, signed({ to: other, data: exec(BURN, 1n) })).ruleId).toBe("no-burn");
    // Without a signer, the signer's EOA is such an account: still read.
    const unsigned: SigningRequest = {
      kind: "transaction",
      chainId: 1,
      to: USER,
      data: exec(BURN, 1n),
      value: 0n,
    };
    expect(evaluatePolicy(rules, unsigned).ruleId).toBe("no-burn");
  });
});

const json = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x));
const requestOf = (typedData: unknown) =>
  payloadSigningRequest({
    signWith: FRIEND,
    payload: json(typedData),
    encoding: "PAYLOAD_ENCODING_EIP712",
    hashFunction: "HASH_FUNCTION_NOT_APPLICABLE",
  });

function permit(p: { token: string; spender: string; value: bigint }) {
  return {
    domain: { name: "Token", version: "1", chainId: 1, verifyingContract: p.token },
    types: {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit",
    message: { owner: FRIEND, spender: p.spender, value: p.value, nonce: 0n, deadline: 2n ** 40n },
  };
}

function daiPermit(p: { token: string; spender: string }) {
  return {
    domain: { name: "Dai Stablecoin", version: "1", chainId: 1, verifyingContract: p.token },
    types: {
      Permit: [
        { name: "holder", type: "address" },
        { name: "spender", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "expiry", type: "uint256" },
        { name: "allowed", type: "bool" },
      ],
    },
    primaryType: "Permit",
    message: { holder: FRIEND, spender: p.spender, nonce: 0n, expiry: 2n ** 40n, allowed: true },
  };
}

const PERMIT2 = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const PERMIT_DETAILS = [
  { name: "token", type: "address" },
  { name: "amount", type: "uint160" },
  { name: "expiration", type: "uint48" },
  { name: "nonce", type: "uint48" },
];
function permit2Single(p: { token: string; spender: string; amount: bigint }) {
  return {
    domain: { name: "Permit2", chainId: 1, verifyingContract: PERMIT2 },
    types: {
      PermitSingle: [
        { name: "details", type: "PermitDetails" },
        { name: "spender", type: "address" },
        { name: "sigDeadline", type: "uint256" },
      ],
      PermitDetails: PERMIT_DETAILS,
    },
    primaryType: "PermitSingle",
    message: {
      details: { token: p.token, amount: p.amount, expiration: 1, nonce: 0 },
      spender: p.spender,
      sigDeadline: 2n ** 40n,
    },
  };
}
function permit2Batch(tokens: string[], spender: string) {
  return {
    domain: { name: "Permit2", chainId: 1, verifyingContract: PERMIT2 },
    types: {
      PermitBatch: [
        { name: "details", type: "PermitDetails[]" },
        { name: "spender", type: "address" },
        { name: "sigDeadline", type: "uint256" },
      ],
      PermitDetails: PERMIT_DETAILS,
    },
    primaryType: "PermitBatch",
    message: {
      details: tokens.map((token) => ({ token, amount: 1n, expiration: 1, nonce: 0 })),
      spender,
      sigDeadline: 2n ** 40n,
    },
  };
}

function permit2Transfer(token: string, spender: string) {
  return {
    domain: { name: "Permit2", chainId: 1, verifyingContract: PERMIT2 },
    types: {
      PermitTransferFrom: [
        { name: "permitted", type: "TokenPermissions" },
        { name: "spender", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
      TokenPermissions: [
        { name: "token", type: "address" },
        { name: "amount", type: "uint256" },
      ],
    },
    primaryType: "PermitTransferFrom",
    message: { permitted: { token, amount: 1n }, spender, nonce: 0n, deadline: 2n ** 40n },
  };
}

function nftPermit(token: string, spender: string) {
  return {
    domain: { name: "NFT", version: "1", chainId: 1, verifyingContract: token },
    types: {
      Permit: [
        { name: "spender", type: "address" },
        { name: "tokenId", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit",
    message: { spender, tokenId: 7n, nonce: 0n, deadline: 2n ** 40n },
  };
}

function userOperation(sender: Hex, callData: Hex) {
  return getUserOperationTypedData({
    chainId: 1,
    entryPointAddress: entryPoint08Address,
    userOperation: {
      sender,
      nonce: 0n,
      callData,
      callGasLimit: 100000n,
      verificationGasLimit: 100000n,
      preVerificationGas: 50000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
      signature: "0x",
    },
  });
}
