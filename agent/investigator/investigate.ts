/**
 * The local investigator's run: triage → evidence → decide → preview → request → wait → execute →
 * verify, as a sequence of named steps over the MCP server (docs/DESIGN.md, "Local mode"). Each step's
 * calls are computed from the saved results of the steps before it, and the record is saved after
 * every transition, so `run` continues any saved investigation from where it stopped — in this
 * process or another one.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SentinelError, toSentinelError } from '../../core/index.ts';
import type { ApprovalRequest } from '../../server/index.ts';
import {
  DeploymentViewSchema,
  EventsSchema,
  HistorySchema,
  LogsSchema,
  parseStructured,
  PodMetricsSchema,
  PodsSchema,
  RemediationPreviewSchema,
  RolloutStatusSchema,
  ServiceViewSchema,
  TriageSchema,
  type PodView,
  type Triage,
  type TriageWorkload,
} from './evidence.ts';
import type { ToolCaller } from './mcp-client.ts';
import type { Action, Investigation, Step } from './model.ts';
import {
  chooseSuspectWorkload,
  crashedContainers,
  decide,
  oomKilledPod,
  serviceBackends,
  suspectHosts,
  type Sourced,
  type SuspectEvidence,
  type SuspectRef,
} from './playbook.ts';
import { forceRollback } from './forced-rollback.ts';
import { StatefulSetStatusSchema } from './playbook/forced-rollback.ts';
import {
  approvedTemplate,
  findRevert,
  findRevertOfApproved,
  OWN_FIELD_MANAGER,
  revertLine,
  TemplateViewSchema,
  type ApprovedTemplate,
  type Revert,
  type TemplateView,
} from './settle.ts';
import { describeCall, planStep, runStep, type PlannedCall } from './steps.ts';

/** Evidence lines shown on stderr before the proposal (the report has them all). */
const MAX_EVIDENCE_SHOWN = 8;

/** Longest `reason` a remediation call carries (the tools accept 500 characters). */
const MAX_REASON = 500;
/** Most evidence lines sent with the remediation call (the gate's `evidence` limit). */
const MAX_EVIDENCE_SENT = 20;

/** `text` cut to `max` characters (ending in `…`); empty text becomes `(empty)` (the gate refuses ''). */
function bounded(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed === '') return '(empty)';
  return trimmed.length > max ? `${trimmed.slice(0, max - 1)}…` : trimmed;
}

export interface InvestigatorContext {
  caller: ToolCaller;
  /** Waits for a human decision on a request (see wait.ts). */
  waitForDecision(requestId: string): Promise<ApprovalRequest>;
  getApproval(requestId: string): Promise<ApprovalRequest>;
  /** Persists the record. */
  save(investigation: Investigation): void;
  /** Progress for people (stderr). */
  progress(line: string): void;
  /** Epoch ms of "now" as the cluster sees it (default Date.now). */
  clusterNow?: () => number;
  /** How many `get_rollout_status` polls verify a remediation (default 8). */
  verifyAttempts?: number;
  /** `wait_seconds` of each verification poll (default 15; the tool allows 0-45). */
  verifyWaitSeconds?: number;
  /** Cluster-time seconds the approved template is watched after the rollout completes (default 60; 0 skips). */
  settleSeconds?: number;
  /** `get_deployment` checks spread over the settle window (default 6). */
  settleChecks?: number;
  /** Wall-clock ms between looks at `clusterNow` while waiting for the next check (default 500). */
  settleTickMs?: number;
  /** `--ask-again`: submit a call refused with an earlier denial once more (a new request). */
  askAgain?: boolean;
  /** The command that runs this investigation again with `--ask-again` (printed with a reused denial). */
  askAgainCommand?: string;
  /**
   * Stop at the next safe point (Ctrl-C, output closed): no new step starts once it aborts, and a wait
   * for a decision ends; a call already sent (an execution) is never cut off. Throws `timeout`.
   */
  signal?: AbortSignal;
}

/**
 * Runs or resumes `investigation` until it is `done` or `failed` (saved either way), and returns
 * it. Throws only when it cannot go on and must not be marked failed: the server is unreachable, the
 * wait for a decision was interrupted, or `--yes` met a dangerous request without `--confirm` (the
 * record stays `awaiting_approval`, resumable).
 */
