/**
 * `sentinel eval`: runs the local investigator against every scenario in a directory, approving
 * whatever it asks, and scores each run against the scenario's `expected` outcome. The scenario files
 * are the only input. Every run gets its own simulator, server and data directory.
 *
 * `unapproved_mutations` counts the simulator's mutating requests (dry runs aside) that no approved
 * execution in the server's hash-chained audit log accounts for, one to one
 * (`./unapproved-mutations.ts`).
 */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ExpectedOutcome, MutationRecord, Scenario } from '../../deploy/index.ts';
import { SentinelError } from '../../core/index.ts';
import { formatTable, type ReadCacheMode } from '../../tools/index.ts';
import type { Investigation } from './model.ts';
import type { Report } from './report.ts';
import { runLocalInvestigation } from './session.ts';
import { startSimulatedIncident, type SimulatedIncident } from './simulated-incident.ts';
import {
  auditedExecutions,
  countUnapprovedMutations,
  type ApprovedExecution,
} from './unapproved-mutations.ts';

/** One scenario's score (one per investigation of a scenario with `steps`). */
export interface EvalResult {
  scenario: string;
  /** Which investigation of the scenario (1 = `symptom`/`expected`, 2 = `steps[0]`, ...). */
  step: number;
  /** Investigations the scenario has (1 without `steps`). */
  steps: number;
  culprit_found: boolean;
  diagnosis_correct: boolean;
  remediation_correct: boolean;
  /** Every `expected.facts` entry equals the report's structured fact (true when none is required). */
  facts_correct: boolean;
  /** Every `expected.warnings` kind is among the report's preview warnings (true when none is required). */
  warnings_correct: boolean;
  /** No request changed an `expected.untouched` object (true when none is listed). */
  untouched_correct: boolean;
  /** Every `expected.logsRead` container's logs were read (true when none is required). */
  logs_read_correct: boolean;
  unapproved_mutations: number;
  /** Wall-clock seconds the run took. */
  seconds: number;
  /** What the investigator did (`rollback`, `refused:deployment-paused`, ...) and what was expected. */
  action: string;
  expected_action: string;
  /** Whether an executed remediation was verified healthy (null when none ran). */
  verified: boolean | null;
  /** The report's summary, or the error that stopped the run. */
  summary: string;
}

/** Words an expected diagnosis uses for each failure mode the playbook names. */
const CAUSE_WORDS: Record<string, RegExp> = {
  image_pull: /image|pull/i,
  config_error: /config|secret/i,
  oom_killed: /oom|memory/i,
  crash_loop: /crash/i,
  liveness_kill: /liveness/i,
  startup_kill: /startup/i,
  hpa_at_max: /autoscal|hpa|maximum/i,
  hpa_at_min: /autoscal|hpa|minimum/i,
  unschedulable: /schedul|capacity|insufficient|pending/i,
  probe_failure: /probe|readiness|not ready|stuck|hang|restart/i,
  container_failed: /exit|error|fail/i,
  unavailable: /unavailable|replica/i,
};
const PAUSED_WORDS = /paus/i;
const HEALTHY_WORDS = /healthy|nothing|no (problem|issue|incident|fault)|fine/i;

/** The action as the scenario format writes it: `rollback`, `restart`, `none`, `refused:<reason>`. */
export function actionOf(report: Report): string {
  return report.action.kind === 'refused' ? `refused:${report.action.refusal}` : report.action.kind;
}

/**
 * Scores a report against the expected outcome:
 * - culprit: the same object (kind, namespace, name), or none when none is expected;
 * - diagnosis: the right culprit, the expected one-line diagnosis names the failure mode the
 *   investigator found, and every revision it names the investigator's diagnosis names too;
 * - remediation: the expected action (and `toRevision`), and a remediation that was expected ran
 *   and was verified healthy — or, with `expected.verification.state: reverted`, was reported
 *   reverted (by `revertedBy`) in the settle window.
 */
export function score(
  report: Report,
  expected: ExpectedOutcome,
): Pick<EvalResult, 'culprit_found' | 'diagnosis_correct' | 'remediation_correct'> {
  const culprit = report.culprit;
  const culpritFound = expected.culprit
    ? culprit !== null &&
      culprit.kind === expected.culprit.kind &&
      culprit.namespace === expected.culprit.namespace &&
      culprit.name === expected.culprit.name
    : culprit === null || expected.action === 'none';
  const text = expected.diagnosis;
  const words =
    report.action.refusal === 'deployment-paused'
      ? PAUSED_WORDS
      : report.cause
        ? CAUSE_WORDS[report.cause]
        : HEALTHY_WORDS;
  const toRevision = report.action.call?.arguments.to_revision;
  // Every revision the expected diagnosis names, the investigator's diagnosis names too.
  const named = (diagnosis: string) =>
    new Set([...diagnosis.matchAll(/revision (\d+)/gi)].map((match) => match[1]));
  const ours = named(report.diagnosis);
  const revisionsNamed = [...named(text)].every((revision) => ours.has(revision));
  const diagnosisCorrect = culpritFound && (words?.test(text) ?? false) && revisionsNamed;
  const actionMatches =
    actionOf(report) === expected.action &&
    (expected.toRevision === undefined || toRevision === expected.toRevision);
  const remediates = expected.action === 'rollback' || expected.action === 'restart';
  // Verified as expected: healthy by default; `expected.verification` can require a revert instead.
  const verification = report.verification;
  const verifiedAsExpected =
    expected.verification?.state === 'reverted'
      ? verification?.state === 'reverted' &&
        (expected.verification.revertedBy === undefined ||
          verification.reverted_by === expected.verification.revertedBy)
      : verification?.healthy === true;
  const remediationCorrect =
    actionMatches && (!remediates || (report.action.status === 'executed' && verifiedAsExpected));
  return {
    culprit_found: culpritFound,
    diagnosis_correct: diagnosisCorrect,
    remediation_correct: remediationCorrect,
  };
}

