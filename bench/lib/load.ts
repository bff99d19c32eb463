import http from "node:http";
import { eventLoopCpuMs, round, serviceCpuMs } from "./report";
export interface PreparedRequest {
  path: string;
  /** The exact bytes to send (built before the run so the client does no work while timing). */
  body: Buffer;
  /** Headers of this request alone (e.g. its stamp), over the run's. */
  headers?: Record<string, string>;
}

export interface LoadOptions {
  baseUrl: string;
  requests: PreparedRequest[];
  /**
   * Sent first over the same sockets and left out of the figures, so the measured run starts on warm,
   * already-open keep-alive connections (steady state, not connection set-up).
   */
  warmup?: PreparedRequest[];
  connections: number;
  /** Headers sent with every request (content-type and content-length are added). */
  headers?: Record<string, string>;
  /** Optional check of a 2xx answer; returning a string marks the request as an error with that reason. */
  validate?: (status: number, body: string, request: PreparedRequest) => string | undefined;
  timeoutMs?: number;
  /** The service's pid: the result then carries its CPU time per measured request (serviceCpuMs). */
  servicePid?: number;
  /**
   * Sustained mode: the measured run stops taking new requests after this long (those in flight finish),
   * so `requests` must hold more than the service can answer in that time. The result then counts the
   * requests answered and carries the answers per second of each whole second (`perSecond`).
   */
  durationMs?: number;
  /** Keep every measured request's latency in the result (`latencies`, ms). */
  keepLatencies?: boolean;
}

export interface LoadResult {
  connections: number;
  requests: number;
  durationMs: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  meanMs: number;
  errors: number;
  /** The load generator's own CPU use (this process) during the measured run, in cores: it shares them. */
  loadGeneratorCores: number;
  /** Error counts by kind: HTTP status, "network" or "invalid". */
  errorKinds: Record<string, number>;
  /** Failures during the warm-up (not counted in `errors`). */
  warmupErrors: Record<string, number>;
  /** A few failed answers, for diagnosis. */
  errorSamples: string[];
  /** The service's CPU time (user + system, all its processes) per measured request, in µs. */
  serviceCpuUsPerRequest?: number;
  /** Of that, the event loops' (the processes' main threads, without worker threads and libuv's pool). */
  eventLoopCpuUsPerRequest?: number;
  /** The service's CPU use during the measured run, in cores (1.0 = one core busy all the time). */
  serviceCores?: number;
  /** Sustained mode: answers completed in each whole second of the run, and their spread. */
  perSecond?: { min: number; median: number; max: number; seconds: number[] };
  /** With `keepLatencies`: each request's latency in ms, in request order (to merge runs before taking percentiles). */
  latencies?: Float64Array;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? 0;
}

/** One POST of `req` over `agent`; answers the status and the body as text. */
export function sendRequest(
  agent: http.Agent,
  url: URL,
  req: PreparedRequest,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number; body: string }> {
  return new Promise((res, rej) => {
    const r = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: "POST",
        path: req.path,
        headers: { ...headers, ...req.headers, "content-length": String(req.body.length) },
        timeout: timeoutMs,
      },
      (resp) => {
        const chunks: Buffer[] = [];
        resp.on("data", (c: Buffer) => chunks.push(c));
        resp.on("end", () =>
          res({ status: resp.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
        );
        resp.on("error", rej);
      },
    );
    r.on("timeout", () => r.destroy(new Error(`timed out after ${timeoutMs} ms`)));
    r.on("error", rej);
    r.end(req.body);
  });
}

/**
 * Sends every request in `opts.requests` exactly once over `connections` keep-alive sockets, each socket
 * carrying one request at a time (closed loop), and times each request from write to last byte.
 */
