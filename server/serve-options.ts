/**
 * `sentinel serve` options: their schema, defaults and the rules between flags. Its own module so
 * that the primary of `--workers N`, which only parses its flags and forks, loads zod and core
 * alone — not the auth middleware (MCP SDK, Express) that config.ts's address rules sit next to.
 */
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { fromZod, type ZodIssueLine, SentinelError, sentinelCommand } from '../core/index.ts';

/** `--read-cache`: `off` or `watch` (tools/kube/read-cache.ts `ReadCacheMode`). */
const ReadCacheModeSchema = z.enum(['off', 'watch'], { error: "must be 'off' or 'watch'" });
type ReadCacheMode = z.infer<typeof ReadCacheModeSchema>;

/** The environment variable that sets `--read-cache` (the flag wins over it). */
export const READ_CACHE_ENV = 'SENTINEL_READ_CACHE';
/** `--read-cache` when neither the flag nor SENTINEL_READ_CACHE says (see `readCacheMode`). */
export const DEFAULT_READ_CACHE: ReadCacheMode = 'watch';

/** Flags of `sentinel serve`, as commander delivers them (camelCase). */
/**
 * Most `--workers` a server may start: two per core. Each worker is a whole server process (~100 MB);
 * beyond the cores they only compete for them, and an unbounded count forked until the machine
 * stopped answering (`--workers 1000000`).
 */
export const MAX_WORKERS = 2 * availableParallelism();

export const ServeOptionsSchema = z.strictObject({
  /** Address to bind. Default 127.0.0.1 (loopback). */
  host: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  /** TCP port, 0-65535; 0 picks a free port. Default 7070. */
  port: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0-65535')
    .max(65535, 'must be 0-65535')
    .default(7070),
  /** Extra host names accepted in Host/Origin headers (repeatable). */
  allowedHost: z.array(z.string()).default([]),
  /** File holding the startup token (identity `local`); overrides SENTINEL_TOKEN. */
  tokenFile: z.string().optional(),
  /** Identities file; default `<data-dir>/tokens.yaml`. */
  tokensFile: z.string().optional(),
  /** Allow a non-loopback --host (requires at least one token). */
  allowRemote: z.boolean().default(false),
  /** PEM certificate chain and key for HTTPS; both or neither. */
  tlsCert: z.string().optional(),
  tlsKey: z.string().optional(),
  kubeconfig: z.string().optional(),
  context: z.string().optional(),
  dataDir: z.string().optional(),
  /**
   * Where approvals and the audit log live: a `postgres://` (or `postgresql://`) URL shared by every
   * replica; default (undefined) the SQLite files in the data directory. Env SENTINEL_STORE_URL.
   */
  store: z
    .string()
    .regex(
      /^postgres(ql)?:\/\/\S+$/,
      'must be a postgres:// URL (omit it for the SQLite files in the data dir)',
    )
    .optional(),
  /** Approval policy file (YAML); default the commented policy shipped in server/gate/. */
  policy: z.string().optional(),
  /** Admission control (server/admission.ts): reads one identity may run at once; default env or 8. */
  maxConcurrentReads: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .optional(),
  /** Reads of one identity queued beyond that before 429; default env or 64. */
  readQueue: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(0, 'must be 0 or more')
    .optional(),
  /**
   * Processes serving HTTP on the one port (node:cluster): a whole number from 1 to `MAX_WORKERS`
   * (two per core), or `auto` for one per core (`os.availableParallelism()`). Default 1 (no cluster).
   */
  workers: z
    .union([z.number(), z.string()])
    .default(1)
    .transform((value) => (value === 'auto' ? availableParallelism() : Number(value)))
    .pipe(
      z
        .number({ error: "must be a whole number or 'auto'" })
        .int("must be a whole number or 'auto'")
        .min(1, "must be at least 1 (or 'auto')")
        .max(MAX_WORKERS, `must be at most ${MAX_WORKERS} (two per core; more only compete for the cores)`),
    ),
  /**
   * `watch`: read tools answer Deployments, ReplicaSets, Pods and HorizontalPodAutoscalers from a
   * watch-backed cache when it is synced (tools/kube/read-cache.ts); `off`: every read asks the API
   * server. Undefined when not given: SENTINEL_READ_CACHE, else `watch` (`readCacheMode`).
   */
  readCache: ReadCacheModeSchema.optional(),
  /** Serve MCP over stdin/stdout instead of HTTP. */
  stdio: z.boolean().default(false),
  /** With --stdio: the identity every call runs as (must exist). */
  identity: z.string().optional(),
});
export type ServeOptions = z.infer<typeof ServeOptionsSchema>;

/** Validates raw flags; throws `SentinelError('invalid_input')` naming the flag and the rule. */
export function parseServeOptions(raw: Record<string, unknown>): ServeOptions {
  const parsed = ServeOptionsSchema.safeParse(raw);
  if (!parsed.success) {
    // Named as the flag the user typed: `tlsCert` → `--tls-cert`.
    const flagOf = (line: ZodIssueLine) =>
      `--${String(line.issue.path[0] ?? '').replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
    throw fromZod(parsed.error, [], {
      field: flagOf,
      message: (_lines, [first]) => `${first ? flagOf(first) : '--'}: ${first?.rule}.`,
    });
  }
  const options = parsed.data;
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined)) {
    throw new SentinelError('invalid_input', '--tls-cert and --tls-key must be given together.', {
      field: options.tlsCert === undefined ? '--tls-cert' : '--tls-key',
    });
  }
  if (options.stdio && options.identity === undefined) {
    throw new SentinelError(
      'invalid_input',
      `--stdio needs --identity <name>: the identity every call runs as (\`${sentinelCommand()} tokens list\` shows them; \`local\` has every role).`,
      { field: '--identity' },
    );
  }
  if (options.stdio && options.workers > 1) {
    throw new SentinelError('invalid_input', '--workers applies only over HTTP; --stdio serves one client.', {
      field: '--workers',
    });
  }
  if (!options.stdio && options.identity !== undefined) {
    throw new SentinelError(
      'invalid_input',
      '--identity applies only with --stdio; over HTTP the identity comes from each request’s bearer token.',
      { field: '--identity' },
    );
  }
  return options;
}

/**
 * A `--read-cache` value of `sentinel eval`/`demo`, checked by the same rule as `serve`'s (undefined
 * stays undefined: the server's default). Throws `SentinelError('invalid_input')` naming
 * `--read-cache` and the rule.
 */
export function parseReadCacheMode(value: unknown): ReadCacheMode | undefined {
  return parseServeOptions(value === undefined ? {} : { readCache: value }).readCache;
}

/**
 * The read cache a server runs with: `--read-cache` over SENTINEL_READ_CACHE (empty: unset) over
 * `DEFAULT_READ_CACHE` (`watch`). Throws `SentinelError('invalid_input')` naming the variable when
 * its value is neither `off` nor `watch`.
 */
export function readCacheMode(
  options: Pick<ServeOptions, 'readCache'>,
  env: NodeJS.ProcessEnv,
): ReadCacheMode {
  if (options.readCache !== undefined) return options.readCache;
  const raw = env[READ_CACHE_ENV]?.trim();
  if (!raw) return DEFAULT_READ_CACHE;
  const parsed = ReadCacheModeSchema.safeParse(raw);
  if (!parsed.success) {
    throw new SentinelError('invalid_input', `${READ_CACHE_ENV}: must be 'off' or 'watch' (got '${raw}').`, {
      field: READ_CACHE_ENV,
    });
  }
  return parsed.data;
}