export async function runInvestigation(
  investigation: Investigation,
  context: InvestigatorContext,
): Promise<Investigation> {
  const inv = investigation;
  const save = () => context.save(inv);
  if (context.askAgain) reopenDeclined(inv);
  if (inv.status === 'done' || inv.status === 'failed') return inv;
  inv.status = 'running';
  save();
  try {
    await advance(inv, context);
    inv.status = 'done';
  } catch (error) {
    const failure = toSentinelError(error);
    // `--yes` refused a dangerous request for want of `--confirm <name>`: nothing was approved, the
    // request stays pending, and a resume with the name goes on — a usage error, not a failure.
    const unconfirmed = failure.code === 'invalid_input' && failure.field === '--confirm';
    if (failure.code === 'unavailable' || failure.code === 'timeout' || unconfirmed) {
      inv.status = inv.pending_approval_ids.length > 0 ? 'awaiting_approval' : 'running';
      save();
      throw failure;
    }
    inv.status = 'failed';
    inv.error = failure.message;
  }
  save();
  return inv;
}

/**
 * `--resume <id> --ask-again` on an investigation whose remediation was declined: the declined
 * `remediate` step is kept, renamed `remediate:declined:<n>`, and the investigation runs again
 * from there, so the same call is submitted once more. The server then asks the approvers anew
 * (after delivering a denial it has not told yet, which `--ask-again` answers with a new request).
 * Nothing changes for any other investigation.
 */
function reopenDeclined(inv: Investigation): void {
  const declined = inv.steps.find((s) => s.name === 'remediate' && s.status === 'declined');
  if (!declined || inv.action?.status !== 'declined') return;
  const earlier = inv.steps.filter((s) => s.name.startsWith('remediate:declined:')).length;
  declined.name = `remediate:declined:${earlier + 1}`;
  inv.action.status = 'previewed';
  inv.status = 'running';
  inv.error = null;
}

/** Runs the step named `name` (or resumes the saved one) and returns it. */
async function step(
  inv: Investigation,
  context: InvestigatorContext,
  name: string,
  calls: () => PlannedCall[],
  options: { snapshot?: boolean } = {},
): Promise<Step> {
  let current = inv.steps.find((s) => s.name === name);
  if (current && current.finished_at !== null) return current;
  // A safe point: between steps nothing is half done, so the investigation resumes from here.
  if (context.signal?.aborted) {
    throw new SentinelError(
      'timeout',
      `Stopped before the step '${name}'; the investigation stays resumable.`,
    );
  }
  if (!current) {
    current = await planStep(name, calls(), context.caller);
    inv.steps.push(current);
  }
  const saved = current;
  const track = () => {
    inv.pending_approval_ids = inv.steps.flatMap((s) =>
      s.calls.filter((c) => c.status === 'held').map((c) => c.approval_request_id!),
    );
    inv.status = inv.pending_approval_ids.length > 0 ? 'awaiting_approval' : 'running';
    context.save(inv);
  };
  track();
  return runStep(saved, {
    caller: context.caller,
    waitForDecision: context.waitForDecision,
    getApproval: context.getApproval,
    save: track,
    progress: context.progress,
    ...(context.askAgain !== undefined && { askAgain: context.askAgain }),
    ...(context.askAgainCommand !== undefined && { askAgainCommand: context.askAgainCommand }),
    ...(options.snapshot && { readSnapshot: inv.id }),
    ...(context.signal && { signal: context.signal }),
  });
}

/**
 * The steps up to the proposal read one snapshot of the cluster (the investigation's id names
 * it): each distinct Kubernetes read is made once for triage, evidence, logs and the preview
 * together. Verification and the settle window read fresh (they send none), and so does the held
 * call and its execution (the server never serves a change from a snapshot).
 */
const SNAPSHOT = { snapshot: true };

/** The structured output of a step's call to `tool`, with the call as its source. */
function output(s: Step | undefined, tool: string): Sourced<Record<string, unknown>> | undefined {
  const call = s?.calls.find((c) => c.tool === tool && c.status === 'succeeded');
  return call?.structured ? { value: call.structured, source: describeCall(call) } : undefined;
}

function sourced<T>(
  raw: Sourced<Record<string, unknown>> | undefined,
  parse: (value: Record<string, unknown>) => T | undefined,
): Sourced<T> | undefined {
  const value = raw && parse(raw.value);
  return raw && value !== undefined ? { value, source: raw.source } : undefined;
}

