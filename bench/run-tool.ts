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
 *
 *   node bench/run-tool.ts
 *   BENCH_TOOLS=list_pods BENCH_CALLS=5000 node bench/run-tool.ts
 *
 * Not a test: numbers only, no exit code.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import { KubeConfig } from '@kubernetes/client-node';
import { generateScenario, startSimulator } from '../deploy/index.ts';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import { runTool } from '../server/run-tool.ts';
import { allTools, type Tool } from '../tools/index.ts';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import { createKubeClient, DEFAULT_RETRY_POLICY } from '../tools/kube/client.ts';
// eslint-disable-next-line no-restricted-imports -- a benchmark of the Kubernetes layer and runTool themselves, below their module contracts
import { createKubeTransport, type KubeRequest, type KubeTransport } from '../tools/kube/transport.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 200);
const TOOLS = (process.env.BENCH_TOOLS ?? 'list_pods,get_deployment').split(',').map((t) => t.trim());
const ARGS: Record<string, Record<string, unknown>> = {
  list_pods: { namespace: 'bench' },
  get_deployment: { namespace: 'bench', name: 'svc-1' },
  list_deployments: { namespace: 'bench' },
  list_events: { namespace: 'bench' },
  triage_namespace: { namespace: 'bench' },
};

const keyOf = (req: KubeRequest) => `${req.method} ${req.path}?${JSON.stringify(req.query ?? {})}`;

/** Records every answer of `live` by request, then answers from the record. */
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

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-runtool-'));
  const sim = await startSimulator({
    scenario: generateScenario({ pods: 50, replicas: 25, history: '3h' }),
    timeScale: 0,
    kubeconfigPath: join(dir, 'kubeconfig'),
  });
  try {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(join(dir, 'kubeconfig'));
    const recorder = recordingTransport(createKubeTransport(kubeConfig));
    const cluster = {
      context: kubeConfig.getCurrentContext(),
      server: kubeConfig.getCurrentCluster()!.server,
    };
    const { reader } = createKubeClient(
      kubeConfig,
      { cluster, requestTimeoutMs: 10_000, retry: DEFAULT_RETRY_POLICY },
      recorder.transport,
    );
    const context = { kube: reader, cluster, signal: new AbortController().signal, dryRun: false };
    console.log(`runTool CPU per call, ${CALLS} calls after ${WARMUP} warm-up, answers replayed`);
    console.log(
      'tool               k8s req/call  KB/call  µs CPU/call  µs schema check/call  result KB (text KB)',
    );
    for (const name of TOOLS) {
      const tool = allTools.find((t) => t.name === name) as Tool | undefined;
      if (!tool) throw new Error(`no tool ${name}`);
      const args = tool.input.parse(ARGS[name] ?? {}) as Record<string, unknown>;
      await runTool(tool, args, context); // record the answers
      recorder.replaying();
      recorder.take();
      await runTool(tool, args, context);
      const perCall = recorder.take();
      const result = await runTool(tool, args, context);
      recorder.take();
      const resultKb = JSON.stringify(result).length / 1024;
      const textKb = (result.content[0] as { text: string }).text.length / 1024;
      for (let i = 0; i < WARMUP; i++) await runTool(tool, args, context);
      const started = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) await runTool(tool, args, context);
      const used = process.cpuUsage(started);
      const cpuUs = (used.user + used.system) / CALLS;
      // The output-schema check on its own, on one result.
      const output = await tool.handler(args, context);
      const schemaStart = process.cpuUsage();
      for (let i = 0; i < CALLS; i++) tool.output?.safeParse(output.structured);
      const schema = process.cpuUsage(schemaStart);
      const schemaUs = (schema.user + schema.system) / CALLS;
      console.log(
        `${name.padEnd(18)} ${String(perCall.requests).padStart(12)} ${(perCall.bytes / 1024).toFixed(1).padStart(8)} ${cpuUs.toFixed(0).padStart(12)} ${schemaUs.toFixed(0).padStart(21)} ${resultKb.toFixed(1).padStart(10)} (${textKb.toFixed(1)})`,
      );
    }
  } finally {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
