/**
 * Benchmark: a read tool's own CPU inside `runTool` (issue 17), without HTTP, MCP or the network.
 *
 * Starts the simulator with the read-path benchmark's namespace (bench/readpath.ts: 50 Pods, 25
 * replicas, 3 h of history), records the API server's answer to every Kubernetes request a tool
 * call makes, then runs the call `BENCH_CALLS` times (default 2000, after 200 warm-up calls) through
 * `runTool` with a transport that replays those answers — so the CPU per call is the Kubernetes
 * layer (query building, retries, JSON parse, sanitize), the handler (analysis, formatting, redaction)
 * and the output-schema check, nothing else. Reports per tool: Kubernetes requests per call and bytes
 * per answer, µs of CPU per call, and what the output-schema check alone costs.
 *
 * `BENCH_TOOLS` (comma-separated tool names) picks the tools (default list_pods,get_deployment).
 * `BENCH_BASELINE=<checkout>` (another clone or worktree of the project, with node_modules) runs its
 * `runTool` and Kubernetes layer beside this one's in the same process, in alternating rounds of
 * `BENCH_ROUND` calls (default 100), and prints the ratio: before/after under the same load.
 *
 *   node bench/run-tool.ts
 *   BENCH_TOOLS=list_pods BENCH_CALLS=5000 node bench/run-tool.ts
 *
 * Not a test: numbers only, no exit code.
 */
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startBenchNamespace } from './bench-namespace.ts';
import type { Tool, ToolContext } from '../tools/index.ts';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import type * as ClientNode from '@kubernetes/client-node';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import type * as KubeClient from '../tools/kube/client.ts';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import type * as Transport from '../tools/kube/transport.ts';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import type { KubeRequest, KubeTransport } from '../tools/kube/transport.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const ROUND = Number(process.env.BENCH_ROUND ?? 100);
const TOOLS = (process.env.BENCH_TOOLS ?? 'list_pods,get_deployment').split(',').map((t) => t.trim());
const BASELINE = process.env.BENCH_BASELINE;
const ARGS: Record<string, Record<string, unknown>> = {
  list_pods: { namespace: 'bench' },
  get_deployment: { namespace: 'bench', name: 'svc-1' },
  list_deployments: { namespace: 'bench' },
  list_events: { namespace: 'bench' },
  triage_namespace: { namespace: 'bench' },
};

const keyOf = (req: KubeRequest) => `${req.method} ${req.path}?${JSON.stringify(req.query ?? {})}`;

/** Records every answer of `live` by request, then (`replaying`) answers from the record. */
function recordingTransport(live: KubeTransport) {
  const answers = new Map<string, string>();
  let replay = false;
  let requests = 0;
  let bytes = 0;
  const transport: KubeTransport = {
    async send(req) {
      requests++;
      const key = keyOf(req);
      let text = replay ? answers.get(key) : undefined;
      if (text === undefined) {
        text = await live.send(req);
        answers.set(key, text);
      }
      bytes += text.length;
      return text;
    },
    stream: (req) => live.stream(req),
    dispatcher: () => live.dispatcher(),
    close: () => live.close(),
  };
  return {
    transport,
    replaying() {
      replay = true;
    },
    take() {
      const counts = { requests, bytes };
      requests = 0;
      bytes = 0;
      return counts;
    },
  };
}

type RunTool = (tool: Tool, args: Record<string, unknown>, context: ToolContext) => Promise<unknown>;

