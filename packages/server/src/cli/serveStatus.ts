import type { Service } from "../createService";
import { seedBackend, seedFallbackReason } from "../crypto/pbkdf2";
import { secp256k1Impl } from "../crypto/secp256k1";
import type { attachDevIdentityProvider } from "../dev/devStack";
import { describeSigningPolicy } from "../keyManagement/policies/describePolicy";
import { type SigningPolicyConfig, signingPolicySchema } from "../keyManagement/policies/policySchema";

// What `latchkey serve` prints once it listens: which implementations sign and derive, each app's
// signing policy, and in dev mode how to reach the dev app.

/**
 * One line per app with a signing policy: what it does with bare hashes (raw payloads), whose default
 * depends on its rules and admin keys, and its EIP-7702 delegates.
 */
export function policyLines(
  apps: readonly { id: string; signingPolicy?: SigningPolicyConfig | undefined }[] | undefined,
): string[] {
  return (apps ?? []).flatMap((app) =>
    app.signingPolicy ? [describeSigningPolicy(app.id, signingPolicySchema.parse(app.signingPolicy))] : [],
  );
}

/** What computes new wallets' BIP-39 seeds: the native PBKDF2 addon where it loads, node:crypto otherwise. */
export function seedsLine(): string {
  const seeds = seedBackend();
  if (seeds.name === "node:crypto")
    return `Wallet seeds: PBKDF2 by node:crypto (${seedFallbackReason() ?? "the native PBKDF2 addon is not loaded"})`;
  const isa = seeds.lanes === 8 ? ", AVX-512" : seeds.lanes === 4 ? ", AVX2" : "";
  return `Wallet seeds: PBKDF2 by the native addon (${seeds.lanes} at once${isa})`;
}

/** Which secp256k1 implementation signs (issue: native where it loads, noble otherwise). */
export function signingLine(): string {
  const backend = secp256k1Impl().backend;
  return backend === "libsecp256k1"
    ? "Signing: secp256k1 by libsecp256k1 (native)"
    : "Signing: secp256k1 by @noble/curves (the native secp256k1 addon is not loaded)";
}

/** Dev mode's lines: the dev app's key, mailbox, origins, sign-in providers, sponsorship and signing policy. */
export function devLines(
  devApp: NonNullable<Service["devApp"]>,
  shown: string,
  idp: Awaited<ReturnType<typeof attachDevIdentityProvider>>,
  devOrigins: readonly string[] | undefined,
): string[] {
  const lines = [
    `Dev app API key: ${devApp.apiKey}`,
    `Dev mailbox:     ${shown}/dev/mailbox`,
    `Dev app origins: ${(devOrigins ?? ["http://localhost:*", "http://127.0.0.1:*"]).join(", ")}`,
    `Dev sign-in providers: Google ${idp.issuer}, Auth0 ${idp.auth0Issuer} (test users: ${idp.users.map((u) => u.email).join(", ")})`,
  ];
  const u = idp.standIns.urls;
  lines.push(
    `Dev provider stand-ins: Apple ${u.apple}, Facebook ${u.facebook}, Twitch ${u.twitch}, GitHub ${u.github}, Discord ${u.discord}`,
  );
  for (const policy of devApp.app.sponsorship.policies)
    lines.push(
      `Dev sponsorship: policy ${policy.id} pays for the dev app's users on chain ${policy.chainId}`,
    );
  for (const policy of devApp.app.sponsorship.solanaPolicies)
    lines.push(`Dev Solana sponsorship: policy ${policy.id}`);
  const devPolicy = devApp.app.signingPolicy;
  if (devPolicy) lines.push(...policyLines([{ id: devApp.app.id, signingPolicy: devPolicy }]));
  for (const rule of devPolicy?.rules ?? [])
    lines.push(
      `Dev signing policy: ${rule.effect} ${rule.id}${rule.description ? ` (${rule.description})` : ""}`,
    );
  return lines;
}