export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const { requests, connections } = opts;
  const url = new URL(opts.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, maxFreeSockets: connections });
  const headers = { "content-type": "application/json", ...opts.headers };
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const latencies = new Float64Array(requests.length);
  let record = latencies; // where the workers write latencies (a scratch array during the warm-up)
  const errorKinds: Record<string, number> = {};
  const errorSamples: string[] = [];
  let errors = 0;
  let next = 0;
  const warmupErrors: Record<string, number> = {};
  let warming = false;
  const fail = (kind: string, sample: string) => {
    if (warming) {
      warmupErrors[kind] = (warmupErrors[kind] ?? 0) + 1;
      if (errorSamples.length < 5) errorSamples.push(`warm-up ${kind}: ${sample.slice(0, 300)}`);
      return;
    }
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
    if (errorSamples.length < 5) errorSamples.push(`${kind}: ${sample.slice(0, 300)}`);
  };

  let queue = requests;
  let completions: bigint[] | undefined;
  let stopAt: bigint | undefined;
  const worker = async () => {
    for (;;) {
      if (stopAt !== undefined && process.hrtime.bigint() >= stopAt) return;
      const i = next++;
      if (i >= queue.length) return;
      const req = queue[i] as PreparedRequest;
      const t0 = process.hrtime.bigint();
      try {
        const { status, body } = await sendRequest(agent, url, req, headers, timeoutMs);
        const t1 = process.hrtime.bigint();
        record[i] = Number(t1 - t0) / 1e6;
        completions?.push(t1);
        if (status < 200 || status >= 300) fail(String(status), body);
        else {
          const problem = opts.validate?.(status, body, req);
          if (problem) fail("invalid", `${problem} — ${body}`);
        }
      } catch (e) {
        record[i] = Number(process.hrtime.bigint() - t0) / 1e6;
        fail("network", e instanceof Error ? e.message : String(e));
      }
    }
  };

  const workers = () => Promise.all(Array.from({ length: Math.min(connections, queue.length) }, worker));
  if (opts.warmup?.length) {
    queue = opts.warmup;
    warming = true;
    record = new Float64Array(queue.length);
    await workers();
    record = latencies;
    warming = false;
    queue = requests;
    next = 0;
  }
  const cpuBefore = opts.servicePid ? serviceCpuMs(opts.servicePid) : 0;
  const loopBefore = opts.servicePid ? eventLoopCpuMs(opts.servicePid) : 0;
  const clientBefore = process.cpuUsage();
  const start = process.hrtime.bigint();
  if (opts.durationMs !== undefined) {
    // Requests are handed out only until the deadline; those in flight then finish.
    stopAt = start + BigInt(Math.round(opts.durationMs * 1e6));
    completions = [];
  }
  await workers();
  const durationMs = Number(process.hrtime.bigint() - start) / 1e6;
  const cpuUsed = opts.servicePid ? serviceCpuMs(opts.servicePid) - cpuBefore : 0;
  const loopUsed = opts.servicePid ? eventLoopCpuMs(opts.servicePid) - loopBefore : 0;
  const client = process.cpuUsage(clientBefore);
  agent.destroy();

  const answered = completions ? completions.length : requests.length;
  const sorted = latencies.slice(0, answered).sort();
  let sum = 0;
  for (const l of sorted) sum += l;
  let perSecond: LoadResult["perSecond"];
  if (completions) {
    const seconds = new Array<number>(Math.floor(durationMs / 1000)).fill(0);
    for (const t of completions) {
      const s = Math.floor(Number(t - start) / 1e9);
      if (s < seconds.length) seconds[s] = (seconds[s] ?? 0) + 1;
    }
    const ordered = [...seconds].sort((x, y) => x - y);
    perSecond = {
      min: ordered[0] ?? 0,
      median: ordered[Math.floor(ordered.length / 2)] ?? 0,
      max: ordered[ordered.length - 1] ?? 0,
      seconds,
    };
  }
  return {
    connections,
    requests: answered,
    durationMs: round(durationMs, 1),
    rps: round(answered / (durationMs / 1000), 1),
    p50Ms: round(percentile(sorted, 50), 2),
    p90Ms: round(percentile(sorted, 90), 2),
    p99Ms: round(percentile(sorted, 99), 2),
    maxMs: round(sorted[sorted.length - 1] ?? 0, 2),
    meanMs: round(sorted.length ? sum / sorted.length : 0, 2),
    errors,
    loadGeneratorCores: round((client.user + client.system) / 1000 / durationMs, 2),
    errorKinds,
    warmupErrors,
    errorSamples,
    ...(perSecond ? { perSecond } : {}),
    ...(opts.keepLatencies ? { latencies: latencies.slice(0, answered) } : {}),
    ...(opts.servicePid
      ? {
          serviceCpuUsPerRequest: round((cpuUsed * 1000) / answered, 0),
          serviceCores: round(cpuUsed / durationMs, 2),
          eventLoopCpuUsPerRequest: round((loopUsed * 1000) / answered, 0),
        }
      : {}),
  };
}
