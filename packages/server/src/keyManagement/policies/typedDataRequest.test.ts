import type { TypedDataDefinition } from "viem";
import { describe, expect, it } from "vitest";
import { typedDataRequest } from "./typedDataRequest";

const TOKEN = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48";
const TOKEN_L = TOKEN.toLowerCase();
const SPENDER = "0x000000000022D473030F116dDEE9F6B43aC78BA3";
const SPENDER_L = SPENDER.toLowerCase();
const OWNER = "0x9858EfFD232B4033E47d90003D41EC34EcaEda94";
const MAX = 2n ** 256n - 1n;

const t = (
  primaryType: string,
  types: Record<string, { name: string; type: string }[]>,
  message: Record<string, unknown>,
  domain: Record<string, unknown> = { chainId: 1, verifyingContract: TOKEN },
) => ({ domain, types, primaryType, message }) as unknown as TypedDataDefinition;

const fieldsOf = (spec: string) =>
  spec.split(",").map((f) => {
    const [type, name] = f.split(" ") as [string, string];
    return { type, name };
  });

const ERC2612 = fieldsOf("address owner,address spender,uint256 value,uint256 nonce,uint256 deadline");
const DAI = fieldsOf("address holder,address spender,uint256 nonce,uint256 expiry,bool allowed");
const ERC4494 = fieldsOf("address spender,uint256 tokenId,uint256 nonce,uint256 deadline");
const DETAILS = fieldsOf("address token,uint160 amount,uint48 expiration,uint48 nonce");
const TOKEN_PERMISSIONS = fieldsOf("address token,uint256 amount");
const USER_OP = fieldsOf(
  "address sender,uint256 nonce,bytes initCode,bytes callData,bytes32 accountGasLimits,uint256 preVerificationGas,bytes32 gasFees,bytes paymasterAndData",
);