async function advance(inv: Investigation, context: InvestigatorContext): Promise<void> {
  const { namespace } = inv;
  // Triage.
  const triageStep = await step(
    inv,
    context,
    'triage',
    () => [{ tool: 'triage_namespace', arguments: { namespace } }],
    SNAPSHOT,
  );
  const triage = sourced(output(triageStep, 'triage_namespace'), (v) => parseStructured(TriageSchema, v));
  if (!triage && !inv.deployment) {
    throw new SentinelError(
      'unavailable',
      `triage_namespace gave no usable result for namespace '${namespace}': ${triageStep.calls[0]?.text ?? 'no answer'}`,
    );
  }

  // Evidence about the suspect, then about the workloads behind the Services its logs or events name.
  const chosen = chooseSuspectWorkload(triage?.value, inv.deployment ?? undefined, inv.symptom);
  const suspect = chosen ? await gather(inv, context, chosen, triage?.value) : undefined;
  const dependencies = suspect ? await gatherDependencies(inv, context, suspect, triage?.value) : [];

  // Decide (pure; saved so a resumed run proposes exactly the same call).
  inv.decision ??= decide({
    namespace,
    triage,
    suspect,
    dependencies,
    now: (context.clusterNow ?? Date.now)(),
  });
  context.save(inv);
  const { decision } = inv;
  context.progress(`Diagnosis: ${decision.diagnosis}`);
  if (decision.evidence.length > 0) {
    context.progress('Evidence:');
    for (const item of decision.evidence.slice(0, MAX_EVIDENCE_SHOWN)) context.progress(`  ${item.line}`);
    if (decision.evidence.length > MAX_EVIDENCE_SHOWN) {
      context.progress(`  … ${decision.evidence.length - MAX_EVIDENCE_SHOWN} more line(s) in the report`);
    }
  }
  const plan = decision.remediation
    ? 'Plan'
    : decision.action === 'not_found'
      ? 'Not found'
      : 'No remediation';
  context.progress(`${plan}: ${decision.explanation}`);
  if (!decision.remediation) return;

  // Preview (a dry run the gate allows), then the real call, held for approval.
  const remediation = decision.remediation;
  const previewStep = await step(
    inv,
    context,
    'preview',
    () => [{ tool: remediation.tool, arguments: { ...remediation.arguments, dry_run: true } }],
    SNAPSHOT,
  );
  const previewCall = previewStep.calls[0]!;
  const preview = parseStructured(RemediationPreviewSchema, previewCall.structured);
  inv.action ??= {
    ...remediation,
    status: 'previewed',
    preview: preview?.summary ?? null,
    approval_request_id: null,
    decided_by: null,
    requested_by: null,
    decision_reason: null,
    outcome: null,
    warnings: preview?.warnings ?? [],
  };
  const action = inv.action;
  if (previewCall.status !== 'succeeded' || !preview) {
    action.status = 'failed';
    action.outcome = firstLine(previewCall.text) ?? 'the dry run gave no preview';
    return;
  }
  context.progress(`Proposed: ${preview.summary}`);
  for (const warning of preview.warnings) context.progress(`  Warning: ${warning.message}`);
  if (preview.status === 'no_op') {
    action.status = 'failed';
    action.outcome = `Nothing to do: ${preview.summary}`;
    return;
  }
  const reason =
    decision.diagnosis.length > MAX_REASON
      ? `${decision.diagnosis.slice(0, MAX_REASON - 1)}…`
      : decision.diagnosis;
  // The approver sees what this call rests on: the evidence lines, each with the call that
  // returned it, and this investigation's id (gate-owned arguments: recorded, never matched).
  const evidence = decision.evidence.slice(0, MAX_EVIDENCE_SENT).map((item) => ({
    line: bounded(item.line, 400),
    call: bounded(item.source, 300),
  }));
  const remediate = await step(inv, context, 'remediate', () => [
    {
      tool: remediation.tool,
      arguments: {
        ...remediation.arguments,
        reason,
        ...(evidence.length > 0 && { evidence }),
        investigation: inv.id,
      },
    },
  ]);
  await settleAction(action, remediate, context);
  context.save(inv);
  if (action.status !== 'executed') return;

  // Verify: the rollout settles (bounded polls).
  const attempts = context.verifyAttempts ?? 8;
  const waitSeconds = context.verifyWaitSeconds ?? 15;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const poll = await step(inv, context, `verify:${attempt}`, () => [
      {
        tool: 'get_rollout_status',
        arguments: {
          namespace,
          name: String(remediation.arguments.name),
          ...(remediation.arguments.kind !== undefined && { kind: remediation.arguments.kind }),
          wait_seconds: waitSeconds,
        },
      },
    ]);
    const status = parseStructured(RolloutStatusSchema, poll.calls[0]?.structured);
    inv.verification = {
      healthy: status?.state === 'complete',
      state: status?.state ?? 'unknown',
      message: status?.message ?? firstLine(poll.calls[0]?.text ?? null) ?? 'no answer',
      attempts: attempt,
    };
    context.save(inv);
    context.progress(
      `Verification ${attempt}/${attempts}: ${inv.verification.state} — ${inv.verification.message}`,
    );
    if (status && status.state !== 'progressing') break;
    // A StatefulSet may be stuck on a Pod of the bad revision: delete it (approved) and go on.
    const stuck = parseStructured(StatefulSetStatusSchema, poll.calls[0]?.structured);
    if (remediation.arguments.kind === 'StatefulSet' && stuck && attempt < attempts) {
      await forceRollback(
        inv,
        {
          run: (name, calls) => step(inv, context, name, calls),
          save: () => context.save(inv),
          progress: context.progress,
          settle: (followUp, done) => settleAction(followUp, done, context),
        },
        String(remediation.arguments.name),
        stuck,
        attempt,
      );
    }
  }
  const name = String(remediation.arguments.name);
  const approved = approvedTemplate(remediate.calls[0]?.structured?.effect);
  // The settle window reads a Deployment's template managers (get_deployment): Deployments only.
  if (inv.verification?.healthy && remediation.arguments.kind === undefined)
    await settle(inv, context, name, approved);
  else if (remediation.arguments.kind === undefined)
    await overwrittenDuringRollout(inv, context, name, approved);
}

