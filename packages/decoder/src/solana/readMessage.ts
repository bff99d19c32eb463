import { base58 } from "@scure/base";

/** One instruction as the message carries it: account indexes resolved to addresses (null: from a lookup table). */
export interface MessageInstruction {
  programId: string;
  accounts: (string | null)[];
  data: Uint8Array;
}

export interface SolanaMessage {
  version: "legacy" | 0;
  /** The first static account: the fee payer. */
  feePayer: string;
  instructions: MessageInstruction[];
}

/** A little-endian cursor that throws on reading past the end. */
class Reader {
  private offset = 0;
  constructor(private readonly bytes: Uint8Array) {}
  get done() {
    return this.offset === this.bytes.length;
  }
  u8(): number {
    const b = this.bytes[this.offset];
    if (b === undefined) throw new Error("truncated");
    this.offset += 1;
    return b;
  }
  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) throw new Error("truncated");
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }
  /** Solana's compact-u16 ("shortvec"): 7 bits a byte, at most 3 bytes. */
  shortU16(): number {
    let value = 0;
    for (let i = 0; i < 3; i++) {
      const b = this.u8();
      value |= (b & 0x7f) << (7 * i);
      if ((b & 0x80) === 0) return value;
    }
    throw new Error("compact-u16 too long");
  }
}

/**
 * The message of a Solana transaction, from the wire bytes of either a transaction (signatures first) or
 * a bare message, legacy or v0. Accounts a v0 message loads from address lookup tables cannot be known
 * offline: they read as null. Throws on anything malformed (the caller answers `unreadable`).
 */
export function readSolanaTransaction(bytes: Uint8Array): SolanaMessage {
  // A transaction: compact-u16 count, 64 bytes each, then a message that requires as many signatures.
  try {
    const r = new Reader(bytes);
    const count = r.shortU16();
    if (count > 0) {
      r.take(64 * count);
      const message = readMessage(r);
      if (message.requiredSignatures === count) return message.message;
    }
  } catch {
    // Not a transaction: read as a message.
  }
  return readMessage(new Reader(bytes)).message;
}

function readMessage(r: Reader): { message: SolanaMessage; requiredSignatures: number } {
  let version: "legacy" | 0 = "legacy";
  let first = r.u8();
  if (first & 0x80) {
    if ((first & 0x7f) !== 0) throw new Error(`unsupported message version ${first & 0x7f}`);
    version = 0;
    first = r.u8();
  }
  const requiredSignatures = first;
  r.u8(); // read-only signed
  r.u8(); // read-only unsigned
  const keys: string[] = [];
  const keyCount = r.shortU16();
  for (let i = 0; i < keyCount; i++) keys.push(base58.encode(r.take(32)));
  if (keys.length === 0 || requiredSignatures === 0 || requiredSignatures > keys.length)
    throw new Error("bad message header");
  r.take(32); // recent blockhash
  const raw: { program: number; accounts: number[]; data: Uint8Array }[] = [];
  const instructionCount = r.shortU16();
  for (let i = 0; i < instructionCount; i++) {
    const program = r.u8();
    const accounts = Array.from(r.take(r.shortU16()));
    const data = r.take(r.shortU16());
    raw.push({ program, accounts, data });
  }
  let loaded = 0;
  if (version === 0) {
    const tables = r.shortU16();
    for (let i = 0; i < tables; i++) {
      r.take(32);
      loaded += r.take(r.shortU16()).length;
      loaded += r.take(r.shortU16()).length;
    }
  }
  if (!r.done) throw new Error("trailing bytes");
  const account = (index: number): string | null => {
    if (index < keys.length) return keys[index] as string;
    if (index < keys.length + loaded) return null;
    throw new Error("account index out of range");
  };
  const instructions = raw.map((ix) => {
    // A program is always a static account (lookup tables cannot hold one a message invokes).
    const programId = keys[ix.program];
    if (programId === undefined) throw new Error("program index out of range");
    return { programId, accounts: ix.accounts.map(account), data: ix.data };
  });
  return { message: { version, feePayer: keys[0] as string, instructions }, requiredSignatures };
}
