import type { DevnetInfo } from "./devnet.js";

/** The service's side: the `chains` and `solana` settings of `latchkey serve --config <file>`. */
export function serviceConfig(info: DevnetInfo) {
  return {
    chains: [
      {
        chainId: info.chain.chainId,
        rpcUrl: info.chain.rpcUrl,
        paymaster: info.chain.paymaster,
        // Where the service sends the user operations an app's backend asks for (grants).
        bundlerUrl: info.chain.bundlerUrl,
      },
      ...(info.secondChain ? [{ chainId: info.secondChain.chainId, rpcUrl: info.secondChain.rpcUrl }] : []),
    ],
    solana: { rpcUrl: info.solana.rpcUrl },
  };
}

/** The app's side: what `createSigner` (or `<LatchkeyProvider>`) takes to reach the devnet. */
export function appConfig(info: DevnetInfo) {
  return {
    chains: [{ chainId: info.chain.chainId, rpcUrl: info.chain.rpcUrl, bundlerUrl: info.chain.bundlerUrl }],
    solana: { rpcUrl: info.solana.rpcUrl, chain: "solana:localnet" },
    walletConnect: info.walletConnect,
  };
}

/** The `sponsor` command for this devnet (its URLs only when they are not the defaults). */
export function sponsorCommand(info: DevnetInfo, defaults: { rpcUrl: string; solanaUrl: string }): string {
  const urls = [
    ...(info.chain.rpcUrl === defaults.rpcUrl ? [] : [`--rpc-url ${info.chain.rpcUrl}`]),
    ...(info.solana.rpcUrl === defaults.solanaUrl ? [] : [`--solana-url ${info.solana.rpcUrl}`]),
  ];
  return [
    "npx @latchkey/devnet sponsor",
    ...urls,
    '--paymaster-signer "$(npx latchkey paymaster-signer --dev)"',
    '--solana-fee-payer "$(npx latchkey solana-fee-payer --dev)"',
  ].join(" ");
}

/** What the devnet prints once it is up: where everything is, and what to paste where. */
export function instructions(
  info: DevnetInfo,
  {
    startedMs,
    configFile,
    sponsor,
    registered,
  }: { startedMs: number; configFile?: string | undefined; sponsor: string; registered: string[] },
): string {
  const { chain, solana, walletConnect, secondChain } = info;
  const service = JSON.stringify(serviceConfig(info), null, 2);
  const app = appConfig(info);
  return [
    `Latchkey devnet is up (${(startedMs / 1000).toFixed(1)} s).`,
    "",
    `  EVM chain          ${chain.rpcUrl}  (chain id ${chain.chainId}, a block per transaction)`,
    `  Bundler            ${chain.bundlerUrl}  (alto, ERC-4337)`,
    `  EntryPoint v0.8    ${chain.entryPoint}`,
    `  Simple7702Account  ${chain.simple7702Account}`,
    `  Account factories  ${chain.accountFactory} (SimpleAccount), ${chain.latchkeyAccountFactory} (LatchkeySimpleAccount)`,
    `  Paymaster          ${chain.paymaster}  (SingletonPaymasterV8, verifying; 100 ETH deposit)`,
    `  Counter            ${chain.counter}  (increment(), number(): a contract to call)`,
    ...(secondChain
      ? [`  Second chain       ${secondChain.rpcUrl}  (chain id ${secondChain.chainId}, no contracts)`]
      : []),
    `  Solana             ${solana.rpcUrl}  (litesvm; PubSub on ${solana.wsUrl}; every transaction final at once)`,
    `  WalletConnect      ${walletConnect.relayUrl}  (a local relay; any project id)`,
    "",
    `1. The service: put this in its config file${configFile ? ` (written to ${configFile})` : ""} and start it with`,
    "   npx latchkey serve --dev --config <that file>",
    "",
    ...service.split("\n").map((line) => `   ${line}`),
    "",
    "2. Let the service sponsor: the paymaster must accept the service's signer, and its Solana fee payer",
    "   needs SOL. In the service's folder (the keys are in its database), while this devnet runs:",
    "",
    `   ${sponsor}`,
    ...(registered.length ? ["", `   (done at start for ${registered.join(", ")})`] : []),
    "",
    "3. The app: give createSigner (or <LatchkeyProvider>) these settings",
    "",
    `   chains: [{ chain: { id: ${chain.chainId}, name: "Latchkey devnet", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: ["${chain.rpcUrl}"] } } },`,
    `              rpcUrl: "${chain.rpcUrl}", bundlerUrl: "${chain.bundlerUrl}", policyId: "<the service's sponsorship policy>" }],`,
    `   solana: solana({ rpcUrl: "${solana.rpcUrl}", chain: "solana:localnet" }),`,
    `   externalWallets: externalWallets({ walletConnect: walletConnect({ projectId: "${walletConnect.projectId}", relayUrl: "${walletConnect.relayUrl}" }) }),`,
    "",
    '   (solana from "@latchkey/core/solana", externalWallets from "@latchkey/core/external-wallets", walletConnect',
    '   from "@latchkey/core/walletconnect"; npm i @solana/kit @wagmi/core @walletconnect/universal-provider)',
    "",
    "   or as environment variables for your bundler (VITE_ for Vite, NEXT_PUBLIC_ for Next.js):",
    "",
    `   LATCHKEY_CHAIN_ID=${chain.chainId}`,
    `   LATCHKEY_RPC_URL=${chain.rpcUrl}`,
    `   LATCHKEY_BUNDLER_URL=${chain.bundlerUrl}`,
    `   LATCHKEY_SOLANA_RPC_URL=${solana.rpcUrl}`,
    `   LATCHKEY_WALLETCONNECT_RELAY_URL=${walletConnect.relayUrl}`,
    "",
    `App config as JSON: ${JSON.stringify(app)}`,
    "Press Ctrl+C to stop everything.",
    "",
  ].join("\n");
}
