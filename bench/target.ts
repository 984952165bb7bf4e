/**
 * One benchmark target in its own process (forked by bench/readpath.ts), so that its CPU time and
 * memory are its own: `process.cpuUsage()` and `process.memoryUsage().rss` answer the parent's
 * `{ type: 'usage' }` IPC message. The first IPC message sent is `{ type: 'ready', url }`.
 *
 *   http-echo           plain Express JSON echo (the HTTP floor): POST /echo answers its body
 *   sdk-echo            bare MCP SDK stateless server with one echo tool (the SDK floor): POST /mcp
 *   sentinel            `sentinel serve` (startServe) with every production plugin (gate, audit, metrics)
 *   sentinel-off        the same server with no plugins (no gate, audit or metrics)
 *
 * Sentinel targets read `BENCH_KUBECONFIG`, `BENCH_DATA_DIR` and `SENTINEL_TOKEN` from the
 * environment; their request log goes to stdout, which the parent discards. With `workers` > 1 in
 * `BENCH_SERVE_OPTIONS` the target is the primary of `sentinel serve --workers N` (server/workers.ts;
 * the workers are this file again, forked by node:cluster), and its usage is the whole process
 * tree's (from /proc).
 *
 * `{ type: 'profile', action: 'start' }` starts the V8 CPU profiler in this process (node:inspector);
 * `{ type: 'profile', action: 'stop', file }` writes the profile to `file` and answers
 * `{ type: 'profiled', file }` (bench/readpath.ts with `BENCH_CPU_PROF`: the measured rounds only,
 * without start-up and warm-up). A workers target profiles its primary into `file` and each worker into
 * `<file>-worker<id>.cpuprofile`, and answers `{ type: 'profiled', file, files }`.
 */
import cluster from 'node:cluster';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { MAIN_THREAD, mainThreadCpuMicros, preemptions, procUsage } from './proc-usage.ts';

type Kind = 'http-echo' | 'sdk-echo' | 'sentinel' | 'sentinel-off';
const kind = process.argv[2] as Kind;

function send(message: Record<string, unknown>): void {
  process.send?.(message);
}

const serveOptions = JSON.parse(process.env.BENCH_SERVE_OPTIONS ?? '{}') as Record<string, unknown>;
const workers = Number(serveOptions.workers ?? 1);

let profiler: Session | undefined;

/** Starts or stops (writing `file`) this process's CPU profile. */
async function profile(action: 'start' | 'stop', file?: string): Promise<void> {
  if (action === 'start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.start');
    return;
  }
  const { profile: taken } = await profiler!.post('Profiler.stop');
  profiler!.disconnect();
  writeFileSync(file!, JSON.stringify(taken));
  send({ type: 'profiled', file });
}

interface ProfileMessage {
  type?: string;
  action?: 'start' | 'stop';
  file?: string;
}

/**
 * A workers target's profile: the primary profiles itself and has each worker profile itself
 * (`<file>` becomes `<file>-worker<id>.cpuprofile` for worker `id`), then answers one `profiled`
 * with every file written.
 */
async function profileTree(action: 'start' | 'stop', file?: string): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);
  if (action === 'start') {
    for (const worker of workers) worker.send({ type: 'profile', action });
    return profile(action);
  }
  const base = file!.replace(/\.cpuprofile$/, '');
  const files = await Promise.all(
    workers.map(
      (worker) =>
        new Promise<string>((resolve) => {
          const workerFile = `${base}-worker${worker.id}.cpuprofile`;
          const onMessage = (message: { type?: string }) => {
            if (message?.type !== 'profiled') return;
            worker.off('message', onMessage);
            resolve(workerFile);
          };
          worker.on('message', onMessage);
          worker.send({ type: 'profile', action, file: workerFile });
        }),
    ),
  );
  const { profile: taken } = await profiler!.post('Profiler.stop');
  profiler!.disconnect();
  writeFileSync(file!, JSON.stringify(taken));
  send({ type: 'profiled', file, files });
}