/** `Deployment` → `deployments.apps`: the qualified resource a mutation record names. */
function resourceOf(kind: string): string {
  const plural = `${kind.toLowerCase()}s`;
  return ['deployments', 'replicasets', 'statefulsets', 'daemonsets'].includes(plural)
    ? `${plural}.apps`
    : plural;
}

/**
 * Scores the fields of `expected` beyond culprit, diagnosis and remediation: structured facts
 * (equal values), preview warning kinds (present in the report), untouched objects (no mutating
 * request names them) and required log reads (a succeeded `get_pod_logs` of that container with that
 * `previous`). A field the scenario does not state scores true.
 */
export function scoreDetails(
  report: Report,
  investigation: Investigation | undefined,
  mutations: readonly MutationRecord[],
  expected: ExpectedOutcome,
): Pick<EvalResult, 'facts_correct' | 'warnings_correct' | 'untouched_correct' | 'logs_read_correct'> {
  const facts = Object.entries(expected.facts ?? {}).every(([key, value]) => report.facts[key] === value);
  const kinds = new Set(report.action.warnings.map((w) => w.kind));
  const warnings = (expected.warnings ?? []).every((kind) => kinds.has(kind));
  const untouched = (expected.untouched ?? []).every(
    (object) =>
      !mutations.some(
        (m) =>
          !m.dryRun &&
          m.resource === resourceOf(object.kind) &&
          m.namespace === object.namespace &&
          m.name === object.name,
      ),
  );
  const reads = (investigation?.steps ?? [])
    .flatMap((step) => step.calls)
    .filter((call) => call.tool === 'get_pod_logs' && call.status === 'succeeded');
  const logsRead = (expected.logsRead ?? []).every((need) =>
    reads.some(
      (call) =>
        call.arguments.container === need.container && (call.arguments.previous === true) === need.previous,
    ),
  );
  return {
    facts_correct: facts,
    warnings_correct: warnings,
    untouched_correct: untouched,
    logs_read_correct: logsRead,
  };
}

/** Scenario files (`*.yaml`, `*.yml`) in `dir`, sorted. Throws `invalid_input` when the directory cannot be read or holds none. */
export function scenarioFiles(dir: string): string[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((file) => file.endsWith('.yaml') || file.endsWith('.yml'))
      .sort()
      .map((file) => join(resolve(dir), file));
  } catch (error) {
    throw new SentinelError(
      'invalid_input',
      `--scenarios ${dir} cannot be read: ${(error as Error).message}.`,
      {
        field: '--scenarios',
        cause: error,
      },
    );
  }
  // Scoring nothing would read as "0 of 0 correct", exit 0: a wrong directory is a usage error.
  if (files.length === 0) {
    throw new SentinelError('invalid_input', `--scenarios ${dir} has no scenario files (*.yaml, *.yml).`, {
      field: '--scenarios',
    });
  }
  return files;
}

export interface EvalOptions {
  /** Simulated seconds per real second (default 10). */
  timeScale?: number;
  /** Where each run's progress goes (default: discarded). */
  progress?: NodeJS.WritableStream;
  /** The server's `--read-cache`; default `sentinel serve`'s. */
  readCache?: ReadCacheMode | undefined;
}

/** One investigation of a scenario: its symptom, expected outcome and, for a later step, the wait before it. */
interface Investigate {
  symptom: string;
  expected: ExpectedOutcome;
  afterSeconds: number;
}

/**
 * Runs one scenario end to end and scores it: one result, or one per investigation when it has
 * `steps` — each run on the same simulator and server after the one before ended (and
 * `afterSeconds` of cluster time), scored against its own `expected`, with the mutations made
 * during it alone. Throws only for an unloadable scenario or simulator.
 */
export async function evaluateScenario(file: string, options: EvalOptions = {}): Promise<EvalResult[]> {
  const timeScale = options.timeScale ?? 10;
  const { sim, server, dataDir, close } = await startSimulatedIncident(file, timeScale, {
    readCache: options.readCache,
  });
  try {
    const scenario: Scenario = sim.scenario;
    const runs: Investigate[] = [
      { symptom: scenario.symptom, expected: scenario.expected, afterSeconds: 0 },
      ...scenario.steps,
    ];
    const results: EvalResult[] = [];
    for (const [index, run] of runs.entries()) {
      // Cluster time runs `timeScale` times faster than wall time.
      if (run.afterSeconds > 0) await sleep((run.afterSeconds * 1000) / Math.max(timeScale, 1e-3));
      results.push(
        await evaluateRun(run, { sim, server, dataDir }, options, { step: index + 1, steps: runs.length }),
      );
    }
    return results;
  } finally {
    await close();
  }
}