/** `reverted` verification naming who reverted, when, and what changed. */
function markReverted(inv: Investigation, context: InvestigatorContext, revert: Revert, settled?: number) {
  inv.verification = {
    ...inv.verification!,
    healthy: false,
    state: 'reverted',
    message: revertLine(revert),
    reverted_by: revert.manager,
    reverted_at: revert.time,
    ...(settled !== undefined && { settle_seconds: settled }),
  };
  context.save(inv);
  context.progress(`Verification: ${revertLine(revert)}`);
}

/**
 * A rollout that did not complete may have been undone before it could: when the newest writer of
 * the Deployment's Pod template is another field manager (a GitOps controller re-applying the old
 * template mid-rollout), verification ends `reverted` naming it, not merely "not healthy yet".
 */
async function overwrittenDuringRollout(
  inv: Investigation,
  context: InvestigatorContext,
  name: string,
  approved: ApprovedTemplate | undefined,
): Promise<void> {
  const args = await templateReadArguments(context, inv.namespace, name);
  const s = await step(inv, context, 'settle:0', () => [{ tool: 'get_deployment', arguments: args }]);
  const view = parseStructured(TemplateViewSchema, s.calls[0]?.structured);
  if (!view) return;
  // With the approved effect: the live template must be the approved one. Without: who wrote last.
  if (approved) {
    const revert = findRevertOfApproved(approved, view);
    if (revert) markReverted(inv, context, revert);
    return;
  }
  const newest = view.template_managers[0];
  if (!newest || newest.manager === OWN_FIELD_MANAGER) return;
  markReverted(inv, context, {
    manager: newest.manager,
    time: newest.time,
    change: 'the template Sentinel wrote was replaced during the rollout',
  });
}

/**
 * The `get_deployment` arguments of a look at the live template: without the HorizontalPodAutoscaler
 * list (`autoscalers: false`, one request less per check) when the server's tool takes it.
 */
async function templateReadArguments(
  context: InvestigatorContext,
  namespace: string,
  name: string,
): Promise<Record<string, unknown>> {
  const info = (await context.caller.tools()).get('get_deployment');
  return info?.arguments?.includes('autoscalers')
    ? { namespace, name, autoscalers: false }
    : { namespace, name };
}

/**
 * The settle window: `settleChecks` `get_deployment` calls over `settleSeconds` of cluster time
 * compare the live template with the approved one — the template the approved call's effect
 * recorded (`approved`: digest and images, so a revert that landed before the first check counts
 * too), else the template the completed rollout left. A change ends verification `reverted` (not
 * healthy), naming the field manager and time.
 */
