/**
 * Benchmark: the CPU the production plugins (approval gate, audit log, metrics) add to one
 * `tools/call`, in one process without HTTP or a cluster, so the figure is the plugins' own and
 * less sensitive to a shared machine's load than bench/readpath.ts's throughput rows (issue 17:
 * ≤ 0.3 ms CPU per call).
 *
 * The call is `get_cluster_version` on a server with no cluster configured: the pipeline parses it,
 * the plugins run in full (policy, audit record written and committed, metrics), the handler answers
 * at once. Each round runs `BENCH_CALLS` calls in waves of `BENCH_CONCURRENCY` (default 10; 1 is
 * the worst case for group commit: every record its own transaction) through the pipeline with
 * every plugin and with none, alternating; the figure is the median over rounds of
 * (CPU with plugins − CPU without) / calls, from `process.cpuUsage()` (all of this process's threads).
 * `BENCH_BASELINE=<checkout>` measures another checkout (e.g. main) the same way in the same run.
 *
 *   node bench/plugins.ts
 *   BENCH_BASELINE=/work/base BENCH_CONCURRENCY=1 node bench/plugins.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ServerIndex from '../server/index.ts';
import type * as ToolsIndex from '../tools/index.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const BASELINE = process.env.BENCH_BASELINE;

type ServerModule = typeof ServerIndex;
type ToolsModule = typeof ToolsIndex;

interface Side {
  name: string;
  run(plugins: boolean): Promise<number>;
  close(): Promise<void>;
}

/** A pipeline with every production plugin and one with none, from the checkout at `root`. */
async function side(name: string, root: URL): Promise<Side> {
  const server = (await import(new URL('server/index.ts', root).href)) as ServerModule;
  const tools = (await import(new URL('tools/index.ts', root).href)) as ToolsModule;
  const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-bench-plugins-'));
  const registry = tools.createRegistry(tools.allTools);
  const identities = server.createIdentityStore({
    tokensFile: join(dataDir, 'tokens.yaml'),
    startupToken: 'bench-token-0123456789abcdef',
  });
  const logger = server.createLogger({ level: 'info', destination: { write: () => true } });
  const kube = () => server.notConfigured();
  const plugins = await server.startPlugins(server.serverPlugins, {
    dataDir,
    registry,
    identities,
    kube,
    logger,
    policyFile: undefined,
    transport: 'http',
    approvals: server.createApprovalsHub(),
  });
  const pipelines = {
    on: server.createToolCallPipeline({ registry, kube, middlewares: plugins.middlewares, logger }),
    off: server.createToolCallPipeline({ registry, kube, middlewares: [], logger }),
  };
  const caller = server.localIdentity;
  let seq = 0;
  return {
    name,
    async run(withPlugins) {
      const pipeline = withPlugins ? pipelines.on : pipelines.off;
      const signal = new AbortController().signal;
      const started = process.cpuUsage();
      for (let done = 0; done < CALLS; done += CONCURRENCY) {
        await Promise.all(
          Array.from({ length: Math.min(CONCURRENCY, CALLS - done) }, () =>
            pipeline({
              requestId: `bench-${(seq += 1)}`,
              identity: caller,
              name: 'get_cluster_version',
              arguments: {},
              signal,
            }),
          ),
        );
      }
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1000 / CALLS;
    },
    async close() {
      await plugins.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

const sides = [await side('this checkout', new URL('..', import.meta.url))];
if (BASELINE) sides.push(await side('baseline', pathToFileURL(`${BASELINE.replace(/\/$/, '')}/`)));
try {
  for (const s of sides) for (const plugins of [true, false]) await s.run(plugins); // warm-up
  const costs = new Map(sides.map((s) => [s.name, [] as number[]]));
  const off = new Map(sides.map((s) => [s.name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const s of round % 2 === 0 ? sides : [...sides].reverse()) {
      const withPlugins = await s.run(true);
      const without = await s.run(false);
      costs.get(s.name)!.push(withPlugins - without);
      off.get(s.name)!.push(without);
    }
  }
  const lines = [
    `plugins (gate, audit, metrics) on one call, ${ROUNDS} rounds x ${CALLS} calls in waves of ${CONCURRENCY}, medians:`,
  ];
  for (const s of sides) {
    const cost = median(costs.get(s.name)!);
    lines.push(
      `  ${s.name.padEnd(14)} +${cost.toFixed(3)} ms CPU/call with plugins (pipeline alone ${median(off.get(s.name)!).toFixed(3)} ms) ${cost <= 0.3 ? 'under' : 'OVER '} 0.3`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  for (const s of sides) await s.close();
}
