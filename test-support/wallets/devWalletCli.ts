// A "phone" wallet for the demo (dev only): pairs with the WalletConnect link the modal shows, through
// `npm start`'s local relay, and approves what the demo asks (connect, the SIWE message, transactions) with
// hardhat's dev account #3, which both dev chains fund.
//
//   npm run dev:wallet -- "wc:…"            (RELAY_URL, CHAIN_PORT, SECOND_CHAIN_PORT as for npm start)
//
// Stays up to answer requests; Ctrl+C stops it.
import { privateKeyToAccount } from "viem/accounts";
import { startWalletConnectWallet } from "./walletConnectWallet.js";

// hardhat's well-known dev account #3 ("test test … junk"), funded by test-support/chain/hardhat.config.cjs.
const DEV_ACCOUNT_KEY = "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6";

async function main(): Promise<void> {
  const uri = process.argv[2];
  if (!uri?.startsWith("wc:")) throw new Error('pass the WalletConnect link: npm run dev:wallet -- "wc:…"');
  const relayUrl = process.env.RELAY_URL ?? `ws://127.0.0.1:${process.env.RELAY_PORT ?? 8590}`;
  const chains = [
    { id: 31337, rpcUrl: `http://127.0.0.1:${process.env.CHAIN_PORT ?? 8545}` },
    { id: 31338, rpcUrl: `http://127.0.0.1:${process.env.SECOND_CHAIN_PORT ?? 8546}` },
  ];
  const account = privateKeyToAccount(DEV_ACCOUNT_KEY);
  const wallet = await startWalletConnectWallet({ relayUrl, account, chains });
  process.stdout.write(`Dev wallet ${account.address}: pairing through ${relayUrl}…\n`);
  await wallet.pair(uri);
  let seen = 0;
  const timer = setInterval(() => {
    for (const r of wallet.requests.slice(seen))
      process.stdout.write(`approved ${r.method} on chain ${r.chainId}\n`);
    seen = wallet.requests.length;
  }, 250);
  const shutdown = () => {
    clearInterval(timer);
    void wallet.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  process.stderr.write(`dev wallet: ${error instanceof Error ? error.message : error}\n`);
  process.exit(1);
});
