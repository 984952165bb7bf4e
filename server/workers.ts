/**
 * `sentinel serve --workers N`: N processes serving HTTP on one port through `node:cluster` (the
 * primary accepts the connections and hands them to the workers in turn), all on the one shared
 * store — the SQLite files of the data directory (every state change is one `BEGIN IMMEDIATE`
 * transaction, which SQLite serialises across processes) or PostgreSQL.
 *
 * The primary serves nothing itself and loads none of the server: it starts the lead worker alone
 * (which migrates the store, settles what a previous run left, generates the local token if needed,
 * writes the login link and prints the banner, exactly as a single `sentinel serve`), then the
 * others; it writes the one discovery file of the server (its own pid, the lead's URL and files),
 * relays approval events between the workers (so the approvals page of each shows the others'
 * decisions) and their metrics (so `/metrics` on any worker sums all of them: workers-metrics.ts),
 * replaces a worker that dies, and stops them all on SIGINT/SIGTERM (also while they are starting;
 * a second signal kills the ones still stopping). With a worker per core, each
 * collects garbage on its own main thread (`--single-threaded-gc`, worker-gc.ts).
 *
 * Messages between primary and workers carry `sentinel` as their tag (`WorkerMessage`).
 */
import cluster, { type Worker } from 'node:cluster';
import { registerServer, type ServerEntry } from './discovery.ts';
import type { EventBridge, RemoteEventNote } from './postgres/events.ts';
import { workerExecArgv } from './worker-gc.ts';
import { createMetricsRelay, type MetricsMessage } from './workers-metrics.ts';

/** Environment variable telling a worker its role: `lead` (the first) or `follower`. */
export const WORKER_ROLE_ENV = 'SENTINEL_WORKER_ROLE';
/** Environment variable telling a worker how many workers the server runs. */
const WORKER_COUNT_ENV = 'SENTINEL_WORKER_COUNT';

/** What primary and workers send each other over the cluster's IPC channel. */
export type WorkerMessage =
  | { sentinel: 'listening'; url: string; entry?: Omit<ServerEntry, 'pid'> }
  | { sentinel: 'approval-event'; type: string; id: string; from?: number }
  | MetricsMessage;

const isWorkerMessage = (message: unknown): message is WorkerMessage =>
  typeof message === 'object' && message !== null && 'sentinel' in message;

/** At most this many replacements of dead workers per minute; beyond it the server stops. */
const MAX_RESTARTS_PER_MINUTE = 5;

/** How `runWorkers` reports to the operator. */
export interface WorkersIo {
  stderr: (text: string) => void;
}

/**
 * Runs the primary of `--workers count` (count >= 2) on `dataDir`: forks the lead worker and waits
 * for it to listen (a lead that exits first ends the server with its exit code: it printed why),
 * then the others. Resolves with the exit code once every worker has stopped — after SIGINT or
 * SIGTERM (0), after a worker failed to start (the lead's own exit code: 2 for a port in use), or
 * after workers kept dying (1). The workers re-run this
 * process's command line (`cluster.fork`), with `WORKER_ROLE_ENV` set.
 */
export async function runWorkers(options: {
  count: number;
  dataDir: string;
  io: WorkersIo;
  /** Called once every worker listens, with the server's URL (embedders, the bench). */
  onListening?: (url: string) => void;
}): Promise<number> {
  const { count, dataDir, io } = options;
  const workers = new Set<Worker>();
  const restarts: number[] = [];
  const metrics = createMetricsRelay();
  let stopping = false;
  let unregister = () => {};
  let exitCode = 0;
  /** The exit code of the first worker that exited before it listened (it printed why). */
  let startFailure: number | undefined;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((resolve) => (resolveDone = resolve));

  const maybeDone = () => {
    if (stopping && workers.size === 0) {
      unregister();
      resolveDone(exitCode);
    }
  };
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    for (const worker of workers) worker.process.kill('SIGTERM');
    maybeDone();
  };
  // A second SIGINT/SIGTERM while stopping: the workers that have not stopped yet are killed.
  const kill = () => {
    for (const worker of workers) worker.process.kill('SIGKILL');
  };

  /** Forks one worker; resolves when it listens, or with undefined when it exits before that. */
  const fork = (role: 'lead' | 'follower'): Promise<WorkerMessage | undefined> =>
    new Promise((resolve) => {
      // Stopping (a signal while the lead was starting): no new worker would ever be told to stop.
      if (stopping) return resolve(undefined);
      const worker = cluster.fork({ [WORKER_ROLE_ENV]: role, [WORKER_COUNT_ENV]: String(count) });
      workers.add(worker);
      let listening = false;
      worker.on('message', (message: unknown) => {
        if (!isWorkerMessage(message)) return;
        if (message.sentinel === 'listening') {
          // Told to stop before its message came: it is stopping, not serving.
          if (stopping) return;
          listening = true;
          metrics.listening(worker);
          resolve(message);
        } else if (message.sentinel === 'approval-event') {
          // Relayed to the other workers, which read the request back from the shared store.
          for (const other of workers) {
            if (other !== worker && other.isConnected()) other.send({ ...message, from: worker.process.pid });
          }
        } else {
          metrics.receive(worker, message);
        }
      });
      worker.on('exit', (code, signal) => {
        workers.delete(worker);
        metrics.exited(worker);
        if (!listening) {
          startFailure ??= code || 1;
          resolve(undefined);
        } else if (!stopping) replace(worker, code, signal);
        maybeDone();
      });
    });

  const replace = (worker: Worker, code: number | null, signal: string | null) => {
    const now = Date.now();
    restarts.push(now);
    while (restarts[0]! < now - 60_000) restarts.shift();
    if (restarts.length > MAX_RESTARTS_PER_MINUTE) {
      io.stderr(
        `Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); workers died ${restarts.length} times within a minute, stopping the server.\n`,
      );
      stop(1);
      return;
    }
    io.stderr(`Worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting a replacement.\n`);
    void fork('follower');
  };

  // One worker per core leaves V8's GC helper threads no idle core: each worker collects on its own.
  cluster.setupPrimary({ execArgv: workerExecArgv(count) });
  const onSignal = () => (stopping ? kill() : stop(0));
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  try {
    const lead = await fork('lead');
    if (!lead || lead.sentinel !== 'listening' || stopping) {
      // The lead printed why (bad flag, policy, port in use); its exit code is the server's.
      stop(startFailure ?? 1);
      return await done;
    }
    if (lead.entry) unregister = registerServer(dataDir, { ...lead.entry, pid: process.pid });
    const followers = await Promise.all(Array.from({ length: count - 1 }, () => fork('follower')));
    if (followers.some((started) => started === undefined)) {
      if (!stopping) io.stderr('A worker exited while starting; stopping the server.\n');
      stop(1);
    } else {
      const pids = [...workers].map((worker) => worker.process.pid).join(', ');
      io.stderr(`All ${count} workers listening (pids ${pids}; primary ${process.pid}).\n`);
      options.onListening?.(lead.url);
    }
    return await done;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.off('SIGHUP', onSignal);
  }
}

