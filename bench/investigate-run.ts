/**
 * One run of the investigation benchmark (forked by bench/investigate.ts), for the source tree at
 * `argv[2]` (default: this one), so a "before" tree — another git ref, unpacked — runs the same
 * workload in the same load as the working tree. Starts that tree's simulator on a generated
 * 2,000-Pod namespace and that tree's MCP server in this process, runs one local investigation
 * with every request approved, and prints one JSON line (`RunResult`) on stdout.
 *
 * Only the tree's public entry points are used (`agent/index.ts`: `startLocalServer`,
 * `runLocalInvestigation`; `deploy/index.ts`: `generateScenario`, `startSimulator`), which older
 * refs have too. The environment sets the workload: BENCH_PODS (2000), BENCH_HISTORY (3h),
 * BENCH_TIME_SCALE (60: simulated seconds per wall second), BENCH_SETTLE (60 cluster seconds).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type * as AgentIndex from '../agent/index.ts';
import type * as DeployIndex from '../deploy/index.ts';

/** The entry points used, typed from this tree (the other tree's have the same shape). */
type AgentModule = typeof AgentIndex;
type DeployModule = typeof DeployIndex;

/** The fields of a simulator audit record (kube-apiserver's audit.k8s.io/v1 Event) read here. */
interface AuditEvent {
  verb: string;
  requestURI: string;
  requestReceivedTimestamp: string;
  responseBytes: number;
  objectRef?: { resource?: string; subresource?: string };
}

/** What one run measured; every duration in ms of wall time, CPU in ms of this process. */
export interface RunResult {
  root: string;
  pods: number;
  settleSeconds: number;
  timeScale: number;
  outcome: string;
  wallMs: number;
  cpuMs: number;
  requests: number;
  responseBytes: number;
  /** `verb resource[/subresource]` → requests. */
  byKind: Record<string, number>;
  /**
   * Phase (the investigation's step names before `:`: triage, evidence, logs, services, preview,
   * remediate, verify, settle; `connect` before the first step) → wall ms from its first step's start
   * to the next phase's (waits between steps included) and its requests.
   */
  phases: Record<string, { wallMs: number; requests: number }>;
}

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const pods = Number(process.env['BENCH_PODS'] ?? 2000);
const history = process.env['BENCH_HISTORY'] ?? '3h';
const timeScale = Number(process.env['BENCH_TIME_SCALE'] ?? 60);
const settleSeconds = Number(process.env['BENCH_SETTLE'] ?? 60);

const agent = (await import(pathToFileURL(join(root, 'agent/index.ts')).href)) as AgentModule;
const deploy = (await import(pathToFileURL(join(root, 'deploy/index.ts')).href)) as DeployModule;

const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-investigate-'));
const auditLogPath = join(dir, 'audit.log');
const kubeconfig = join(dir, 'kubeconfig');
const audited = (): AuditEvent[] =>
  readFileSync(auditLogPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);

const sim = await deploy.startSimulator({
  scenario: deploy.generateScenario({ pods, history }),
  timeScale,
  kubeconfigPath: kubeconfig,
  auditLogPath,
});
const server = await agent.startLocalServer({ dataDir: dir, kubeconfig });
try {
  const before = audited().length;
  const startedAt = Date.now();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const { report, investigation } = await agent.runLocalInvestigation({
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
  const endedAt = Date.now();
  const used = process.cpuUsage(cpu);
  const requests = audited().slice(before);

  // Phase boundaries: each phase starts with its first step; `connect` is what comes before.
  const starts: { phase: string; at: number }[] = [{ phase: 'connect', at: startedAt }];
  for (const step of investigation.steps) {
    const phase = step.name.split(':')[0]!;
    if (starts.at(-1)!.phase !== phase) starts.push({ phase, at: Date.parse(step.started_at) });
  }
  const phases: RunResult['phases'] = {};
  starts.forEach(({ phase, at }, index) => {
    const until = starts[index + 1]?.at ?? endedAt;
    const entry = (phases[phase] ??= { wallMs: 0, requests: 0 });
    entry.wallMs += until - at;
  });
  const byKind: Record<string, number> = {};
  let responseBytes = 0;
  for (const r of requests) {
    const key = `${r.verb} ${r.objectRef?.resource ?? r.requestURI.split('?')[0]}${r.objectRef?.subresource ? `/${r.objectRef.subresource}` : ''}`;
    byKind[key] = (byKind[key] ?? 0) + 1;
    responseBytes += r.responseBytes;
    const at = Date.parse(r.requestReceivedTimestamp);
    const phase = starts.findLast((s) => s.at <= at)?.phase ?? 'connect';
    phases[phase]!.requests += 1;
  }
  const result: RunResult = {
    root,
    pods,
    settleSeconds,
    timeScale,
    outcome: `${report.action.kind} ${report.culprit?.name ?? '-'}, verified ${report.verification?.state ?? 'n/a'}`,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((used.user + used.system) / 1000),
    requests: requests.length,
    responseBytes,
    byKind,
    phases,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  await server.close();
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
}
