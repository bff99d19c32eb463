/** The local Solana node `npm start` runs (litesvm) and the service's sponsorship of it, from Vite's env. */
export interface DemoSolana {
  rpcUrl: string;
  /** The dev app's Solana sponsorship policy (`dev-solana`): the service's fee payer pays the fees. */
  policyId?: string;
  /** The service's fee payer, to show what a sponsored transaction cost it. */
  feePayer?: string;
}

/** `VITE_LATCHKEY_SOLANA` (JSON `{rpcUrl, policyId?, feePayer?}`), or null when the demo runs without Solana. */
export function readDemoSolana(raw: string | undefined): DemoSolana | null {
  if (!raw) return null;
  const env = JSON.parse(raw) as DemoSolana;
  return {
    rpcUrl: env.rpcUrl,
    ...(env.policyId ? { policyId: env.policyId } : {}),
    ...(env.feePayer ? { feePayer: env.feePayer } : {}),
  };
}
