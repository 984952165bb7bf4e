/**
 * Admission control for `/mcp`: per-identity concurrency limits on reads, a bounded FIFO queue per
 * identity, and `429 Too Many Requests` with `Retry-After` (and a JSON-RPC error body) beyond it.
 *
 * Two lanes. The read lane — every `/mcp` POST except calls of write/destructive tools — is limited.
 * The priority lane — `tools/call` of a write or destructive tool (held calls, approved retries,
 * executions) — is never queued or refused here, and neither are the approvals API and page, which
 * are not behind this middleware at all: an approve → execute cycle never waits behind a flood of
 * reads, whoever floods. The limit is per identity, so one busy caller cannot starve another's reads.
 */
import type { Request, RequestHandler } from 'express';
import type { ToolRegistry } from '../tools/index.ts';

/** Limits of the read lane, per identity. */
export interface AdmissionLimits {
  /** Reads one identity may have running at once (default 8). */
  maxConcurrentReads: number;
  /** Reads of one identity waiting for a slot before further ones get 429 (default 64). */
  readQueue: number;
  /** `Retry-After` of a 429, in whole seconds (default 1). */
  retryAfterSeconds: number;
}

export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  maxConcurrentReads: 8,
  readQueue: 64,
  retryAfterSeconds: 1,
};

/** Environment variables that set the limits (`sentinel serve` flags win over them). */
export const ADMISSION_ENV = {
  maxConcurrentReads: 'SENTINEL_MAX_CONCURRENT_READS',
  readQueue: 'SENTINEL_READ_QUEUE',
  retryAfterSeconds: 'SENTINEL_RETRY_AFTER_SECONDS',
} as const satisfies Record<keyof AdmissionLimits, string>;

/**
 * The limits from `env` over the defaults. Throws `Error` naming the variable when a value is not a
 * whole number in range (concurrency >= 1, queue >= 0, Retry-After >= 1).
 */
export function admissionLimitsFromEnv(
  env: NodeJS.ProcessEnv,
  overrides: Partial<AdmissionLimits> = {},
): AdmissionLimits {
  const limits = { ...DEFAULT_ADMISSION_LIMITS };
  const minimum: AdmissionLimits = { maxConcurrentReads: 1, readQueue: 0, retryAfterSeconds: 1 };
  for (const key of Object.keys(ADMISSION_ENV) as (keyof AdmissionLimits)[]) {
    const raw = overrides[key] ?? env[ADMISSION_ENV[key]];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < minimum[key]) {
      throw new Error(
        `${ADMISSION_ENV[key]} must be a whole number >= ${minimum[key]}, got '${String(raw)}'`,
      );
    }
    limits[key] = value;
  }
  return limits;
}

/** Counters of the read lane, for tests and metrics. */
export interface AdmissionStats {
  running: number;
  queued: number;
  rejected: number;
}

interface IdentityLane {
  running: number;
  waiting: (() => void)[];
}

/**
 * Express middleware for `POST /mcp`, after authentication and body parsing (it reads the
 * identity and the JSON-RPC body). `registry` tells write/destructive tools apart.
 */
export function createAdmission(
  registry: ToolRegistry,
  limits: AdmissionLimits = DEFAULT_ADMISSION_LIMITS,
): { middleware: RequestHandler; stats(): AdmissionStats } {
  const lanes = new Map<string, IdentityLane>();
  let rejected = 0;

  const priority = (body: unknown): boolean => {
    const messages = Array.isArray(body) ? (body as unknown[]) : [body];
    return messages.some((message) => {
      const m = message as { method?: unknown; params?: { name?: unknown } } | null;
      if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') return false;
      const risk = registry.get(m.params.name)?.risk;
      return risk === 'write' || risk === 'destructive';
    });
  };

  const release = (name: string, lane: IdentityLane) => {
    const next = lane.waiting.shift();
    if (next) next();
    else {
      lane.running -= 1;
      if (lane.running === 0) lanes.delete(name);
    }
  };

  const middleware: RequestHandler = (req: Request, res, next) => {
    if (priority(req.body)) {
      next();
      return;
    }
    const name = req.identity?.name ?? '';
    let lane = lanes.get(name);
    if (!lane) {
      lane = { running: 0, waiting: [] };
      lanes.set(name, lane);
    }
    const current = lane;
    let done = false;
    const start = () => {
      // The slot is released once, when the answer is sent or the client goes away.
      const finish = () => {
        if (done) return;
        done = true;
        release(name, current);
      };
      res.on('finish', finish);
      res.on('close', finish);
      next();
    };
    if (current.running < limits.maxConcurrentReads) {
      current.running += 1;
      start();
      return;
    }
    if (current.waiting.length >= limits.readQueue) {
      rejected += 1;
      const id = (req.body as { id?: unknown } | undefined)?.id;
      res
        .status(429)
        .set('Retry-After', String(limits.retryAfterSeconds))
        .json({
          jsonrpc: '2.0',
          error: {
            code: -32000,
            message: `Too many requests: identity '${name}' already has ${limits.maxConcurrentReads} reads running and ${limits.readQueue} waiting. Retry after ${limits.retryAfterSeconds} s.`,
          },
          id: typeof id === 'string' || typeof id === 'number' ? id : null,
        });
      return;
    }
    // Queued: runs when a slot frees (the slot is handed over, `running` unchanged); a client that
    // leaves while waiting gives up its place.
    const run = () => {
      if (res.writableEnded || res.destroyed) {
        release(name, current);
        return;
      }
      start();
    };
    current.waiting.push(run);
    res.on('close', () => {
      const at = current.waiting.indexOf(run);
      if (at >= 0) current.waiting.splice(at, 1);
    });
  };

  const stats = (): AdmissionStats => {
    let running = 0;
    let queued = 0;
    for (const lane of lanes.values()) {
      running += lane.running;
      queued += lane.waiting.length;
    }
    return { running, queued, rejected };
  };
  return { middleware, stats };
}
