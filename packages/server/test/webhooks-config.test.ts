/**
 * Webhook configuration and the audit-to-event table (features/webhooks): what an app's `webhooks` may
 * say, and which audit events become which webhook events with which fields.
 */
import { describe, expect, it } from "vitest";
import { appConfigSchema } from "../src/config";
import { refusedRangeOf } from "../src/features/webhooks/addressPolicy";
import { loopbackWebhookIssue, WEBHOOK_EVENT_TYPES, webhookTuning } from "../src/features/webhooks/config";
import { webhookEventOf } from "../src/features/webhooks/events";
import { backoffMs } from "../src/features/webhooks/outbox";

const SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
const appWith = (webhooks: unknown) => appConfigSchema.safeParse({ id: "shop", name: "Shop", webhooks });
const messages = (r: ReturnType<typeof appWith>) => (r.success ? [] : r.error.issues.map((i) => i.message));

describe("webhook config", () => {
  it("takes https anywhere and http to localhost; refuses other http, other schemes, and credentials", () => {
    for (const url of ["https://hooks.example.com/in", "http://localhost:9000/x", "http://127.0.0.1:1/x"])
      expect(appWith([{ url, events: ["user.created"], secret: SECRET }]).success, url).toBe(true);
    expect(
      messages(appWith([{ url: "http://hooks.example.com/in", events: ["user.created"], secret: SECRET }])),
    ).toEqual(["must be https (http only to localhost, or with allowInsecureHttp)"]);
    expect(
      appWith([
        {
          url: "http://10.0.0.5/in",
          events: ["user.created"],
          secret: SECRET,
          allowInsecureHttp: true,
          allowPrivateNetwork: true,
        },
      ]).success,
    ).toBe(true);
    expect(
      messages(appWith([{ url: "ftp://hooks.example.com/", events: ["user.created"], secret: SECRET }])),
    ).toEqual(["must be an http(s) URL"]);
    expect(
      messages(
        appWith([{ url: "https://u:p@hooks.example.com/", events: ["user.created"], secret: SECRET }]),
      ),
    ).toEqual(["must not carry a user name or password"]);
  });

  it("refuses private, link-local, metadata and other non-public addresses unless the endpoint opts in", () => {
    const optIn = "webhooks go to public addresses unless the endpoint sets allowPrivateNetwork: true";
    const cases: [string, string][] = [
      ["https://169.254.169.254/latest/meta-data/", "link-local (169.254.0.0/16, cloud metadata)"],
      ["https://10.1.2.3/in", "private (10.0.0.0/8)"],
      ["https://172.16.0.1/in", "private (172.16.0.0/12)"],
      ["https://172.31.255.254/in", "private (172.16.0.0/12)"],
      ["https://192.168.1.10/in", "private (192.168.0.0/16)"],
      ["https://100.64.0.1/in", "shared address space (100.64.0.0/10)"],
      ["https://0.0.0.0/in", "unspecified (0.0.0.0/8)"],
      ["https://[fc00::1]/in", "unique local (fc00::/7)"],
      ["https://[fd00:ec2::254]/in", "unique local (fc00::/7)"],
      ["https://[fe80::1]/in", "link-local (fe80::/10)"],
      ["https://[::]/in", "unspecified (::)"],
      // IPv4-mapped IPv6 and the other spellings URL parsing turns into the same address.
      ["https://[::ffff:169.254.169.254]/in", "link-local (169.254.0.0/16, cloud metadata)"],
      ["https://[::ffff:a00:1]/in", "private (10.0.0.0/8)"],
      ["https://[64:ff9b::c0a8:101]/in", "private (192.168.0.0/16)"],
      ["https://2852039166/in", "link-local (169.254.0.0/16, cloud metadata)"],
      ["https://0xa9.254.169.254/in", "link-local (169.254.0.0/16, cloud metadata)"],
    ];
    for (const [url, range] of cases) {
      expect(messages(appWith([{ url, events: ["user.created"], secret: SECRET }])), url).toEqual([
        `is a ${range} address: ${optIn}`,
      ]);
      const allowed = [{ url, events: ["user.created"], secret: SECRET, allowPrivateNetwork: true }];
      expect(appWith(allowed).success, url).toBe(true);
    }
    // Public addresses and names pass (a name is checked against its DNS answers at each delivery).
    for (const url of [
      "https://93.184.215.14/in",
      "https://[2606:4700::6810:84e5]/in",
      "https://172.32.0.1/",
    ])
      expect(appWith([{ url, events: ["user.created"], secret: SECRET }]).success, url).toBe(true);
    expect(refusedRangeOf("100.128.0.1")).toBeNull();
    expect(refusedRangeOf("::ffff:127.0.0.1")?.kind).toBe("loopback");
    expect(refusedRangeOf("2002:a9fe:a9fe::1")?.range).toBe("link-local (169.254.0.0/16, cloud metadata)");
  });

  it("loopback only in dev mode, or with the endpoint's opt-in", () => {
    for (const url of ["http://127.0.0.1:9000/x", "http://localhost:9000/x", "http://[::1]:9000/x"]) {
      const e = { url, events: ["user.created" as const], secret: SECRET };
      expect(loopbackWebhookIssue("shop", [e], { allowLoopback: false }), url).toMatch(
        /^App shop: webhook .* is a loopback \(.*\) address: allowed in dev mode \(latchkey serve --dev\), otherwise only with allowPrivateNetwork: true on the endpoint$/,
      );
      expect(loopbackWebhookIssue("shop", [e], { allowLoopback: true })).toBeNull();
      expect(
        loopbackWebhookIssue("shop", [{ ...e, allowPrivateNetwork: true }], { allowLoopback: false }),
      ).toBeNull();
    }
  });

  it("wants known events, a whsec_ secret of 24 to 64 bytes, and each URL once", () => {
    expect(appWith([{ url: "https://a.test/", events: ["user.deleted"], secret: SECRET }]).success).toBe(
      false,
    );
    expect(appWith([{ url: "https://a.test/", events: [], secret: SECRET }]).success).toBe(false);
    expect(appWith([{ url: "https://a.test/", events: ["user.created"], secret: "hunter2" }]).success).toBe(
      false,
    );
    const short = `whsec_${Buffer.alloc(8).toString("base64")}`;
    expect(messages(appWith([{ url: "https://a.test/", events: ["user.created"], secret: short }]))).toEqual([
      "must hold 24 to 64 bytes (base64 after whsec_)",
    ]);
    const twice = { url: "https://a.test/", events: ["user.created"], secret: SECRET };
    expect(messages(appWith([twice, twice]))).toEqual(["https://a.test/ is listed twice"]);
    expect(appConfigSchema.parse({ id: "shop", name: "Shop" }).webhooks).toEqual([]);
  });

  it("tuning comes from LATCHKEY_WEBHOOK_*; a bad value is refused at start", () => {
    const t = webhookTuning({});
    expect([t.retryBaseMs, t.retryForMs, t.timeoutMs, t.leaseMs]).toEqual([
      5_000, 86_400_000, 10_000, 30_000,
    ]);
    expect(
      webhookTuning({ LATCHKEY_WEBHOOK_TIMEOUT_MS: "1000", LATCHKEY_WEBHOOK_LEASE_MS: "10" }).leaseMs,
    ).toBe(1500);
    expect(() => webhookTuning({ LATCHKEY_WEBHOOK_POLL_MS: "soon" })).toThrow(/LATCHKEY_WEBHOOK_POLL_MS/);
  });

  it("backs off exponentially, within ±20%, up to the maximum", () => {
    const t = webhookTuning({});
    const mid = { uuid: () => "", bytes: (n: number) => Buffer.alloc(n), int: () => 200 };
    expect([1, 2, 3, 4].map((n) => backoffMs(n, t, mid))).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(backoffMs(30, t, mid)).toBe(3_600_000);
    const low = { ...mid, int: () => 0 };
    const high = { ...mid, int: () => 400 };
    expect([backoffMs(1, t, low), backoffMs(1, t, high)]).toEqual([4_000, 6_000]);
  });
});

