/**
 * Benchmark: one local investigation of a 2,000-Pod namespace on the simulator — wall time and the
 * Kubernetes API requests Sentinel's server made (the simulator's audit log, like kube-apiserver's
 * `--audit-log-path`), by phase and by verb/resource. The namespace is a generated scenario
 * (`generateScenario`: Deployments of 25 Pods, svc-0 rolled out 20 minutes ago to a crash-looping
 * image), investigated from the symptom "svc-0 is crash-looping" with every request approved:
 * triage, evidence, the dependency look-ups, preview, rollback, verification and the settle window.
 * Not a test: it prints figures to compare before and after a change.
 *
 *   npm run bench:investigate                         # 2,000 Pods, 3h history
 *   BENCH_PODS=500 BENCH_SETTLE=0 node bench/investigate.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { runLocalInvestigation, startLocalServer } from '../agent/index.ts';
import { generateScenario, startSimulator } from '../deploy/index.ts';

/** The fields of a simulator audit record (kube-apiserver's audit.k8s.io/v1 Event) counted here. */
interface AuditEvent {
  verb: string;
  requestURI: string;
  objectRef?: { resource?: string; subresource?: string };
}

const pods = Number(process.env['BENCH_PODS'] ?? 2000);
const history = process.env['BENCH_HISTORY'] ?? '3h';
const timeScale = Number(process.env['BENCH_TIME_SCALE'] ?? 60);
const settleSeconds = Number(process.env['BENCH_SETTLE'] ?? 60);

const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-investigate-'));
const auditLogPath = join(dir, 'audit.log');
const kubeconfig = join(dir, 'kubeconfig');
const audited = (): AuditEvent[] =>
  readFileSync(auditLogPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);

const sim = await startSimulator({
  scenario: generateScenario({ pods, history }),
  timeScale,
  kubeconfigPath: kubeconfig,
  auditLogPath,
});
const server = await startLocalServer({ dataDir: dir, kubeconfig });
try {
  const before = audited().length;
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { report, investigation } = await runLocalInvestigation({
    symptom: 'svc-0 is crash-looping since its deploy 20 minutes ago',
    namespace: 'bench',
    server: `${server.url}/mcp`,
    token: server.token,
    dataDir: dir,
    yes: true,
    pollMs: 100,
    settleSeconds,
    progress: new Writable({ write: (_chunk, _encoding, done) => done() }),
    clusterNow: () => sim.clock.now(),
  });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const requests = audited().slice(before);
  const byKind = new Map<string, number>();
  for (const r of requests) {
    const key = `${r.verb} ${r.objectRef?.resource ?? r.requestURI.split('?')[0]}${r.objectRef?.subresource ? `/${r.objectRef.subresource}` : ''}`;
    byKind.set(key, (byKind.get(key) ?? 0) + 1);
  }
  // Time per phase: the investigation's steps (triage, evidence, logs, preview, remediate, verify, settle).
  const phases = new Map<string, number>();
  for (const step of investigation.steps) {
    const phase = step.name.split(':')[0]!;
    const ms = Date.parse(step.finished_at ?? step.started_at) - Date.parse(step.started_at);
    phases.set(phase, (phases.get(phase) ?? 0) + ms);
  }
  const out = process.stdout;
  out.write(
    `${pods} Pods, ${history} history, time scale ${timeScale}, settle ${settleSeconds}s: ${(wallMs / 1000).toFixed(2)} s wall, ${((used.user + used.system) / 1e6).toFixed(2)} s CPU (this process: server and simulator), ${requests.length} Kubernetes API requests\n`,
  );
  out.write(
    `outcome: ${report.action.kind} ${report.culprit?.name ?? '-'} — verified ${report.verification?.state ?? 'n/a'}\n`,
  );
  out.write('requests by verb and resource:\n');
  for (const [key, count] of [...byKind].sort((a, b) => b[1] - a[1]))
    out.write(`  ${String(count).padStart(4)}  ${key}\n`);
  out.write('wall time by phase (ms):\n');
  for (const [phase, ms] of phases) out.write(`  ${String(ms).padStart(6)}  ${phase}\n`);
} finally {
  await server.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