/** A worker's view of its place in the cluster (see `workerRole`). */
export interface WorkerRole {
  /** The lead writes the login link and prints the banner; the others stay quiet. */
  lead: boolean;
  /** How many workers the server runs. */
  count: number;
  /** Tells the primary this worker listens; the lead adds the discovery entry of the server. */
  listening(url: string, entry?: Omit<ServerEntry, 'pid'>): void;
  /** The approval events of the other workers, relayed by the primary (an `EventBridge`). */
  bridge(onRemote: (note: RemoteEventNote) => void): EventBridge;
  /**
   * Shares this worker's metrics: answers the primary's requests with `collect()` (its registry
   * as `getMetricsAsJSON()`), and `gather()` resolves with every listening worker's answer (this
   * one's too). `gather` rejects when a worker does not answer in time or the primary is gone.
   */
  metrics(collect: () => Promise<unknown[]>): WorkerMetrics;
}

/** A worker's share in the server's metrics (see `WorkerRole.metrics`). */
export interface WorkerMetrics {
  gather(): Promise<unknown[][]>;
  close(): void;
}

/**
 * This process's role when it is a `--workers` worker (forked by `runWorkers`), else undefined.
 */
export function workerRole(env: NodeJS.ProcessEnv = process.env): WorkerRole | undefined {
  const role = env[WORKER_ROLE_ENV];
  if (!cluster.isWorker || (role !== 'lead' && role !== 'follower')) return undefined;
  const send = (message: WorkerMessage) => {
    if (process.connected) process.send?.(message);
  };
  return {
    lead: role === 'lead',
    count: Number(env[WORKER_COUNT_ENV] ?? 1),
    listening: (url, entry) => send({ sentinel: 'listening', url, ...(entry && { entry }) }),
    bridge(onRemote) {
      const receive = (message: unknown) => {
        if (isWorkerMessage(message) && message.sentinel === 'approval-event') {
          onRemote({ replica: String(message.from ?? 'worker'), type: message.type, id: message.id });
        }
      };
      process.on('message', receive);
      return {
        notify: (type, id) => send({ sentinel: 'approval-event', type, id }),
        close: async () => {
          process.off('message', receive);
        },
      };
    },
    metrics: (collect) => workerMetrics(collect, send),
  };
}

/** `WorkerRole.metrics`: the worker's half of the relay in workers-metrics.ts. */
function workerMetrics(
  collect: () => Promise<unknown[]>,
  send: (message: WorkerMessage) => void,
): WorkerMetrics {
  const waiting = new Map<
    number,
    { resolve: (parts: unknown[][]) => void; reject: (error: Error) => void }
  >();
  let next = 0;
  const receive = (message: unknown) => {
    if (!isWorkerMessage(message)) return;
    if (message.sentinel === 'metrics-collect') {
      const { gather } = message;
      void collect().then(
        (metrics) => send({ sentinel: 'metrics-part', gather, metrics }),
        () => send({ sentinel: 'metrics-part', gather, metrics: [] }),
      );
    } else if (message.sentinel === 'metrics-parts') {
      const waiter = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.parts) waiter?.resolve(message.parts);
      else waiter?.reject(new Error(`the workers' metrics could not be gathered: ${message.error}`));
    }
  };
  const gone = () => {
    for (const waiter of waiting.values()) waiter.reject(new Error('the primary process is gone'));
    waiting.clear();
  };
  process.on('message', receive);
  process.on('disconnect', gone);
  return {
    gather: () =>
      new Promise((resolve, reject) => {
        if (!process.connected) return reject(new Error('the primary process is gone'));
        const id = next++;
        waiting.set(id, { resolve, reject });
        send({ sentinel: 'metrics-request', id });
      }),
    close() {
      process.off('message', receive);
      process.off('disconnect', gone);
      gone();
    },
  };
}