describe("audit events to webhook events", () => {
  it("maps each audited change to its webhook type with only the listed fields", () => {
    const cases: [string, object, unknown][] = [
      ["user.signup", { method: "email" }, { type: "user.created", data: { method: "email" } }],
      [
        "user.signin",
        { method: "oauth", provider: "google" },
        { type: "user.signed_in", data: { method: "oauth", provider: "google" } },
      ],
      [
        "passkey.added",
        { names: ["Mac"], stepUp: "otp" },
        { type: "auth_method.added", data: { method: "passkey", names: ["Mac"] } },
      ],
      ["passkey.removed", {}, { type: "auth_method.removed", data: { method: "passkey" } }],
      [
        "oauth.linked",
        { providers: ["google"] },
        { type: "auth_method.added", data: { method: "oauth", providers: ["google"] } },
      ],
      [
        "oauth.unlinked",
        { providerIds: ["p1"] },
        { type: "auth_method.removed", data: { method: "oauth", providerIds: ["p1"] } },
      ],
      ["mfa.enabled", { stepUp: "otp" }, { type: "mfa.added", data: { factor: "totp" } }],
      ["mfa.removed", {}, { type: "mfa.removed", data: { factor: "totp" } }],
      [
        "wallet.exported",
        { walletId: "w1", stepUp: "otp" },
        { type: "wallet.exported", data: { walletId: "w1" } },
      ],
      [
        "signing.held",
        { activityId: "a1", type: "T", ruleId: "r" },
        { type: "activity.consensus_needed", data: { activityId: "a1", type: "T", ruleId: "r" } },
      ],
      [
        "signing.approved",
        { activityId: "a1", admin: "ops" },
        { type: "activity.approved", data: { activityId: "a1", admin: "ops" } },
      ],
      [
        "signing.rejected",
        { activityId: "a1", admin: "ops" },
        { type: "activity.rejected", data: { activityId: "a1", admin: "ops" } },
      ],
      [
        "signing.rejected",
        { activityId: "a1", type: "T", ruleId: "r" },
        { type: "policy.denied", data: { activityId: "a1", type: "T", ruleId: "r" } },
      ],
      [
        "user.pregenerated",
        { admin: "ops", externalId: "cust-1" },
        { type: "user.created", data: { method: "pregenerated", externalId: "cust-1" } },
      ],
      ["user.claimed", { method: "email_code" }, { type: "user.claimed", data: { method: "email_code" } }],
      [
        "wallet.imported",
        { walletId: "w2", kind: "mnemonic", addresses: ["0xa"], replaced: ["0xb"], stepUp: "otp" },
        { type: "wallet.imported", data: { walletId: "w2", kind: "mnemonic", addresses: ["0xa"] } },
      ],
      [
        "grant.created",
        { grantId: "g1", permissions: { chainIds: [1] } },
        { type: "grant.created", data: { grantId: "g1", permissions: { chainIds: [1] } } },
      ],
      ["grant.revoked", { grantId: "g1" }, { type: "grant.revoked", data: { grantId: "g1" } }],
      [
        "sponsorship.spent",
        { policyId: "p", day: "2026-11-27", amount: "5", unit: "wei", operationAdded: true },
        {
          type: "sponsorship.spent",
          data: { policyId: "p", day: "2026-11-27", amount: "5", unit: "wei", operationAdded: true },
        },
      ],
    ];
    for (const [event, details, expected] of cases)
      expect(webhookEventOf(event, details), event).toEqual(expected);
    // Every event type an endpoint may ask for is made by some audit event.
    const made = new Set(cases.map((c) => (c[2] as { type: string }).type));
    expect([...WEBHOOK_EVENT_TYPES].filter((t) => !made.has(t))).toEqual([]);
    for (const quiet of ["otp.burned", "oauth.failed", "siwe.signin", "mfa.requested", "contact.code_sent"])
      expect(webhookEventOf(quiet, {}), quiet).toBeNull();
  });
});
