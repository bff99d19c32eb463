import type { WalletConnectorInfo } from "@latchkey/core";
import type { AuthTransitions } from "../flow/transitions";
import { useTexts } from "../texts/useTexts";
import { ConnectionError } from "./ConnectionError";
import { WalletIcon } from "./WalletIcon";

/**
 * The wallet steps' connection-error view (spec §8), by the error's code: a wallet on a network the app
 * does not use ('Try again with a different wallet'), WalletConnect without its configuration, a
 * timeout, or a failed or refused connection ("Couldn't connect to {wallet}").
 */
export function WalletError({
  transitions,
  connector,
  error,
}: {
  transitions: AuthTransitions;
  connector: WalletConnectorInfo;
  error: Error;
}) {
  const texts = useTexts();
  const code = (error as { code?: unknown }).code;
  const icon = (
    <div className="lk-provider-badge">
      <WalletIcon connector={connector} />
    </div>
  );
  const retry = () => void transitions.eoa.retry();
  const another = () => transitions.navigation.toInitial();
  if (code === "WALLET_CHAIN_UNSUPPORTED")
    return (
      <ConnectionError
        icon={icon}
        title={texts.couldNotConnect(connector.name)}
        body={texts.walletWrongNetwork}
        retryLabel={texts.tryDifferentWallet}
        onRetry={() => transitions.eoa.pick()}
        onAnotherMethod={another}
      />
    );
  if (code === "WALLETCONNECT_CONFIG_MISSING")
    return (
      <ConnectionError
        icon={icon}
        title={texts.couldNotConnect("WalletConnect")}
        body={texts.walletConnectConfigBody}
        onRetry={retry}
        onAnotherMethod={another}
      />
    );
  if (code === "WALLET_CONNECTION_TIMEOUT")
    return (
      <ConnectionError
        icon={icon}
        title={texts.connectionTimedOut}
        body={texts.needMoreTime}
        onRetry={retry}
      />
    );
  return (
    <ConnectionError
      icon={icon}
      title={texts.couldNotConnect(connector.name)}
      body={texts.walletFailedBody}
      onRetry={retry}
      onAnotherMethod={another}
    />
  );
}
