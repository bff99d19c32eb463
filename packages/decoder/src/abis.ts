import { parseAbi } from "viem";

/**
 * SimpleAccount v0.8's two ways to call out (BaseAccount in @account-abstraction/contracts@0.8), which
 * Simple7702Account inherits: the same ABI as packages/server/src/userOperations/decodeCalls.ts.
 */
export const accountCallsAbi = parseAbi([
  "function execute(address target, uint256 value, bytes data)",
  "function executeBatch((address target, uint256 value, bytes data)[] calls)",
]);

/** `execute(address,uint256,bytes)` and `executeBatch((address,uint256,bytes)[])` (checked in decodeCall.test.ts). */
export const ACCOUNT_CALL_SELECTORS: readonly string[] = ["0xb61d27f6", "0x34fcd5be"];

/**
 * The token calls the decoder names. ERC-20 and ERC-721 share `transferFrom` and `approve` (one
 * selector each): the contract's metadata tells them apart (decodeCall.ts).
 */
export const tokenCallsAbi = parseAbi([
  "function transfer(address to, uint256 amount)",
  "function transferFrom(address from, address to, uint256 value)",
  "function approve(address spender, uint256 value)",
  "function increaseAllowance(address spender, uint256 addedValue)",
  "function safeTransferFrom(address from, address to, uint256 tokenId)",
  "function safeTransferFrom(address from, address to, uint256 tokenId, bytes data)",
  "function setApprovalForAll(address operator, bool approved)",
  "function safeTransferFrom(address from, address to, uint256 id, uint256 amount, bytes data)",
  "function safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] amounts, bytes data)",
]);

/** The metadata calls a TokenInfoReader makes. */
export const tokenMetadataAbi = parseAbi([
  "function symbol() view returns (string)",
  "function name() view returns (string)",
  "function decimals() view returns (uint8)",
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
]);

/** MKR and other early tokens answer `symbol()`/`name()` as bytes32. */
export const bytes32MetadataAbi = parseAbi([
  "function symbol() view returns (bytes32)",
  "function name() view returns (bytes32)",
]);

/** ERC-165 id of ERC-721. */
export const ERC721_INTERFACE_ID = "0x80ac58cd";
