// A Solana JSON-RPC node for dev and tests: litesvm (the real Solana runtime, in process) behind the HTTP
// JSON-RPC methods wallets and @solana/kit use, and on the same port the WebSocket PubSub that kit's
// `sendAndConfirmTransactionFactory` and `airdropFactory` need. One "slot" per transaction; every
// transaction is final at once; blockhashes never expire unless `expireBlockhash()` is called.
// Errors have the shape of a real node's (`-32002` with `data.err` as Solana's `TransactionError` JSON),
// so clients map them as they would in production.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  address,
  getBase58Decoder,
  getBase64Encoder,
  getTransactionDecoder,
  lamports,
  type Transaction,
} from "@solana/kit";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { type WebSocket, WebSocketServer } from "ws";

/** Solana's `TransactionError` variants without fields, in litesvm's (and Solana's) order. */
const TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

/** Solana's `InstructionError` variants without fields. */
const INSTRUCTION_ERRORS = [
  "GenericError",
  "InvalidArgument",
  "InvalidInstructionData",
  "InvalidAccountData",
  "AccountDataTooSmall",
  "InsufficientFunds",
  "IncorrectProgramId",
  "MissingRequiredSignature",
  "AccountAlreadyInitialized",
  "UninitializedAccount",
  "UnbalancedInstruction",
  "ModifiedProgramId",
  "ExternalAccountLamportSpend",
  "ExternalAccountDataModified",
  "ReadonlyLamportChange",
  "ReadonlyDataModified",
  "DuplicateAccountIndex",
  "ExecutableModified",
  "RentEpochModified",
  "NotEnoughAccountKeys",
  "AccountDataSizeChanged",
  "AccountNotExecutable",
  "AccountBorrowFailed",
  "AccountBorrowOutstanding",
  "DuplicateAccountOutOfSync",
  "InvalidError",
  "ExecutableDataModified",
  "ExecutableLamportChange",
  "ExecutableAccountNotRentExempt",
  "UnsupportedProgramId",
  "CallDepth",
  "MissingAccount",
  "ReentrancyNotAllowed",
  "MaxSeedLengthExceeded",
  "InvalidSeeds",
  "InvalidRealloc",
  "ComputationalBudgetExceeded",
  "PrivilegeEscalation",
  "ProgramEnvironmentSetupFailure",
  "ProgramFailedToComplete",
  "ProgramFailedToCompile",
  "Immutable",
  "IncorrectAuthority",
  "BorshIoError",
  "AccountNotRentExempt",
  "InvalidAccountOwner",
  "ArithmeticOverflow",
  "UnsupportedSysvar",
  "IllegalOwner",
  "MaxAccountsDataAllocationsExceeded",
  "MaxAccountsResizesExceeded",
  "MaxInstructionTraceLengthExceeded",
  "BuiltinProgramsMustConsumeComputeUnits",
] as const;

/** The error as a Solana node writes it in JSON (`"BlockhashNotFound"`, `{InstructionError: [0, …]}`). */
export function transactionErrorJson(failed: FailedTransactionMetadata): unknown {
  const err = failed.err() as unknown;
  if (typeof err === "number") return TRANSACTION_ERRORS[err] ?? `TransactionError${err}`;
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown; code?: number };
  if (typeof e.err === "function") {
    const inner = e.err() as unknown;
    const instruction =
      typeof inner === "number"
        ? (INSTRUCTION_ERRORS[inner] ?? `InstructionError${inner}`)
        : typeof (inner as { code?: number }).code === "number"
          ? { Custom: (inner as { code: number }).code }
          : { BorshIoError: String(inner) };
    return { InstructionError: [e.index, instruction] };
  }
  const name = err?.constructor?.name ?? "";
  if (name.endsWith("InsufficientFundsForRent"))
    return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (name.endsWith("DuplicateInstruction")) return { DuplicateInstruction: e.index };
  if (name.endsWith("ProgramExecutionTemporarilyRestricted"))
    return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  return String(err);
}