async function settle(
  inv: Investigation,
  context: InvestigatorContext,
  name: string,
  approved: ApprovedTemplate | undefined,
): Promise<void> {
  const seconds = context.settleSeconds ?? 60;
  const checks = Math.max(1, context.settleChecks ?? 6);
  if (seconds <= 0) return;
  const now = context.clusterNow ?? Date.now;
  const tickMs = context.settleTickMs ?? 500;
  const args = await templateReadArguments(context, inv.namespace, name);
  const look = async (index: number) => {
    const s = await step(inv, context, `settle:${index}`, () => [
      { tool: 'get_deployment', arguments: args },
    ]);
    return parseStructured(TemplateViewSchema, s.calls[0]?.structured);
  };
  const first = await look(0);
  if (!first) return;
  const reverted = (current: TemplateView) =>
    approved ? findRevertOfApproved(approved, current) : findRevert(first, current);
  const start = now();
  if (approved) {
    const revert = reverted(first);
    if (revert) return markReverted(inv, context, revert, 0);
  }
  context.progress(
    `Watching Deployment ${inv.namespace}/${name} for ${seconds}s: the approved template must hold.`,
  );
  for (let index = 1; index <= checks; index++) {
    const due = start + (seconds * 1000 * index) / checks;
    while (now() < due) await sleep(tickMs);
    const current = await look(index);
    const revert = current && reverted(current);
    if (revert) return markReverted(inv, context, revert, Math.round((now() - start) / 1000));
  }
  inv.verification = { ...inv.verification!, settle_seconds: seconds };
  context.save(inv);
  context.progress(`The approved template held for ${seconds}s.`);
}

/**
 * The evidence steps about workload `ref`: a Deployment's object, history, Pods and events; a
 * StatefulSet's or DaemonSet's history (with `kind`), the namespace's Pods it names (`ownPods`) and
 * events; then crashed containers' logs.
 */
async function gather(
  inv: Investigation,
  context: InvestigatorContext,
  ref: SuspectRef,
  triage: Triage | undefined,
): Promise<SuspectEvidence> {
  const { namespace } = inv;
  const { kind, name } = ref;
  const isDeployment = kind === 'Deployment';
  // A Deployment's step keeps its old name, so a saved investigation resumes as it was.
  const evidence = await step(
    inv,
    context,
    `evidence:${isDeployment ? '' : `${kind}/`}${name}`,
    () =>
      isDeployment
        ? [
            { tool: 'get_deployment', arguments: { namespace, name } },
            { tool: 'get_rollout_history', arguments: { namespace, name } },
            { tool: 'list_pods', arguments: { namespace, deployment: name } },
            { tool: 'list_events', arguments: { namespace, warnings_only: true } },
          ]
        : [
            { tool: 'get_rollout_history', arguments: { namespace, name, kind } },
            { tool: 'list_pods', arguments: { namespace } },
            { tool: 'list_events', arguments: { namespace, warnings_only: true } },
          ],
    SNAPSHOT,
  );
  const workload = triage?.workloads.find((w) => w.kind === kind && w.name === name);
  const listed = sourced(output(evidence, 'list_pods'), (v) => parseStructured(PodsSchema, v)?.pods);
  const pods = listed && !isDeployment ? { ...listed, value: ownPods(listed.value, ref, workload) } : listed;
  const crashed = crashedContainers(pods?.value ?? []);
  const logs =
    crashed.length === 0
      ? undefined
      : await step(
          inv,
          context,
          `logs:${isDeployment ? '' : `${kind}/`}${name}`,
          () =>
            crashed.map(({ pod, container }) => ({
              tool: 'get_pod_logs',
              arguments: { namespace, pod, container, previous: true, tail_lines: 50 },
            })),
          SNAPSHOT,
        );
  // The OOM class only: the killed container's last usage beside its limit (kubectl top pod).
  const oomPod = oomKilledPod(pods?.value ?? []);
  const metrics =
    oomPod === undefined || !(await context.caller.tools()).has('get_pod_metrics')
      ? undefined
      : await step(
          inv,
          context,
          `metrics:${isDeployment ? '' : `${kind}/`}${name}`,
          () => [{ tool: 'get_pod_metrics', arguments: { namespace, pod: oomPod } }],
          SNAPSHOT,
        );
  const lookup = evidence.calls.find((call) => call.tool === 'get_deployment');
  return {
    kind,
    name,
    missing:
      lookup?.status === 'failed' && lookup.error_code === 'not_found'
        ? { value: lookup.text ?? `Deployment '${name}' not found`, source: describeCall(lookup) }
        : undefined,
    triage: workload,
    deployment: sourced(output(evidence, 'get_deployment'), (v) => parseStructured(DeploymentViewSchema, v)),
    history: sourced(
      output(evidence, 'get_rollout_history'),
      (v) => parseStructured(HistorySchema, v)?.revisions,
    ),
    pods,
    events: sourced(output(evidence, 'list_events'), (v) => parseStructured(EventsSchema, v)?.events),
    metrics: sourced(output(metrics, 'get_pod_metrics'), (v) => parseStructured(PodMetricsSchema, v)),
    logs: (logs?.calls ?? []).flatMap((call) => {
      const value = call.status === 'succeeded' ? parseStructured(LogsSchema, call.structured) : undefined;
      return value ? [{ value, source: describeCall(call) }] : [];
    }),
  };
}

