/**
 * The embedded Kubernetes API simulator, as a library.
 *
 * ```ts
 * const sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0 });
 * const kc = new KubeConfig(); kc.loadFromString(sim.kubeconfig);   // or kubectl --kubeconfig sim.kubeconfigPath
 * sim.clock.advance(60_000);                                         // one simulated minute later
 * sim.mutationLog;                                                   // every POST/PUT/PATCH/DELETE
 * await sim.close();
 * ```
 *
 * It serves HTTPS on 127.0.0.1 (CA generated at start, in the kubeconfig), authenticates bearer
 * tokens, and runs the Deployment → ReplicaSet → Pod controllers and the kubelet on a simulated
 * clock. See deploy/sim/README.md.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { SentinelError } from '../../core/index.ts';
import { AuditLog } from './api/audit-log.ts';
import { ApiHandler } from './api/handler.ts';
import type { MutationRecord, SimIdentity } from './api/handler.ts';
import { SimulatedCluster } from './cluster.ts';
import { buildKubeconfig } from './kubeconfig.ts';
import { loadScenario } from './scenario/load.ts';
import type { Scenario } from './scenario/schema.ts';
import { certificatesForProcess } from './tls.ts';

export type { MutationRecord, SimIdentity } from './api/handler.ts';
export type { AuditEvent } from './api/audit-log.ts';
export type { Scenario, ScenarioInput, ExpectedOutcome } from './scenario/schema.ts';
export { loadScenario, listScenarios, SCENARIOS_DIR } from './scenario/load.ts';

export interface SimulatorOptions {
  /** Bundled scenario name (`bad-image-rollout`), a YAML file path, or a scenario object. */
  scenario: string | Record<string, unknown>;
  /** Loopback address to bind (default 127.0.0.1; only loopback addresses are accepted). */
  host?: string;
  /** TCP port (default 0: an ephemeral port). */
  port?: number;
  /**
   * Simulated milliseconds per wall-clock millisecond (default 1). 0 freezes time: only
   * `clock.advance()` moves it (deterministic tests). 60 = a simulated minute per second.
   */
  timeScale?: number;
  /** Also write the kubeconfig to this file (mode 0600). */
  kubeconfigPath?: string;
  /** Bearer token of the admin identity `sim-admin` (default: 32 random bytes, hex). */
  token?: string;
  /**
   * More identities, each authorised by RBAC (the Roles and bindings stored) and given a kubeconfig
   * context of its name: `{ name: 'system:serviceaccount:sentinel:sentinel', token }`,
   * `{ name: 'alice', token, groups: ['ops'] }`; `readOnly: true` also grants get/list/watch on
   * everything without a binding.
   */
  identities?: SimIdentity[];
  /** Epoch ms of t = 0, the moment the scenario is "now" (default: Date.now()). */
  startTime?: number;
  /** Called with unexpected internal errors (they become 500 Status responses). */
  onInternalError?: (error: unknown) => void;
  /**
   * Append an audit log there (like kube-apiserver `--audit-log-path`): one JSON line per request
   * with verb, requestURI, user, objectRef, responseStatus, dryRun, bytes and latency.
   */
  auditLogPath?: string;
}

/** Simulated time control. */
export interface SimulatorClock {
  /** Simulated now, epoch milliseconds. */
  now(): number;
  /** Moves simulated time forward by `ms`, running every controller, timer and kubelet on the way. */
  advance(ms: number): void;
  readonly timeScale: number;
}

export interface Simulator {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** kubeconfig YAML (cluster with certificate-authority-data, token user, context `sentinel-sim`). */
  kubeconfig: string;
  /** Where the kubeconfig was written, when `kubeconfigPath` was given. */
  kubeconfigPath: string | undefined;
  contextName: string;
  /** Admin bearer token (identity `sim-admin`). */
  token: string;
  /** CA certificate, PEM. */
  caPem: string;
  /** CA certificate, base64 of the PEM (the kubeconfig's certificate-authority-data). */
  caData: string;
  /** Every mutating request so far, oldest first (live array: read it after acting). */
  readonly mutationLog: readonly MutationRecord[];
  clock: SimulatorClock;
  /** The loaded scenario, including its expected outcome. */
  scenario: Scenario;
  /** The simulated cluster behind the API (store, controllers), for tests that look inside. */
  cluster: SimulatedCluster;
  /**
   * Connection counters since start (live): TLS handshakes completed (`secureConnection` events of
   * the HTTPS server, one per new client connection), HTTP requests received and watch streams. For tests and
   * benchmarks of clients' connection reuse (`auditLogPath` has each request's bytes).
   */
  readonly traffic: SimulatorTraffic;
  /**
   * Makes every watch stream open now half-open, as a network partition leaves it: headers sent,
   * then never another byte nor an end (until the client disconnects or the simulator closes).
   * Later watches are served normally; changes still happen. Returns how many it silenced.
   */
  silenceWatches(): number;
  /** Stops serving, ends open watches, stops the clock. */
  close(): Promise<void>;
}