/** What a real node says for the common send failures (kit only needs `data.err`). */
function sendFailureMessage(err: unknown): string {
  if (err === "BlockhashNotFound") return "Transaction simulation failed: Blockhash not found";
  if (err === "InsufficientFundsForFee")
    return "Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.";
  return "Transaction simulation failed: Error processing Instruction";
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface SolanaRpcNode {
  /** The runtime itself: seed accounts (`svm.airdrop`, `svm.setAccount`) or expire blockhashes. */
  svm: LiteSVM;
  url: string;
  wsUrl: string;
  port: number;
  /** Every transaction sent so far (airdrops included): signature → slot and error. */
  transactionCount(): number;
  close(): Promise<void>;
}

export interface SolanaRpcOptions {
  port?: number;
  host?: string;
  svm?: LiteSVM;
}

interface Status {
  slot: number;
  err: unknown;
}

/**
 * Starts the node on `port` (0: a free one) and answers once it listens.
 *
 * @example
 * const node = await startSolanaRpc();
 * const rpc = createSolanaRpc(node.url);
 * await rpc.requestAirdrop(address, lamports(1_000_000_000n)).send();
 * await node.close();
 */
export async function startSolanaRpc(options: SolanaRpcOptions = {}): Promise<SolanaRpcNode> {
  const { port = 0, host = "127.0.0.1" } = options;
  const svm = options.svm ?? new LiteSVM();
  const statuses = new Map<string, Status>();
  const signatureSubscriptions = new Map<string, { ws: WebSocket; id: number }[]>();
  let slot = 1;
  let nextSubscription = 1;
  const context = <T>(value: T) => ({ context: { slot, apiVersion: "2.2.0" }, value });

  const notify = (ws: WebSocket, id: number, signature: string) => {
    const status = statuses.get(signature);
    if (!status || ws.readyState !== ws.OPEN) return;
    ws.send(
      JSON.stringify({
        jsonrpc: "2.0",
        method: "signatureNotification",
        params: { subscription: id, result: context({ err: status.err }) },
      }),
    );
  };
  const record = (signature: string, result: TransactionMetadata | FailedTransactionMetadata) => {
    slot += 1;
    statuses.set(signature, {
      slot,
      err: result instanceof FailedTransactionMetadata ? transactionErrorJson(result) : null,
    });
    for (const { ws, id } of signatureSubscriptions.get(signature) ?? []) notify(ws, id, signature);
    signatureSubscriptions.delete(signature);
  };

  const decode = (encoded: unknown, encoding: unknown): Transaction => {
    if (typeof encoded !== "string") throw new RpcFailure(-32602, "Invalid params: expected a transaction");
    let bytes: Uint8Array;
    try {
      bytes =
        encoding === "base64"
          ? Uint8Array.from(getBase64Encoder().encode(encoded))
          : Uint8Array.from(Buffer.from(encoded, "base64"));
    } catch {
      throw new RpcFailure(-32602, "Invalid params: the transaction is not base64");
    }
    try {
      return getTransactionDecoder().decode(bytes);
    } catch {
      throw new RpcFailure(-32602, "Invalid params: the transaction does not decode");
    }
  };
  const addressParam = (value: unknown) => {
    try {
      return address(String(value));
    } catch {
      throw new RpcFailure(-32602, `Invalid param: Invalid`);
    }
  };
  const account = (a: unknown) => {
    const acct = svm.getAccount(addressParam(a));
    if (!acct?.exists) return null;
    return {
      data: [Buffer.from(acct.data).toString("base64"), "base64"],
      executable: acct.executable,
      lamports: Number(acct.lamports),
      owner: acct.programAddress,
      rentEpoch: 0,
      space: acct.data.length,
    };
  };
  const status = (signature: string) => {
    const s = statuses.get(signature);
    if (!s) return null;
    return {
      slot: s.slot,
      confirmations: null,
      err: s.err,
      confirmationStatus: "finalized",
      status: s.err ? { Err: s.err } : { Ok: null },
    };
  };
  const firstSignature = (tx: Transaction) => {
    const first = Object.values(tx.signatures)[0];
    if (!first) throw new RpcFailure(-32602, "Invalid params: the transaction has no signature");
    return getBase58Decoder().decode(first);
  };

  const methods: Record<string, (params: unknown[]) => unknown> = {
    getLatestBlockhash: () => context({ blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot + 150 }),
    isBlockhashValid: ([hash]) => context(hash === svm.latestBlockhash()),
    getEpochInfo: () => ({
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: 0,
      slotIndex: slot,
      slotsInEpoch: 432_000,
      transactionCount: statuses.size,
    }),
    getSlot: () => slot,
    getBlockHeight: () => slot,
    getGenesisHash: () => "LiteSVM1111111111111111111111111111111111111",
    getBalance: ([a]) => context(Number(svm.getBalance(addressParam(a)) ?? 0n)),
    getAccountInfo: ([a]) => context(account(a)),
    getMultipleAccounts: ([list]) => {
      if (!Array.isArray(list)) throw new RpcFailure(-32602, "Invalid params: expected a list of addresses");
      return context(list.map(account));
    },
    getMinimumBalanceForRentExemption: ([length]) =>
      Number(svm.minimumBalanceForRentExemption(BigInt(Number(length) || 0))),
    getFeeForMessage: () => context(5000),
    getSignatureStatuses: ([signatures]) => {
      if (!Array.isArray(signatures)) throw new RpcFailure(-32602, "Invalid params: expected signatures");
      return context(signatures.map((s) => status(String(s))));
    },
    sendTransaction: ([encoded, config]) => {
      const tx = decode(encoded, (config as { encoding?: string } | undefined)?.encoding);
      const signature = firstSignature(tx);
      if (statuses.has(signature) && !statuses.get(signature)?.err) return signature;
      const result = svm.sendTransaction(tx);
      if (result instanceof FailedTransactionMetadata) {
        const err = transactionErrorJson(result);
        throw new RpcFailure(-32002, sendFailureMessage(err), {
          err,
          logs: result.meta().logs(),
          accounts: null,
          unitsConsumed: Number(result.meta().computeUnitsConsumed()),
          returnData: null,
        });
      }
      record(signature, result);
      return signature;
    },
    simulateTransaction: ([encoded, config]) => {
      const result = svm.simulateTransaction(decode(encoded, (config as { encoding?: string })?.encoding));
      const meta = result.meta();
      return context({
        err: result instanceof FailedTransactionMetadata ? transactionErrorJson(result) : null,
        logs: meta.logs(),
        unitsConsumed: Number(meta.computeUnitsConsumed()),
        accounts: null,
        returnData: null,
      });
    },
    requestAirdrop: ([a, amount]) => {
      const value = BigInt(Number(amount) || 0);
      if (value <= 0n) throw new RpcFailure(-32602, "Invalid params: lamports must be positive");
      const result = svm.airdrop(addressParam(a), lamports(value));
      if (!result || result instanceof FailedTransactionMetadata)
        throw new RpcFailure(-32603, `Airdrop failed: ${result?.toString() ?? "no faucet"}`);
      const signature = getBase58Decoder().decode(result.signature());
      record(signature, result);
      return signature;
    },
    getVersion: () => ({ "solana-core": "2.2.0", "feature-set": 0 }),
    getHealth: () => "ok",
  };

  const call = async (message: unknown) => {
    const m = (message ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    const id = m.id ?? null;
    try {
      if (typeof m.method !== "string" || !Object.hasOwn(methods, m.method))
        throw new RpcFailure(-32601, `Method not found`);
      const params = Array.isArray(m.params) ? m.params : [];
      return { jsonrpc: "2.0", id, result: await (methods[m.method] as (p: unknown[]) => unknown)(params) };
    } catch (e) {
      if (e instanceof RpcFailure)
        return {
          jsonrpc: "2.0",
          id,
          error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) },
        };
      return { jsonrpc: "2.0", id, error: { code: -32603, message: (e as Error).message } };
    }
  };

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader("access-control-allow-origin", "*");
    res.setHeader("access-control-allow-headers", "content-type, solana-client");
    if (req.method === "OPTIONS") return void res.writeHead(204).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      res.setHeader("content-type", "application/json");
      return void res.end(
        JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
      );
    }
    const answer = Array.isArray(message) ? await Promise.all(message.map(call)) : await call(message);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(answer));
  });

  // PubSub: signatureSubscribe (answered at once when the transaction is already in); other subscriptions
  // are accepted and never fire (litesvm has no clock).
  const wss = new WebSocketServer({ server });
  wss.on("connection", (ws) =>
    ws.on("message", (raw) => {
      let m: { id?: unknown; method?: unknown; params?: unknown[] };
      try {
        m = JSON.parse(String(raw));
      } catch {
        return ws.send(
          JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }),
        );
      }
      const id = m.id ?? null;
      const method = typeof m.method === "string" ? m.method : "";
      const subscription = nextSubscription++;
      if (method === "signatureSubscribe") {
        const signature = String(m.params?.[0]);
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, result: subscription }));
        if (statuses.has(signature)) notify(ws, subscription, signature);
        else
          signatureSubscriptions.set(signature, [
            ...(signatureSubscriptions.get(signature) ?? []),
            { ws, id: subscription },
          ]);
      } else if (method.endsWith("Subscribe"))
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, result: subscription }));
      else if (method.endsWith("Unsubscribe")) ws.send(JSON.stringify({ jsonrpc: "2.0", id, result: true }));
      else
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } }));
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as { port: number }).port;
  return {
    svm,
    port: bound,
    url: `http://${host}:${bound}`,
    wsUrl: `ws://${host}:${bound}`,
    transactionCount: () => statuses.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
