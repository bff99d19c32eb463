import type { FastifyInstance } from "fastify";

const BUCKETS_MS = [1, 2, 5, 10, 20, 50, 100, 250, 500, 1000, 2500];

/**
 * Prometheus metrics in the text exposition format, kept in memory per process: request counts and
 * latency by route and status, signatures made, and failed codes. No labels carry user data.
 */
export class Metrics {
  readonly #requests = new Map<string, number>();
  readonly #latency = new Map<string, { buckets: number[]; sum: number; count: number }>();
  readonly #counters = new Map<string, number>();

  inc(name: string, by = 1): void {
    this.#counters.set(name, (this.#counters.get(name) ?? 0) + by);
  }

  observe(route: string, method: string, status: number, ms: number): void {
    const key = `method="${method}",route="${route}",status="${status}"`;
    this.#requests.set(key, (this.#requests.get(key) ?? 0) + 1);
    const lkey = `method="${method}",route="${route}"`;
    let h = this.#latency.get(lkey);
    if (!h) {
      h = { buckets: BUCKETS_MS.map(() => 0), sum: 0, count: 0 };
      this.#latency.set(lkey, h);
    }
    BUCKETS_MS.forEach((b, i) => {
      if (ms <= b && h) h.buckets[i] = (h.buckets[i] ?? 0) + 1;
    });
    h.sum += ms;
    h.count += 1;
  }

  render(): string {
    const out: string[] = [];
    out.push("# HELP latchkey_http_requests_total HTTP requests by route and status.");
    out.push("# TYPE latchkey_http_requests_total counter");
    for (const [k, v] of this.#requests) out.push(`latchkey_http_requests_total{${k}} ${v}`);
    out.push("# HELP latchkey_http_request_duration_ms HTTP request latency in milliseconds.");
    out.push("# TYPE latchkey_http_request_duration_ms histogram");
    for (const [k, h] of this.#latency) {
      for (const [i, b] of BUCKETS_MS.entries()) {
        out.push(`latchkey_http_request_duration_ms_bucket{${k},le="${b}"} ${h.buckets[i]}`);
      }
      out.push(`latchkey_http_request_duration_ms_bucket{${k},le="+Inf"} ${h.count}`);
      out.push(`latchkey_http_request_duration_ms_sum{${k}} ${h.sum.toFixed(3)}`);
      out.push(`latchkey_http_request_duration_ms_count{${k}} ${h.count}`);
    }
    for (const [name, v] of this.#counters) {
      out.push(`# TYPE ${name} counter`);
      out.push(`${name} ${v}`);
    }
    return `${out.join("\n")}\n`;
  }
}

export function registerMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.addHook("onResponse", async (req, reply) => {
    const route = req.routeOptions.url ?? "unmatched";
    if (route === "/metrics") return;
    metrics.observe(route, req.method, reply.statusCode, reply.elapsedTime);
    if (route === "/signer/v1/sign-payload" && reply.statusCode === 200)
      metrics.inc("latchkey_signatures_total");
    if (route === "/signer/v1/otp" && reply.statusCode === 400) metrics.inc("latchkey_otp_failures_total");
  });
  app.get("/metrics", async (_req, reply) => reply.type("text/plain; version=0.0.4").send(metrics.render()));
}
