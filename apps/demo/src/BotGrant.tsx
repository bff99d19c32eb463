import type { Grant } from "@latchkey/core";
import { useGrantConsent, useGrants, useRevokeGrant } from "@latchkey/react";
import { useState } from "react";
import { toFunctionSelector } from "viem";
import type { DemoChain } from "./demoChain";

/** What the demo's bot asks for: one function of the demo's counter, ten times, for a day. */
export const BOT_DESCRIPTION = "The demo's bot: increments the counter for you";

const isBots = (g: Grant) => g.permissions.description === BOT_DESCRIPTION;

/**
 * The account page's "Grant the demo's bot": the modal's consent step lists exactly what the bot may do
 * (the counter's `increment()`, 10 signatures, for a day, no ETH); once allowed, a backend holding the
 * dev app's server key (`.latchkey/dev-server-key`) can send within it with `@latchkey/backend`, and each
 * signature shows in "Security activity". Revoke stops it at once.
 */
export function BotGrantCard({ demo }: { demo: DemoChain }) {
  const { requestGrant } = useGrantConsent();
  const { grants, refetch } = useGrants();
  const { revokeGrantAsync, isPending } = useRevokeGrant();
  const [message, setMessage] = useState("");
  const active = grants?.filter((g) => isBots(g) && g.status === "active") ?? [];

  const grant = async () => {
    setMessage("");
    try {
      await requestGrant({
        chainIds: [demo.config.chain.id],
        contracts: [demo.counter],
        selectors: [toFunctionSelector("increment()")],
        maxOperations: 10,
        expiresAt: Date.now() + 24 * 3600_000,
        description: BOT_DESCRIPTION,
      });
    } catch (e) {
      setMessage(e instanceof Error && e.name === "GrantDeclinedError" ? "Not granted." : String(e));
    }
  };

  return (
    <section className="card bot-grant" data-testid="bot-grant">
      <h3>The demo's bot</h3>
      <p className="muted">
        Let the app's server act for you while you are away, within limits you see and approve: here, only the
        counter's <code>increment()</code>, ten times, for a day, moving no ETH. Run a backend with the dev
        app's server key (<code>.latchkey/dev-server-key</code>) and <code>@latchkey/backend</code> to use it.
      </p>
      {active.length === 0 ? (
        <button
          type="button"
          className="btn primary"
          data-testid="bot-grant-button"
          onClick={() => void grant()}
        >
          Grant the demo's bot
        </button>
      ) : (
        <ul>
          {active.map((g) => (
            <li key={g.grantId} data-testid="bot-grant-item" data-grant-id={g.grantId}>
              <span data-testid="bot-grant-used">
                {g.operationsUsed} of {g.permissions.maxOperations} used
              </span>{" "}
              <span className="muted">until {new Date(g.permissions.expiresAt).toLocaleString()}</span>{" "}
              <button
                type="button"
                className="btn"
                disabled={isPending}
                onClick={() => void revokeGrantAsync({ grantId: g.grantId })}
              >
                Revoke
              </button>{" "}
              <button type="button" className="linkish" onClick={() => void refetch()}>
                Refresh
              </button>
            </li>
          ))}
        </ul>
      )}
      {message && <p className="muted">{message}</p>}
    </section>
  );
}