/** See `Simulator.traffic`. */
export interface SimulatorTraffic {
  readonly tlsHandshakes: number;
  readonly requests: number;
  /** Watch requests served, and the watch streams open now (ended by the client, timeout or close). */
  readonly watches: number;
  readonly openWatches: number;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** How often (wall ms) the simulation catches up with wall time between requests. */
const TICK_MS = 100;

/**
 * Starts the simulator. Replays the scenario's history first, so at return the incident is in
 * progress.
 * @throws SentinelError invalid_input for a bad scenario, a non-loopback host or a bad option;
 *   unavailable when the port cannot be bound.
 */
export async function startSimulator(options: SimulatorOptions): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new SentinelError(
      'invalid_input',
      `host "${host}" is not a loopback address; the simulator binds 127.0.0.1 or ::1 only`,
      { field: 'host' },
    );
  }
  const timeScale = options.timeScale ?? 1;
  if (!Number.isFinite(timeScale) || timeScale < 0) {
    throw new SentinelError(
      'invalid_input',
      `timeScale must be a number >= 0 (0 freezes time), got ${timeScale}`,
      { field: 'timeScale' },
    );
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new SentinelError('invalid_input', `port must be an integer from 0 to 65535, got ${port}`, {
      field: 'port',
    });
  }
  const scenario = loadScenario(options.scenario);
  const cluster = new SimulatedCluster({
    scenario,
    timeScale,
    ...(options.startTime !== undefined && { startTime: options.startTime }),
  });
  const token = options.token ?? randomBytes(32).toString('hex');
  const identities: SimIdentity[] = [
    { name: 'sim-admin', token, groups: ['system:masters'] },
    ...(options.identities ?? []),
    ...scenario.identities.map((identity) => ({
      name: identity.name,
      token: randomBytes(24).toString('hex'),
      ...(identity.groups && { groups: identity.groups }),
    })),
  ];
  const certificates = certificatesForProcess();
  const mutationLog: MutationRecord[] = [];
  const closing = new AbortController();
  let auditLog: AuditLog | undefined;
  if (options.auditLogPath) {
    try {
      auditLog = new AuditLog(options.auditLogPath);
    } catch (error) {
      throw new SentinelError(
        'invalid_input',
        `cannot open the audit log ${options.auditLogPath}: ${(error as Error).message}`,
        { field: 'auditLogPath', cause: error },
      );
    }
  }
  let address = '';
  const traffic = { tlsHandshakes: 0, requests: 0, watches: 0, openWatches: 0 };
  const watchSilencers = new Set<() => void>();
  const handler = new ApiHandler({
    cluster,
    identities,
    serverAddress: () => address,
    mutationLog,
    closeSignal: closing.signal,
    watchTally: traffic,
    watchSilencers,
    ...(auditLog && { auditLog }),
    ...(options.onInternalError && { onInternalError: options.onInternalError }),
  });
  const server = createServer({ cert: certificates.certPem, key: certificates.keyPem }, handler.handle);
  server.on('secureConnection', () => (traffic.tlsHandshakes += 1));
  server.on('request', () => (traffic.requests += 1));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      auditLog?.close();
      reject(
        new SentinelError('unavailable', `the simulator cannot listen on ${host}:${port}: ${error.message}`, {
          field: 'port',
          cause: error,
        }),
      );
    });
    server.listen(port, host, () => resolve());
  });
  const bound = server.address() as AddressInfo;
  const urlHost = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
  address = `${urlHost}:${bound.port}`;
  const url = `https://${address}`;
  cluster.clock.startRealTime();
  const ticker = timeScale > 0 ? setInterval(() => cluster.reconcile(), TICK_MS) : undefined;
  ticker?.unref();

  const contextName = 'sentinel-sim';
  const kubeconfig = buildKubeconfig({
    server: url,
    caPem: certificates.caPem,
    token,
    contextName,
    users: identities.slice(1).map(({ name, token: userToken }) => ({ name, token: userToken })),
  });
  if (options.kubeconfigPath) {
    try {
      writeFileSync(options.kubeconfigPath, kubeconfig, { mode: 0o600 });
    } catch (error) {
      server.close();
      auditLog?.close();
      if (ticker) clearInterval(ticker);
      throw new SentinelError(
        'invalid_input',
        `cannot write the kubeconfig to ${options.kubeconfigPath}: ${(error as Error).message}`,
        {
          field: 'kubeconfigPath',
          cause: error,
        },
      );
    }
  }

  return {
    url,
    port: bound.port,
    kubeconfig,
    kubeconfigPath: options.kubeconfigPath,
    contextName,
    token,
    caPem: certificates.caPem,
    caData: Buffer.from(certificates.caPem).toString('base64'),
    mutationLog,
    clock: {
      now: () => cluster.clock.sync(),
      advance: (ms: number) => {
        cluster.clock.advance(ms);
        cluster.reconcile();
      },
      timeScale,
    },
    scenario,
    cluster,
    traffic,
    silenceWatches: () => {
      const open = [...watchSilencers];
      watchSilencers.clear();
      for (const silence of open) silence();
      return open.length;
    },
    close: async () => {
      if (ticker) clearInterval(ticker);
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      auditLog?.close();
    },
  };
}
