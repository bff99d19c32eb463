// Loaded after sign-in (React.lazy): @solana/kit and the wallet-standard wallet stay out of the page's
// first JavaScript.
import { registerSolanaWallet } from "@latchkey/core/solana";
import { useSigner, useSolanaTransaction } from "@latchkey/react";
import { address, createSolanaRpc, isAddress, lamports, type Signature } from "@solana/kit";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import { formatUnits, parseUnits } from "viem";
import type { DemoSolana } from "./demoSolana";

/** Where the transfer form sends by default: a fixed address nobody holds the key of. */
export const DEMO_RECIPIENT = "DemoRecipient1111111111111111111111111111111";
const LAMPORTS_PER_SOL = 1_000_000_000n;
const SOL_AMOUNT = /^\d+(\.\d{1,9})?$/;

const sol = (value: bigint) => `${formatUnits(value, 9)} SOL`;
const short = (value: string) => `${value.slice(0, 4)}…${value.slice(-4)}`;
function change(before: bigint, after: bigint) {
  const delta = after - before;
  const moved = delta === 0n ? "no change" : `${delta < 0n ? "−" : "+"}${sol(delta < 0n ? -delta : delta)}`;
  return `${sol(before)} → ${sol(after)} (${moved})`;
}

interface Sent {
  signature: string;
  sponsored: boolean;
  user: { before: bigint; after: bigint };
  feePayer?: { before: bigint; after: bigint };
}

/**
 * The user's Solana wallet on the dev node: balance, the dev faucet, and a SOL transfer sent by
 * `useSolanaTransaction`, paying the fee or sponsored by the app (the service's fee payer pays it). While
 * it is shown, the embedded wallet is also a wallet-standard wallet ("Latchkey") for Solana dapp tooling.
 */
export default function SolanaCard({ demo, owner }: { demo: DemoSolana; owner: string }) {
  const signer = useSigner();
  useEffect(
    () => registerSolanaWallet(signer, { chain: "solana:localnet", rpcUrl: demo.rpcUrl }),
    [signer, demo.rpcUrl],
  );
  const [rpc] = useState(() => createSolanaRpc(demo.rpcUrl));
  const balanceOf = useCallback(
    async (account: string) => BigInt((await rpc.getBalance(address(account)).send()).value),
    [rpc],
  );
  const [balance, setBalance] = useState<bigint | null>(null);
  const refresh = useCallback(async () => setBalance(await balanceOf(owner)), [balanceOf, owner]);
  useEffect(() => {
    void refresh().catch(() => {});
  }, [refresh]);

  const [faucet, setFaucet] = useState<{ busy: boolean; error?: string }>({ busy: false });
  const requestSol = async () => {
    setFaucet({ busy: true });
    try {
      const signature = await rpc.requestAirdrop(address(owner), lamports(LAMPORTS_PER_SOL)).send();
      await waitForStatus(signature);
      await refresh();
      setFaucet({ busy: false });
    } catch (e) {
      setFaucet({ busy: false, error: e instanceof Error ? e.message : String(e) });
    }
  };
  // A real test validator confirms an airdrop a little later; the dev node at once.
  const waitForStatus = async (signature: Signature) => {
    for (let i = 0; i < 60; i++) {
      const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
      if (status?.confirmationStatus) return;
      await new Promise((r) => setTimeout(r, 250));
    }
  };

  const [recipient, setRecipient] = useState(DEMO_RECIPIENT);
  // A new account holds no SOL: a sponsored transfer of 0 SOL still goes through.
  const [amount, setAmount] = useState("0");
  const [sent, setSent] = useState<Sent | null>(null);
  const [formError, setFormError] = useState("");
  const { sendTransactionAsync, reset } = useSolanaTransaction();
  // Sending, and reading the balances before and after.
  const [busy, setBusy] = useState(false);

  const send = async (sponsored: boolean) => {
    setSent(null);
    setFormError("");
    reset();
    if (!isAddress(recipient.trim())) return setFormError("The recipient is not a Solana address.");
    if (!SOL_AMOUNT.test(amount.trim())) return setFormError("The amount is not a number of SOL.");
    const feePayer = sponsored ? demo.feePayer : undefined;
    setBusy(true);
    try {
      const before = await balanceOf(owner);
      const feePayerBefore = feePayer ? await balanceOf(feePayer) : undefined;
      const { signature } = await sendTransactionAsync({
        transfer: { toAddress: recipient.trim(), amount: parseUnits(amount.trim(), 9) },
        ...(sponsored
          ? { sponsored: true, ...(demo.policyId ? { policyId: demo.policyId } : {}) }
          : { sponsored: false }),
      });
      const after = await balanceOf(owner);
      setBalance(after);
      setSent({
        signature,
        sponsored,
        user: { before, after },
        ...(feePayer && feePayerBefore !== undefined
          ? { feePayer: { before: feePayerBefore, after: await balanceOf(feePayer) } }
          : {}),
      });
    } catch (e) {
      setFormError(e instanceof Error ? e.message : String(e));
      await refresh().catch(() => {});
    } finally {
      setBusy(false);
    }
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void send(false);
  };

  return (
    <section className="card solana" data-testid="solana">
      <h3>Solana</h3>
      <p className="muted">
        Your Solana wallet on the local node (litesvm).
        {demo.policyId
          ? " Send sponsored: the app's fee payer pays the fee, so even an account without SOL can send."
          : ""}
      </p>
      <div className="row">
        <span className="label">Address</span>
        <code data-testid="solana-card-address" title={owner}>
          {owner}
        </code>
      </div>
      <div className="row">
        <span className="label">Balance</span>
        <code data-testid="solana-balance">{balance === null ? "…" : sol(balance)}</code>
        <button type="button" className="chip" disabled={faucet.busy} onClick={() => void requestSol()}>
          {faucet.busy ? "Requesting…" : "Request 1 SOL"}
        </button>
      </div>
      {faucet.error && (
        <div className="verdict bad" data-testid="solana-faucet-error">
          {faucet.error}
        </div>
      )}
      <form className="transfer" onSubmit={onSubmit}>
        <label>
          <span className="muted">Recipient</span>
          <input
            aria-label="Recipient"
            spellCheck={false}
            value={recipient}
            onChange={(e) => setRecipient(e.target.value)}
          />
        </label>
        <label>
          <span className="muted">Amount (SOL)</span>
          <input
            aria-label="Amount (SOL)"
            inputMode="decimal"
            value={amount}
            onChange={(e) => setAmount(e.target.value)}
          />
        </label>
        <div className="actions">
          <button type="submit" className="btn" disabled={busy}>
            Send
          </button>
          {demo.policyId && (
            <button type="button" className="btn primary" disabled={busy} onClick={() => void send(true)}>
              Send sponsored
            </button>
          )}
          {busy && <span className="muted">Sending…</span>}
        </div>
      </form>
      {sent && (
        <div className="verdict ok" data-testid="solana-result">
          <div>
            ✓ Confirmed{sent.sponsored ? " (fee paid by the app)" : ""}:{" "}
            <code data-testid="solana-signature">{sent.signature}</code>
          </div>
          <div data-testid="solana-balance-change">
            Your balance: {change(sent.user.before, sent.user.after)}
          </div>
          {sent.feePayer && demo.feePayer && (
            <div data-testid="solana-fee-payer-change">
              Fee payer {short(demo.feePayer)}: {change(sent.feePayer.before, sent.feePayer.after)}
            </div>
          )}
        </div>
      )}
      {formError && (
        <div className="verdict bad" data-testid="solana-error">
          {formError}
        </div>
      )}
    </section>
  );
}