/** One checkout's runTool, tools and Kubernetes layer, reading through a recording transport. */
async function checkout(root: string, kubeconfigPath: string) {
  const load = (path: string) => import(pathToFileURL(join(root, path)).href);
  const { KubeConfig } = (await import(
    pathToFileURL(join(root, 'node_modules/@kubernetes/client-node/dist/index.js')).href
  )) as typeof ClientNode;
  const { runTool } = (await load('server/run-tool.ts')) as { runTool: RunTool };
  const { allTools } = (await load('tools/index.ts')) as { allTools: readonly Tool[] };
  const { createKubeClient, DEFAULT_RETRY_POLICY } = (await load(
    'tools/kube/client.ts',
  )) as typeof KubeClient;
  const { createKubeTransport } = (await load('tools/kube/transport.ts')) as typeof Transport;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const recorder = recordingTransport(createKubeTransport(kubeConfig));
  const cluster = { context: kubeConfig.getCurrentContext(), server: kubeConfig.getCurrentCluster()!.server };
  const { reader } = createKubeClient(
    kubeConfig,
    { cluster, requestTimeoutMs: 10_000, retry: DEFAULT_RETRY_POLICY },
    recorder.transport,
  );
  const context = { kube: reader, cluster, signal: new AbortController().signal, dryRun: false };
  /** The call of `name` with its answers recorded, and what one call asks the API server. */
  const prepare = async (name: string) => {
    const tool = allTools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name} in ${root}`);
    const args = tool.input.parse(ARGS[name] ?? {}) as Record<string, unknown>;
    await runTool(tool, args, context); // records the answers
    recorder.replaying();
    recorder.take();
    const result = (await runTool(tool, args, context)) as { content: { text: string }[] };
    const perCall = recorder.take();
    const output = await tool.handler(args, context);
    return {
      perCall,
      resultKb: JSON.stringify(result).length / 1024,
      textKb: result.content[0]!.text.length / 1024,
      call: () => runTool(tool, args, context),
      schemaCheck: () => tool.output?.safeParse(output.structured),
    };
  };
  return { prepare };
}

const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

async function main(): Promise<void> {
  const cluster = await startBenchNamespace('runtool');
  const { kubeconfigPath } = cluster;
  try {
    const here = await checkout(fileURLToPath(new URL('..', import.meta.url)), kubeconfigPath);
    const base = BASELINE ? await checkout(resolve(BASELINE), kubeconfigPath) : undefined;
    console.log(
      `runTool CPU per call, ${CALLS} calls after ${WARMUP} warm-up, answers replayed${base ? `; baseline ${BASELINE} in alternating rounds of ${ROUND}` : ''}`,
    );
    console.log(
      `tool               k8s req/call  KB/call  µs CPU/call  µs schema check  result KB (text KB)${base ? '  baseline µs  × baseline' : ''}`,
    );
    for (const name of TOOLS) {
      const mine = await here.prepare(name);
      const theirs = await base?.prepare(name);
      for (let i = 0; i < WARMUP; i++) {
        await mine.call();
        await theirs?.call();
      }
      const spent = { mine: 0, theirs: 0 };
      for (let done = 0; done < CALLS; done += ROUND) {
        let started = cpuUs();
        for (let i = 0; i < ROUND; i++) await mine.call();
        spent.mine += cpuUs() - started;
        if (!theirs) continue;
        started = cpuUs();
        for (let i = 0; i < ROUND; i++) await theirs.call();
        spent.theirs += cpuUs() - started;
      }
      const calls = Math.ceil(CALLS / ROUND) * ROUND;
      const schemaStart = cpuUs();
      for (let i = 0; i < CALLS; i++) mine.schemaCheck();
      const schemaUs = (cpuUs() - schemaStart) / CALLS;
      const { perCall } = mine;
      console.log(
        `${name.padEnd(18)} ${String(perCall.requests).padStart(12)} ${(perCall.bytes / 1024).toFixed(1).padStart(8)} ${(spent.mine / calls).toFixed(0).padStart(12)} ${schemaUs.toFixed(0).padStart(16)} ${mine.resultKb.toFixed(1).padStart(10)} (${mine.textKb.toFixed(1)})` +
          (theirs
            ? `${(spent.theirs / calls).toFixed(0).padStart(13)} ${(spent.mine / spent.theirs).toFixed(2).padStart(10)}`
            : ''),
      );
    }
  } finally {
    await cluster.close();
  }
}

await main();
