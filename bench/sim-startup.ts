/**
 * Benchmark: simulator start-up (history replay) against scenario size. A generated scenario of
 * `BENCH_PODS` Pods (Deployments of `BENCH_REPLICAS` replicas each, healthy except one crash-looping
 * Deployment, with one template change per Deployment midway) and `BENCH_HISTORY` of history
 * (`3d`, `3h`, …) is built into a `SimulatedCluster` (the replay `startSimulator` runs before
 * serving). Prints the wall time per size and the objects and store writes it made.
 *
 * Budget (issue 16): 2,000 Pods with 3 days of history in under 10 s on the 2-core machine. Exit
 * code 1 when the largest size misses it. CPU time is printed beside wall time: on a loaded
 * machine it is the better measure of the replay's own cost.
 *
 *   node bench/sim-startup.ts                                  # sizes 50, 500, 2000 with 3d
 *   BENCH_SIZES=2000 BENCH_HISTORY=3h node bench/sim-startup.ts
 *   BENCH_WORKLOADS=20 node bench/sim-startup.ts               # plus 20 StatefulSets, 20 DaemonSets
 */
import { SimulatedCluster, generateScenario, parseScenario } from '../deploy/index.ts';

const sizes = (process.env['BENCH_SIZES'] ?? '50,500,2000').split(',').map(Number);
const history = process.env['BENCH_HISTORY'] ?? '3d';
const replicas = Number(process.env['BENCH_REPLICAS'] ?? 25);
/** StatefulSets and DaemonSets (as many of each) beside the Deployments. */
const workloads = Number(process.env['BENCH_WORKLOADS'] ?? 0);
const BUDGET_MS = 10_000;

let lastMs = 0;
for (const pods of sizes) {
  const parsed = parseScenario(generateScenario({ pods, replicas, history, workloads }), `bench-${pods}`);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const cluster = new SimulatedCluster({ scenario: parsed, timeScale: 0 });
  lastMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const stored = cluster.store.list('pods').length;
  const writes = cluster.store.revision - 1000;
  process.stdout.write(
    `${String(pods).padStart(5)} pods, ${history} history: ${(lastMs / 1000).toFixed(2)} s wall, ${(cpuMs / 1000).toFixed(2)} s CPU (${stored} Pods stored, ${writes} store writes, ${cluster.store.list('events').length} Events)\n`,
  );
}
const largest = sizes.at(-1)!;
if (largest >= 2000 && history === '3d') {
  const ok = lastMs < BUDGET_MS;
  process.stdout.write(
    `budget: ${largest} Pods / 3d under ${BUDGET_MS / 1000} s: ${ok ? 'met' : 'MISSED'}\n`,
  );
  if (!ok) process.exitCode = 1;
}
