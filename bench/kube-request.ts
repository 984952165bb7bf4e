/**
 * Benchmark: CPU per Kubernetes request of Sentinel's request layer (issue 17), in a process of its
 * own (forked), against the simulator over HTTPS in this one.
 *
 * Rows, each `BENCH_REQUESTS` requests (default 3000) with `BENCH_CONCURRENCY` (10) in flight:
 * undici's `request` on the layer's pinned dispatcher (the floor: TLS, HTTP/1.1 keep-alive, body
 * as text), `KubeTransport.send` (plus URL and query building, authentication headers from the
 * kubeconfig), and the reader (`createKubeClient`: plus timeout, retries, JSON parse and sanitize
 * check), for one Deployment (`GET`, ~2 KB) and the 57 Pods of the benchmark namespace (~120 KB).
 * Reports µs of the client process's CPU per request, the simulator's (this process) per answer, and
 * TLS handshakes (new connections).
 *
 *   node bench/kube-request.ts
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);

async function client(kubeconfigPath: string): Promise<void> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { request } = await import('undici');
  // eslint-disable-next-line no-restricted-syntax -- a benchmark of the Kubernetes layer itself
  const { createKubeTransport } = await import('../tools/kube/transport.ts');
  // eslint-disable-next-line no-restricted-syntax -- a benchmark of the Kubernetes layer itself
  const { createKubeClient, DEFAULT_RETRY_POLICY } = await import('../tools/kube/client.ts');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const transport = createKubeTransport(kubeConfig);
  const cluster = { context: kubeConfig.getCurrentContext(), server: kubeConfig.getCurrentCluster()!.server };
  const { reader } = createKubeClient(
    kubeConfig,
    { cluster, requestTimeoutMs: 10_000, retry: DEFAULT_RETRY_POLICY },
    transport,
  );
  const dispatcher = transport.dispatcher();
  let connections = 0;
  dispatcher.on('connect', () => connections++);
  const server = cluster.server.replace(/\/+$/, '');
  const { HttpMethod, RequestContext } = await import('@kubernetes/client-node');
  const authContext = new RequestContext(server, HttpMethod.GET);
  await kubeConfig.applySecurityAuthentication(authContext);
  const token = authContext.getHeaders();
  const text = async (url: string) => {
    const response = await request(url, { dispatcher, headers: { ...token, accept: 'application/json' } });
    const body = await response.body.text();
    if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode} from ${url}`);
    return body;
  };
  const deploymentPath = '/apis/apps/v1/namespaces/bench/deployments/svc-1';
  const podsPath = '/api/v1/namespaces/bench/pods';
  const rows: [string, () => Promise<unknown>][] = [
    ['undici request, Deployment', () => text(`${server}${deploymentPath}`)],
    ['transport.send, Deployment', () => transport.send({ method: 'GET', path: deploymentPath })],
    ['reader.getDeployment', () => reader.getDeployment('bench', 'svc-1')],
    ['undici request, 57 Pods', () => text(`${server}${podsPath}?limit=500`)],
    [
      'transport.send, 57 Pods',
      () => transport.send({ method: 'GET', path: podsPath, query: { limit: 500 } }),
    ],
    ['reader.listPods, 57 Pods', () => reader.listPods('bench')],
  ];
  const results: string[] = [];
  // Two passes: the first warms every row up (JIT), the second is reported.
  for (const [pass, [name, call]] of [...rows, ...rows].entries()) {
    const run = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next++ < n) await call();
        }),
      );
    };
    await run(Math.min(300, REQUESTS));
    await call();
    const before = connections;
    // The simulator (parent) measures its own CPU between these two messages.
    await ask('start');
    const started = process.cpuUsage();
    await run(REQUESTS);
    const used = process.cpuUsage(started);
    const simulatorUs = Number(await ask('stop'));
    if (pass >= rows.length)
      results.push(
        `${name.padEnd(30)} ${((used.user + used.system) / REQUESTS).toFixed(0).padStart(8)} ${(simulatorUs / REQUESTS).toFixed(0).padStart(14)} ${String(connections - before).padStart(12)}`,
      );
  }
  await transport.close();
  process.send!({ results });
}

/** Sends `what` to the parent and resolves with its answer. */
function ask(what: string): Promise<unknown> {
  return new Promise((resolve) => {
    process.once('message', (answer: { answer: unknown }) => resolve(answer.answer));
    process.send!({ ask: what });
  });
}

async function main(): Promise<void> {
  const { startBenchNamespace } = await import('./bench-namespace.ts');
  const cluster = await startBenchNamespace('kube');
  const { kubeconfigPath } = cluster;
  try {
    const child = fork(fileURLToPath(import.meta.url), [kubeconfigPath], {
      env: { ...process.env, BENCH_CHILD: '1' },
    });
    let started = process.cpuUsage();
    const results = await new Promise<string[]>((resolve, reject) => {
      child.on('message', (m: { ask?: string; results?: string[] }) => {
        if (m.results) return resolve(m.results);
        if (m.ask === 'start') started = process.cpuUsage();
        const used = process.cpuUsage(started);
        child.send({ answer: used.user + used.system });
      });
      child.on('exit', (code) => reject(new Error(`client exited ${code}`)));
    });
    child.kill();
    console.log(
      `Kubernetes requests, ${REQUESTS} per row, concurrency ${CONCURRENCY}; CPU of the client process and of the simulator`,
    );
    console.log(
      `${'row'.padEnd(30)} ${'µs/req'.padStart(8)} ${'simulator µs'.padStart(14)} ${'connections'.padStart(12)}`,
    );
    for (const line of results) console.log(line);
  } finally {
    await cluster.close();
  }
}

if (process.env.BENCH_CHILD === '1') await client(process.argv[2]!);
else await main();
