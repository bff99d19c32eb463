import type { Address } from "viem";
import { sameAddress, ZERO_ADDRESS } from "./format";
import type { Action, DecodeOptions, KnownAddress, Warning } from "./types";

/** The name a known list gives an address, or "" when it lists it unnamed; undefined when it is not listed. */
export function knownName(list: readonly KnownAddress[], address: string): string | undefined {
  for (const entry of list) {
    if (typeof entry === "string") {
      if (sameAddress(entry, address)) return "";
    } else if (sameAddress(entry.address, address)) return entry.name;
  }
  return undefined;
}

/** Every action, accountCalls opened. */
export function flatActions(actions: readonly Action[]): Action[] {
  return actions.flatMap((a) => (a.kind === "accountCalls" ? flatActions(a.calls) : [a]));
}

/**
 * The warnings `actions` raise: unlimited and operator approvals, permits to a spender the caller does
 * not know (when it gave `knownSpenders`), transfers to the zero address, and native value above
 * `valueThreshold` (summed over every call).
 */
export function actionWarnings(actions: readonly Action[], options: DecodeOptions): Warning[] {
  const warnings: Warning[] = [];
  let value = 0n;
  const toZero = (to: string | null, token?: Address) => {
    if (to !== null && sameAddress(to, ZERO_ADDRESS))
      warnings.push(token ? { kind: "transferToZeroAddress", token } : { kind: "transferToZeroAddress" });
  };
  for (const a of flatActions(actions)) {
    switch (a.kind) {
      case "nativeTransfer":
        value += a.value;
        toZero(a.to);
        break;
      case "unknownCall":
      case "contractCreation":
        value += a.value;
        break;
      case "erc20Transfer":
      case "erc721Transfer":
      case "erc1155Transfer":
      case "tokenTransferFrom":
        toZero(a.to, a.token.address);
        break;
      case "erc20Approve":
      case "erc20IncreaseAllowance":
      case "tokenApprove":
        if (a.unlimited)
          warnings.push({ kind: "unlimitedApproval", token: a.token.address, spender: a.spender });
        break;
      case "operatorApproval":
        if (a.approved)
          warnings.push({ kind: "operatorApproval", token: a.token.address, operator: a.operator });
        break;
      case "permit":
        if (a.unlimited)
          warnings.push({ kind: "unlimitedApproval", token: a.token.address, spender: a.spender });
        if (options.knownSpenders && knownName(options.knownSpenders, a.spender) === undefined)
          warnings.push({ kind: "permitToUnknownSpender", token: a.token.address, spender: a.spender });
        break;
      case "solTransfer":
        value += a.lamports;
        break;
      case "splApprove":
        if (a.unlimited)
          warnings.push({
            kind: "unlimitedApproval",
            token: a.mint ?? a.source ?? "",
            spender: a.delegate ?? "",
          });
        break;
    }
  }
  if (options.valueThreshold !== undefined && value > options.valueThreshold)
    warnings.push({ kind: "valueAboveThreshold", value, threshold: options.valueThreshold });
  return warnings;
}