if (cluster.isWorker) {
  // A worker of a workers target: profiles itself when the primary says so (profileTree).
  process.on('message', (message: ProfileMessage) => {
    if (message?.type === 'profile') void profile(message.action!, message.file);
  });
}
if (!cluster.isWorker) {
  process.on('message', (message: ProfileMessage) => {
    if (message.type === 'profile') {
      void (workers > 1
        ? profileTree(message.action!, message.file)
        : profile(message.action!, message.file));
    }
    if (message.type !== 'usage') return;
    const cpu = process.cpuUsage();
    const own = { cpuMicros: cpu.user + cpu.system, rss: process.memoryUsage().rss };
    const tree = Object.values(cluster.workers ?? {}).map((worker) => ({
      name: `worker ${worker!.id}`,
      preempted: preemptions(worker!.process.pid!),
      ...procUsage(worker!.process.pid!),
    }));
    send({
      type: 'usage',
      cpuMicros: tree.reduce((sum, usage) => sum + usage.cpuMicros, own.cpuMicros),
      rss: tree.reduce((sum, usage) => sum + usage.rss, own.rss),
      // Per process (a workers target: the primary, then each worker by its cluster id), so the
      // bench can tell the primary's share (passing connections, relaying) from the workers', and
      // how often each was preempted (CPU oversubscription).
      processes: [
        {
          name: workers > 1 ? 'primary' : 'server',
          cpuMicros: own.cpuMicros,
          preempted: preemptions(process.pid),
        },
        ...tree.map(({ name, cpuMicros, preempted }) => ({ name, cpuMicros, preempted })),
        // The main thread alone (one server): what holds one process to one core.
        ...(workers > 1
          ? []
          : [{ name: MAIN_THREAD, cpuMicros: mainThreadCpuMicros(process.pid), preempted: 0 }]),
      ],
    });
  });
}
process.on('disconnect', () => process.exit(0));

async function listenApp(app: Express): Promise<string> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
    server.keepAliveTimeout = 60_000;
  });
}

// The echo kinds import their packages when they run: a Sentinel target loads only what Sentinel
// loads, so its idle RSS and start-up are Sentinel's own (issue 17), not Sentinel's plus the SDK's.
async function httpEcho(): Promise<string> {
  const { default: express } = await import('express');
  const app = express();
  app.post('/echo', express.json(), (req, res) => {
    res.json(req.body);
  });
  return listenApp(app);
}

/** The SDK's stateless example: a fresh McpServer and transport per POST. */
async function sdkEcho(): Promise<string> {
  const [{ default: express }, { McpServer }, { StreamableHTTPServerTransport }, { z }] = await Promise.all([
    import('express'),
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('zod'),
  ]);
  const app = express();
  app.post('/mcp', express.json(), async (req, res) => {
    const server = new McpServer({ name: 'echo', version: '1.0.0' });
    server.registerTool(
      'echo',
      { description: 'Echoes its text.', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  return listenApp(app);
}

async function sentinel(plugins: boolean): Promise<string> {
  if (workers > 1 && cluster.isPrimary) {
    // Deep on purpose, as in cli/serve.ts: the primary (counted in the tree's RSS) loads no server.
    // eslint-disable-next-line no-restricted-syntax -- see above
    const { runWorkers } = await import('../server/workers.ts');
    return new Promise((resolve) => {
      void runWorkers({
        count: workers,
        dataDir: process.env.BENCH_DATA_DIR!,
        io: { stderr: () => {} },
        onListening: resolve,
      });
    });
  }
  const { parseServeOptions, startServe, workerRole, releaseStartupMemory } =
    await import('../server/index.ts');
  const worker = workerRole();
  const running = await startServe(
    parseServeOptions({
      port: 0,
      kubeconfig: process.env.BENCH_KUBECONFIG,
      dataDir: process.env.BENCH_DATA_DIR,
      ...serveOptions,
    }),
    { stderr: () => {}, env: process.env },
    { ...(plugins ? {} : { plugins: [] }), ...(worker && { worker }) },
  );
  releaseStartupMemory(); // as `sentinel serve` does once started (cli/serve.ts)
  return running.url!;
}

const url =
  kind === 'http-echo'
    ? await httpEcho()
    : kind === 'sdk-echo'
      ? await sdkEcho()
      : await sentinel(kind === 'sentinel');
if (!cluster.isWorker) send({ type: 'ready', url });
