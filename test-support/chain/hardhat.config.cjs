// Hardhat 2 config of the local chain (test-support/chain/index.ts runs `hardhat node --config <this file>`).
// Chain id 31337, automine, hardhat 2.29's default hardfork (osaka: has the Cancun opcodes EntryPoint v0.8
// needs). The accounts are hardhat's well-known dev accounts #0–#3 ("test test … junk"), given as keys: the
// node starts about 0.5 s sooner than when it derives 20 of them from the mnemonic. #0 deploys, owns the
// paymaster and funds; #1 and #2 are alto's executor and utility wallets. Not for any real network.
const balance = "10000000000000000000000"; // 10 000 ETH

module.exports = {
  networks: {
    hardhat: {
      // A second node for chain-switching tests runs with LATCHKEY_CHAIN_ID (startLocalNode).
      chainId: Number(process.env.LATCHKEY_CHAIN_ID || 31337),
      loggingEnabled: false, // `hardhat node` would print every call
      accounts: [
        { privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80", balance },
        { privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d", balance },
        { privateKey: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a", balance },
        // #3: the demo's dev WalletConnect wallet (npm run dev:wallet)
        { privateKey: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6", balance },
      ],
    },
  },
};