describe("typedDataRequest", () => {
  it("an EIP-2612 permit is an approval of its value on the domain's token", () => {
    const r = typedDataRequest(
      t("Permit", { Permit: ERC2612 }, { owner: OWNER, spender: SPENDER, value: "1000" }),
    );
    expect(r).toEqual({
      kind: "typedData",
      chainId: 1,
      primaryType: "Permit",
      verifyingContract: TOKEN_L,
      approvals: [{ token: TOKEN_L, spender: SPENDER_L, amount: 1000n }],
    });
  });

  it("DAI's permit approves everything when allowed, nothing when not", () => {
    const allowed = typedDataRequest(
      t("Permit", { Permit: DAI }, { holder: OWNER, spender: SPENDER, allowed: true }),
    );
    expect(allowed.kind === "typedData" && allowed.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: MAX },
    ]);
    const revoked = typedDataRequest(
      t("Permit", { Permit: DAI }, { holder: OWNER, spender: SPENDER, allowed: false }),
    );
    expect(revoked.kind === "typedData" && revoked.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: 0n },
    ]);
  });

  it("an EIP-4494 (NFT) permit approves its token id", () => {
    const r = typedDataRequest(t("Permit", { Permit: ERC4494 }, { spender: SPENDER, tokenId: "42" }));
    expect(r.kind === "typedData" && r.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: 42n },
    ]);
  });

  it("Permit2's PermitSingle and PermitBatch approve each detail's token", () => {
    const single = typedDataRequest(
      t(
        "PermitSingle",
        {
          PermitSingle: fieldsOf("PermitDetails details,address spender,uint256 sigDeadline"),
          PermitDetails: DETAILS,
        },
        { details: { token: TOKEN, amount: "5" }, spender: SPENDER },
        { chainId: 1, verifyingContract: SPENDER },
      ),
    );
    expect(single.kind === "typedData" && single.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: 5n },
    ]);
    const batch = typedDataRequest(
      t(
        "PermitBatch",
        {
          PermitBatch: fieldsOf("PermitDetails[] details,address spender,uint256 sigDeadline"),
          PermitDetails: DETAILS,
        },
        {
          details: [
            { token: TOKEN, amount: "5" },
            { token: OWNER, amount: "6" },
          ],
          spender: SPENDER,
        },
      ),
    );
    expect(batch.kind === "typedData" && batch.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: 5n },
      { token: OWNER.toLowerCase(), spender: SPENDER_L, amount: 6n },
    ]);
  });

  it("Permit2's signature transfers (single, batch, with a witness) approve what they permit", () => {
    const single = typedDataRequest(
      t(
        "PermitTransferFrom",
        {
          PermitTransferFrom: fieldsOf(
            "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline",
          ),
          TokenPermissions: TOKEN_PERMISSIONS,
        },
        { permitted: { token: TOKEN, amount: "7" }, spender: SPENDER },
      ),
    );
    expect(single.kind === "typedData" && single.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: 7n },
    ]);
    const witnessBatch = typedDataRequest(
      t(
        "PermitBatchWitnessTransferFrom",
        {
          PermitBatchWitnessTransferFrom: fieldsOf(
            "TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,Order witness",
          ),
          TokenPermissions: TOKEN_PERMISSIONS,
          Order: fieldsOf("uint256 id"),
        },
        { permitted: [{ token: TOKEN, amount: "8" }], spender: SPENDER },
      ),
    );
    expect(witnessBatch.kind === "typedData" && witnessBatch.approvals).toEqual([
      { token: TOKEN_L, spender: SPENDER_L, amount: 8n },
    ]);
  });

  it("a permit whose types are not the canonical ones approves nothing (its contract would not accept it)", () => {
    const renamed = ERC2612.map((f) => (f.name === "value" ? { ...f, name: "amount" } : f));
    const reordered = [ERC2612[1], ERC2612[0], ...ERC2612.slice(2)] as typeof ERC2612;
    for (const types of [{ Permit: renamed }, { Permit: reordered }]) {
      const r = typedDataRequest(
        t("Permit", types, { owner: OWNER, spender: SPENDER, value: "1", amount: "1" }),
      );
      expect(r.kind === "typedData" && r.approvals).toEqual([]);
    }
    // The right fields under another primary type, without a token, or without a spender.
    const other = typedDataRequest(
      t("Approval", { Approval: ERC2612 }, { owner: OWNER, spender: SPENDER, value: "1" }),
    );
    expect(other.kind === "typedData" && other.approvals).toEqual([]);
    for (const kind of [ERC2612, DAI, ERC4494]) {
      const noToken = typedDataRequest(
        t(
          "Permit",
          { Permit: kind },
          { spender: SPENDER, value: "1", tokenId: "1", allowed: true },
          { chainId: 1 },
        ),
      );
      expect(noToken).toMatchObject({ verifyingContract: null, approvals: [] });
      const noSpender = typedDataRequest(
        t("Permit", { Permit: kind }, { value: "1", tokenId: "1", allowed: true }),
      );
      expect(noSpender.kind === "typedData" && noSpender.approvals).toEqual([]);
    }
    // DAI's and EIP-4494's fields under another primary type are not a permit either.
    for (const kind of [DAI, ERC4494]) {
      const renamedType = typedDataRequest(
        t("Approval", { Approval: kind }, { holder: OWNER, spender: SPENDER, tokenId: "1", allowed: true }),
      );
      expect(renamedType.kind === "typedData" && renamedType.approvals).toEqual([]);
    }
    // Permit2's shapes only as the whole type: a field before or after them is another type.
    const padded = (spec: string, extra: "before" | "after") =>
      extra === "before" ? fieldsOf(`uint256 x,${spec}`) : fieldsOf(`${spec},uint256 x`);
    for (const extra of ["before", "after"] as const) {
      const allowance = typedDataRequest(
        t(
          "PermitSingle",
          {
            PermitSingle: padded("PermitDetails details,address spender,uint256 sigDeadline", extra),
            PermitDetails: DETAILS,
          },
          { details: { token: TOKEN, amount: "5" }, spender: SPENDER },
        ),
      );
      expect(allowance.kind === "typedData" && allowance.approvals, extra).toEqual([]);
    }
    const transferPadded = typedDataRequest(
      t(
        "PermitTransferFrom",
        {
          PermitTransferFrom: padded(
            "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline",
            "before",
          ),
          TokenPermissions: TOKEN_PERMISSIONS,
        },
        { permitted: { token: TOKEN, amount: "7" }, spender: SPENDER },
      ),
    );
    expect(transferPadded.kind === "typedData" && transferPadded.approvals).toEqual([]);
    const permit2NoSpender = typedDataRequest(
      t(
        "PermitSingle",
        {
          PermitSingle: fieldsOf("PermitDetails details,address spender,uint256 sigDeadline"),
          PermitDetails: DETAILS,
        },
        { details: { token: TOKEN, amount: "5" } },
      ),
    );
    expect(permit2NoSpender.kind === "typedData" && permit2NoSpender.approvals).toEqual([]);
    const permit2WrongDetails = typedDataRequest(
      t(
        "PermitSingle",
        {
          PermitSingle: fieldsOf("PermitDetails details,address spender,uint256 sigDeadline"),
          PermitDetails: TOKEN_PERMISSIONS,
        },
        { details: { token: TOKEN, amount: "5" }, spender: SPENDER },
      ),
    );
    expect(permit2WrongDetails.kind === "typedData" && permit2WrongDetails.approvals).toEqual([]);
    const transferWrongPermissions = typedDataRequest(
      t(
        "PermitTransferFrom",
        {
          PermitTransferFrom: fieldsOf(
            "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline",
          ),
          TokenPermissions: DETAILS,
        },
        { permitted: { token: TOKEN, amount: "7" }, spender: SPENDER },
      ),
    );
    expect(transferWrongPermissions.kind === "typedData" && transferWrongPermissions.approvals).toEqual([]);
    const transferNoSpender = typedDataRequest(
      t(
        "PermitTransferFrom",
        {
          PermitTransferFrom: fieldsOf(
            "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline",
          ),
          TokenPermissions: TOKEN_PERMISSIONS,
        },
        { permitted: { token: TOKEN, amount: "7" } },
      ),
    );
    expect(transferNoSpender.kind === "typedData" && transferNoSpender.approvals).toEqual([]);
    const notPermitted = typedDataRequest(
      t(
        "Transfer",
        {
          Transfer: fieldsOf("address to,address spender,uint256 nonce"),
          TokenPermissions: TOKEN_PERMISSIONS,
        },
        { to: OWNER, spender: SPENDER },
      ),
    );
    expect(notPermitted.kind === "typedData" && notPermitted.approvals).toEqual([]);
  });

  it("a PackedUserOperation is the EntryPoint's call to its sender, whatever entry point the domain names", () => {
    const r = typedDataRequest(
      t(
        "PackedUserOperation",
        { PackedUserOperation: USER_OP },
        { sender: OWNER, callData: "0xB61D27F6AB" },
        { chainId: "0x2105", verifyingContract: SPENDER },
      ),
      OWNER,
    );
    expect(r).toEqual({
      kind: "userOperation",
      chainId: 8453,
      sender: OWNER.toLowerCase(),
      calls: [{ to: OWNER.toLowerCase(), data: "0xb61d27f6ab", value: 0n }],
      signer: OWNER.toLowerCase(),
    });
    for (const signer of [
      undefined,
      "HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk",
      `${OWNER}00`,
      OWNER.slice(2).padStart(42, "1"),
    ]) {
      const without = typedDataRequest(
        t("PackedUserOperation", { PackedUserOperation: USER_OP }, { sender: OWNER, callData: "0x" }),
        signer,
      );
      expect(without, String(signer)).not.toHaveProperty("signer");
    }
  });

  it("reads the domain's chain id from a number, a decimal or hex string or a bigint, and nothing else", () => {
    const chainOf = (chainId: unknown) => {
      const r = typedDataRequest(
        t("Mail", { Mail: fieldsOf("string contents") }, { contents: "hi" }, { chainId }),
      );
      return r.kind === "typedData" ? r.chainId : "not typed data";
    };
    expect(chainOf(10)).toBe(10);
    expect(chainOf("137")).toBe(137);
    expect(chainOf("0x89")).toBe(137);
    expect(chainOf(8453n)).toBe(8453);
    expect(chainOf(0)).toBe(0);
    expect(chainOf(Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of [-1, 2 ** 53, "1.5", "abc", true, null, undefined, {}, 1.5]) {
      expect(chainOf(bad), String(bad)).toBeUndefined();
    }
    const noDomain = typedDataRequest({
      types: { Mail: [] },
      primaryType: "Mail",
      message: {},
    } as unknown as TypedDataDefinition);
    expect(noDomain).toEqual({
      kind: "typedData",
      chainId: undefined,
      primaryType: "Mail",
      verifyingContract: null,
      approvals: [],
    });
  });
});