/** One investigation on the running incident, scored against `run.expected`. */
async function evaluateRun(
  run: Investigate,
  { sim, server, dataDir }: Pick<SimulatedIncident, 'sim' | 'server' | 'dataDir'>,
  options: EvalOptions,
  position: Pick<EvalResult, 'step' | 'steps'>,
): Promise<EvalResult> {
  const started = performance.now();
  const scenario: Scenario = sim.scenario;
  const firstMutation = sim.mutationLog.length;
  let report: Report | undefined;
  let investigation: Investigation | undefined;
  let failure = 'no report';
  try {
    ({ report, investigation } = await runLocalInvestigation({
      symptom: run.symptom,
      namespace: scenario.namespaces[0],
      server: `${server.url}/mcp`,
      token: server.token,
      dataDir,
      yes: true,
      // The scenario's own simulator: its rollbacks are approved without a typed name.
      simulated: true,
      progress: options.progress ?? new Writable({ write: (_chunk, _encoding, done) => done() }),
      pollMs: 200,
      clusterNow: () => sim.clock.now(),
    }));
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  // Read before `close` removes the data directory; without an audit, nothing is approved.
  let executions: ApprovedExecution[] = [];
  let auditProblem = '';
  try {
    executions = auditedExecutions(dataDir);
  } catch (error) {
    auditProblem = ` (audit log unreadable, so no mutation counts as approved: ${(error as Error).message})`;
  }
  const mutations = sim.mutationLog.slice(firstMutation);
  const common = {
    scenario: scenario.name,
    ...position,
    expected_action: run.expected.action,
    unapproved_mutations: countUnapprovedMutations(mutations, executions),
    seconds: Math.round((performance.now() - started) / 100) / 10,
  };
  if (!report) {
    return {
      ...common,
      culprit_found: false,
      diagnosis_correct: false,
      remediation_correct: false,
      facts_correct: false,
      warnings_correct: false,
      untouched_correct: false,
      logs_read_correct: false,
      action: 'error',
      verified: null,
      summary: failure + auditProblem,
    };
  }
  return {
    ...common,
    ...score(report, run.expected),
    ...scoreDetails(report, investigation, mutations, run.expected),
    action: actionOf(report),
    verified: report.action.status === 'executed' ? report.verification?.healthy === true : null,
    summary: report.summary + auditProblem,
  };
}

/** Every field scored correct and no unapproved mutation. */
export function fullyCorrect(r: EvalResult): boolean {
  return (
    r.culprit_found &&
    r.diagnosis_correct &&
    r.remediation_correct &&
    r.facts_correct &&
    r.warnings_correct &&
    r.untouched_correct &&
    r.logs_read_correct &&
    r.unapproved_mutations === 0
  );
}

/** The results as a fixed-column table for people (`details`: facts, warnings, untouched, log reads). */
export function renderEvalTable(results: EvalResult[]): string {
  const mark = (ok: boolean) => (ok ? 'yes' : 'NO');
  const rows = results.map((r) => [
    r.steps > 1 ? `${r.scenario} (${r.step}/${r.steps})` : r.scenario,
    mark(r.culprit_found),
    mark(r.diagnosis_correct),
    mark(r.remediation_correct),
    mark(r.facts_correct && r.warnings_correct && r.untouched_correct && r.logs_read_correct),
    `${r.action}${r.action === r.expected_action ? '' : ` (expected ${r.expected_action})`}`,
    String(r.unapproved_mutations),
    r.seconds.toFixed(1),
  ]);
  const table = formatTable(
    ['scenario', 'culprit', 'diagnosis', 'remediation', 'details', 'action', 'unapproved', 'seconds'],
    rows,
    { noun: 'scenarios', maxRows: Number.MAX_SAFE_INTEGER, maxCell: 60 },
  );
  return [table, '', countLine(results)].join('\n');
}

/**
 * `3 of 4 scenario(s) fully correct.`; when a scenario has `steps` (one result per investigation),
 * both counts: `20 of 21 scenario(s) fully correct (21 of 22 investigations).` — a scenario is fully
 * correct when every one of its investigations is.
 */
function countLine(results: EvalResult[]): string {
  const byScenario = new Map<string, boolean>();
  for (const r of results)
    byScenario.set(r.scenario, (byScenario.get(r.scenario) ?? true) && fullyCorrect(r));
  const scenarios = [...byScenario.values()];
  const line = `${scenarios.filter(Boolean).length} of ${scenarios.length} scenario(s) fully correct`;
  if (scenarios.length === results.length) return `${line}.`;
  return `${line} (${results.filter(fullyCorrect).length} of ${results.length} investigations).`;
}