/** Hosts a suspect names that are looked up as Services (one `get_service` call each). */
const MAX_HOSTS = 3;
/** Workloads behind those Services whose evidence is gathered. */
const MAX_DEPENDENCIES = 2;

/**
 * Evidence about what the suspect depends on: each host its logs or events name (`suspectHosts`,
 * at most `MAX_HOSTS`) looked up as a Service of the namespace (`get_service`; a host that is no
 * Service is not followed), then the workloads its selector selects (`serviceBackends`), each
 * gathered like the suspect and carrying the chain in `via`. No name guessing: a Service `db` in
 * front of StatefulSet `postgres` leads to `postgres`.
 */
async function gatherDependencies(
  inv: Investigation,
  context: InvestigatorContext,
  suspect: SuspectEvidence,
  triage: Triage | undefined,
): Promise<SuspectEvidence[]> {
  const hosts = suspectHosts(suspect).slice(0, MAX_HOSTS);
  if (hosts.length === 0) return [];
  const kindPrefix = suspect.kind && suspect.kind !== 'Deployment' ? `${suspect.kind}/` : '';
  const lookups = await step(
    inv,
    context,
    `services:${kindPrefix}${suspect.name}`,
    () => hosts.map((host) => ({ tool: 'get_service', arguments: { namespace: inv.namespace, name: host } })),
    SNAPSHOT,
  );
  const found: { ref: SuspectRef; via: NonNullable<SuspectEvidence['via']> }[] = [];
  for (const call of lookups.calls) {
    const view =
      call.status === 'succeeded' ? parseStructured(ServiceViewSchema, call.structured) : undefined;
    if (!view) continue;
    const via = { host: String(call.arguments.name), service: { value: view, source: describeCall(call) } };
    for (const ref of serviceBackends(view, suspect)) {
      if (!found.some((f) => f.ref.kind === ref.kind && f.ref.name === ref.name)) found.push({ ref, via });
    }
  }
  const dependencies: SuspectEvidence[] = [];
  for (const { ref, via } of found.slice(0, MAX_DEPENDENCIES)) {
    dependencies.push({ ...(await gather(inv, context, ref, triage)), via });
  }
  return dependencies;
}

/**
 * The Pods of a StatefulSet or DaemonSet among a namespace's Pods: the ones triage names for it,
 * and those named as its controller names them — `<name>-<ordinal>` (StatefulSet) or
 * `<name>-<5-character suffix>` (DaemonSet, `generateName`).
 */
export function ownPods(pods: PodView[], ref: SuspectRef, workload: TriageWorkload | undefined): PodView[] {
  const named = new Set(workload?.findings.map((f) => f.pod).filter(Boolean));
  const prefix = `${ref.name}-`;
  const suffix = ref.kind === 'StatefulSet' ? /^\d+$/ : /^[a-z0-9]{5}$/;
  return pods.filter(
    (pod) =>
      named.has(pod.name) || (pod.name.startsWith(prefix) && suffix.test(pod.name.slice(prefix.length))),
  );
}

/** Sets the action's status from the remediation step, with who decided and what came of it. */
async function settleAction(action: Action, remediate: Step, context: InvestigatorContext): Promise<void> {
  const call = remediate.calls[0]!;
  action.approval_request_id = call.approval_request_id;
  if (call.approval_request_id) {
    const request = await context.getApproval(call.approval_request_id);
    action.decided_by = request.decision?.by ?? null;
    action.requested_by = request.requester;
    action.decision_reason = request.decision?.reason ?? null;
  }
  const summary = call.structured?.summary;
  action.outcome = typeof summary === 'string' ? summary : firstLine(call.text);
  action.status =
    remediate.status === 'done'
      ? 'executed'
      : remediate.status === 'declined'
        ? 'declined'
        : remediate.status === 'awaiting_approval'
          ? 'awaiting_approval'
          : 'failed';
}

function firstLine(text: string | null): string | null {
  return (
    text
      ?.split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? null
  );
}
