import { ActivityError, isUserRejected, toViemAccount } from "@latchkey/core";
import { useSigner } from "@latchkey/react";
import { useState } from "react";
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  maxUint256,
  parseEther,
  parseGwei,
} from "viem";

/** Where the dev app's signing policy lets a transaction go, and where it stops one (its `dev-no-burn` rule). */
const FRIEND: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const BURN: Address = "0x000000000000000000000000000000000000dEaD";
/** A token and a spender of the approval the confirmation step warns of (nothing is sent: it is only signed). */
const TOKEN: Address = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const SPENDER: Address = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

type Outcome =
  | { kind: "signed"; to: string; signedTransaction: string }
  | { kind: "refused"; to: string; message: string; status: string }
  | { kind: "declined"; to: string; code: string }
  | { kind: "error"; message: string };

/**
 * The dev app's signing policy at work: two transfers signed by the embedded wallet, one to a friend (the
 * service signs it) and one to the burn address (the policy refuses it, and the card says why). The
 * service reads each transaction before it signs, so the policy sees where it goes. A third signs an
 * unlimited token approval: the modal's confirmation step (the demo's `ui.confirmTransactions`) warns of it
 * before anything is signed, and Cancel leaves it unsigned.
 */
export function PolicyDemo({ chainId }: { chainId: number }) {
  const signer = useSigner();
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [pending, setPending] = useState(false);

  const sign = async (to: Address, label: string, data?: Hex) => {
    setPending(true);
    setOutcome(null);
    try {
      const signedTransaction = await toViemAccount(signer).signTransaction({
        type: "eip1559",
        chainId,
        nonce: 0,
        to,
        ...(data ? { data, gas: 60000n } : { value: parseEther("0.01"), gas: 21000n }),
        maxFeePerGas: parseGwei("2"),
        maxPriorityFeePerGas: parseGwei("1"),
      });
      setOutcome({ kind: "signed", to: label, signedTransaction });
    } catch (e) {
      setOutcome(
        e instanceof ActivityError
          ? { kind: "refused", to: label, message: e.message, status: e.activityStatus }
          : isUserRejected(e)
            ? { kind: "declined", to: label, code: (e as { code: string }).code }
            : { kind: "error", message: e instanceof Error ? e.message : String(e) },
      );
    } finally {
      setPending(false);
    }
  };

  return (
    <section className="card policy" data-testid="policy-card">
      <h3>Signing policy</h3>
      <p className="muted">
        The service checks every transaction against the app's policy before it signs. This dev app's policy
        refuses anything sent to the burn address <code>0x…dEaD</code>.
      </p>
      <div className="row">
        <button type="button" className="btn" disabled={pending} onClick={() => sign(FRIEND, "a friend")}>
          Sign 0.01 ETH to a friend
        </button>
        <button
          type="button"
          className="btn"
          disabled={pending}
          onClick={() => sign(BURN, "the burn address")}
        >
          Sign 0.01 ETH to the burn address
        </button>
        <button
          type="button"
          className="btn"
          disabled={pending}
          onClick={() =>
            sign(
              TOKEN,
              "an unlimited approval",
              encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [SPENDER, maxUint256] }),
            )
          }
        >
          Sign an unlimited approval
        </button>
      </div>
      {pending && <p className="muted">Asking the signer service…</p>}
      {outcome?.kind === "signed" && (
        <div className="verdict ok" data-testid="policy-result">
          ✓ Signed: the transfer to {outcome.to} is allowed.
          <pre className="sig">{outcome.signedTransaction}</pre>
        </div>
      )}
      {outcome?.kind === "refused" && (
        <div className="verdict bad" role="alert" data-testid="policy-result">
          ✗ Stopped by the signing policy: the transfer to {outcome.to} was not signed.
          <br />
          {outcome.message}
        </div>
      )}
      {outcome?.kind === "declined" && (
        <div className="verdict bad" role="alert" data-testid="policy-result">
          ✗ You cancelled: {outcome.to} was not signed ({outcome.code}).
        </div>
      )}
      {outcome?.kind === "error" && (
        <div className="verdict bad" role="alert" data-testid="policy-result">
          {outcome.message}
        </div>
      )}
    </section>
  );
}
