/**
 * One local investigation from the command line: opens (or resumes) the record, connects to the
 * Sentinel server as `investigator` (starting an in-process server when no URL is given), decides how
 * the human approves, runs the playbook, and returns the report.
 */
import type { z } from 'zod';
import { resolve as resolvePath } from 'node:path';
import { fromZod, SentinelError, sentinelCommand } from '../../core/index.ts';
import { DeploymentNameSchema, NamespaceSchema, type KubeConnection } from '../../tools/index.ts';
import {
  clientToken,
  connectCluster,
  createApprovalsClient,
  createIdentityStore,
  defaultTokensFile,
  serverBaseUrl,
} from '../../server/index.ts';
import type { ApprovalPrompter } from '../harness/prompter.ts';
import { sentinelEndpoints } from '../harness/sentinel-server.ts';
import { checkNamesOnCluster } from './check-names.ts';
import { investigatorToken } from './identity.ts';
import { runInvestigation } from './investigate.ts';
import { startLocalServer, type LocalServer } from './local-server.ts';
import { approvalInstructions, type ApproverToken } from './approval-instructions.ts';
import { mcpToolCaller } from './mcp-client.ts';
import { newInvestigation, type Investigation, type ServerTarget } from './model.ts';
import { buildReport, type Report } from './report.ts';
import { openInvestigationStore } from './store.ts';
import { waitForDecision, type DecisionMode } from './wait.ts';

export interface LocalInvestigationOptions {
  symptom?: string | undefined;
  namespace?: string | undefined;
  deployment?: string | undefined;
  /** Stops waiting for a decision (Ctrl-C): the wait throws `timeout`, the investigation stays resumable. */
  signal?: AbortSignal | undefined;
  /** The Sentinel server (MCP or base URL); absent: an in-process server. */
  server?: string | undefined;
  /** The human's token (an approver); default `<data-dir>/local.token`, or the in-process server's. */
  token?: string | undefined;
  dataDir: string;
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** A cluster connection for the in-process server (tests, the demo). */
  kube?: KubeConnection;
  /** Approve every request at once (a dangerous one only as `confirm` or `simulated` allow). */
  yes?: boolean | undefined;
  /** `--confirm`: the Deployment names `yes` may approve a dangerous request for (rollback, restart, scale). */
  confirm?: readonly string[] | undefined;
  /**
   * The cluster is the embedded simulator (`sentinel demo`, `sentinel eval`): `yes` approves a
   * dangerous request without `confirm`, since nothing real can change.
   */
  simulated?: boolean | undefined;
  /** Continue this investigation. */
  resume?: string | undefined;
  /** Ask the approvers again for a call an earlier human denial answers (instead of stopping there). */
  askAgain?: boolean | undefined;
  /** Asks y/N at the terminal; absent: decisions come from elsewhere (unless `yes`). */
  prompter?: ApprovalPrompter | undefined;
  /** Where progress goes (stderr). */
  progress: NodeJS.WritableStream;
  /** Milliseconds between approval polls (default 1000). */
  pollMs?: number;
  /** Verification: polls and `wait_seconds` per poll (defaults 8 and 15). */
  verifyAttempts?: number;
  verifyWaitSeconds?: number;
  /** Cluster-time seconds the approved template must hold after the rollout (default 60; 0 skips). */
  settleSeconds?: number;
  /** Epoch ms "now" as the cluster sees it (simulated clusters have their own clock). */
  clusterNow?: () => number;
  /** Called once the investigation has an id (before any call), e.g. to print how to resume. */
  onStart?: (investigation: Investigation) => void;
}

export interface LocalInvestigationResult {
  investigation: Investigation;
  report: Report;
}

/** Rejects a flag value the tools would reject, before anything is saved or called. */
function checkName(flag: 'namespace' | 'deployment', schema: z.ZodType, value: string): void {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw fromZod(parsed.error, [], {
      field: flag,
      message: (_lines, [first]) => `--${flag} '${value}': ${first?.rule}.`,
    });
  }
}

/**
 * Checks the options of a new investigation (`resume` unset) the way the tools would, before
 * anything is started, saved or called: a symptom, a `namespace`, valid names. Throws
 * `SentinelError('invalid_input')` naming the flag and the rule. Nothing to check when resuming.
 */
export function checkNewInvestigation(
  options: Pick<LocalInvestigationOptions, 'symptom' | 'namespace' | 'deployment' | 'resume'>,
): void {
  if (options.resume) return;
  if (!options.symptom?.trim()) {
    throw new SentinelError(
      'invalid_input',
      `Say what is wrong: ${sentinelCommand()} investigate "<symptom>" --namespace <ns>.`,
      {
        field: 'symptom',
      },
    );
  }
  if (!options.namespace) {
    throw new SentinelError(
      'invalid_input',
      '--namespace is required: the namespace to investigate, e.g. --namespace shop.',
      {
        field: 'namespace',
      },
    );
  }
  checkName('namespace', NamespaceSchema, options.namespace);
  if (options.deployment !== undefined) checkName('deployment', DeploymentNameSchema, options.deployment);
}

/** Loads the investigation to resume, or creates a new one from the options (validated; not saved). */
function openOrCreate(
  options: LocalInvestigationOptions,
  store: ReturnType<typeof openInvestigationStore>,
): Investigation {
  if (options.resume) return store.load(options.resume);
  checkNewInvestigation(options);
  const symptom = options.symptom!.trim();
  const namespace = options.namespace!;
  const server: ServerTarget = options.server
    ? { kind: 'url', url: options.server }
    : {
        kind: 'in-process',
        // Saved absolute: `--resume` may run from another directory.
        kubeconfig: options.kubeconfig == null ? null : resolvePath(options.kubeconfig),
        context: options.context ?? null,
      };
  return newInvestigation({
    symptom,
    namespace,
    deployment: options.deployment,
    server,
  });
}

/**
 * The cluster the in-process server should use (mirrors kubectl's lookup: `--kubeconfig`,
 * `KUBECONFIG`, `~/.kube/config`, in-cluster). Throws `SentinelError('invalid_input')` naming the
 * file or context and the flags when none is configured or it cannot be used (missing file, unknown
 * context, context without a server); `field` is `context` when the context is what is wrong.
 */
async function usableCluster(
  kubeconfig: string | null | undefined,
  context: string | null | undefined,
): Promise<KubeConnection> {
  const connection = await connectCluster({
    ...(kubeconfig != null && { kubeconfig }),
    ...(context != null && { context }),
  });
  if (connection.configured) return connection;
  const field =
    context != null && connection.reason.startsWith(`Context '${context}'`) ? 'context' : 'kubeconfig';
  throw new SentinelError('invalid_input', connection.reason, { field });
}

/**
 * Runs (or resumes) a local investigation to its end and returns the record and the report. Throws
 * `SentinelError`: `invalid_input` for missing or bad options (naming the flag) and for a cluster
 * configuration the in-process server cannot use (nothing saved), `unavailable` when
 * the server cannot be used, `timeout` when the wait for a decision was interrupted (the
 * investigation stays resumable).
 */
export async function runLocalInvestigation(
  options: LocalInvestigationOptions,
): Promise<LocalInvestigationResult> {
  const store = openInvestigationStore(options.dataDir);
  const investigation = openOrCreate(options, store);
  const target = options.server ? ({ kind: 'url', url: options.server } as const) : investigation.server;
  const identities = createIdentityStore({ tokensFile: defaultTokensFile(options.dataDir) });
  const investigatorBearer = investigatorToken(identities, options.dataDir);

  // The in-process server's cluster, checked before anything is saved: a configuration that
  // cannot be used is a usage error like a bad flag, not an investigation to resume.
  const kube =
    target.kind === 'in-process'
      ? (options.kube ??
        (await usableCluster(options.kubeconfig ?? target.kubeconfig, options.context ?? target.context)))
      : undefined;
  let local: LocalServer | undefined;
  try {
    if (kube) local = await startLocalServer({ dataDir: options.dataDir, kube });
    const endpoints = sentinelEndpoints(local ? `${local.url}/mcp` : (target as { url: string }).url);
    const found =
      options.token || local ? undefined : clientToken(undefined, options.dataDir, endpoints.mcp.href);
    const human = options.token || local?.token || found?.token;
    // What the printed `approvals approve` hint can rely on to find the same token.
    const approverToken: ApproverToken = options.token
      ? { kind: options.token === process.env.SENTINEL_TOKEN ? 'env' : 'flag' }
      : found
        ? { kind: 'file', file: found.source }
        : { kind: 'none' };
    if (options.yes && !human) {
      throw new SentinelError(
        'invalid_input',
        '--yes approves with your token, and none was found: pass --token or set SENTINEL_TOKEN (an approver).',
        { field: 'token' },
      );
    }
    // Reading a request needs any valid token; deciding needs the human's.
    const approvals = createApprovalsClient({
      server: endpoints.mcp.href,
      token: human ?? investigatorBearer,
      // Named by a refusal (401): the human's token, never the investigator's own.
      ...(human && {
        tokenSource:
          approverToken.kind === 'flag'
            ? '--token'
            : approverToken.kind === 'env'
              ? 'SENTINEL_TOKEN'
              : approverToken.kind === 'file'
                ? approverToken.file
                : local?.tokenFile,
      }),
    });
    const mode: DecisionMode = options.yes
      ? {
          kind: 'auto-approve',
          ...(options.confirm && { confirm: options.confirm }),
          ...(options.simulated && { simulated: true }),
        }
      : human && options.prompter
        ? { kind: 'prompt', prompter: options.prompter }
        : { kind: 'wait' };
    const howToApprove = (id: string) =>
      approvalInstructions(id, local, serverBaseUrl(endpoints.mcp.href), {
        dataDir: options.dataDir,
        token: approverToken,
      });
    const caller = mcpToolCaller({ url: endpoints.mcp, token: investigatorBearer });
    try {
      // Saved (and announced as resumable) only once the server answers: a run that fails on its
      // arguments or cannot reach the server leaves no investigation behind.
      const tools = await caller.tools();
      // A namespace or --deployment that does not exist is a usage error (with "did you mean"),
      // told before anything is saved.
      if (!options.resume) {
        await checkNamesOnCluster(caller, tools, {
          namespace: investigation.namespace,
          deployment: investigation.deployment ?? undefined,
        });
      }
      store.save(investigation);
      options.onStart?.(investigation);
      await runInvestigation(investigation, {
        caller,
        waitForDecision: (id) =>
          waitForDecision(id, {
            approvals,
            mode,
            progress: options.progress,
            pollMs: options.pollMs,
            howToApprove,
            serverUrl: serverBaseUrl(endpoints.mcp.href),
            investigationId: investigation.id,
            ...(options.signal && { signal: options.signal }),
          }),
        getApproval: (id) => approvals.get(id),
        save: (record) => store.save(record),
        progress: (line) => options.progress.write(`${line}\n`),
        ...(options.clusterNow && { clusterNow: options.clusterNow }),
        ...(options.verifyAttempts !== undefined && { verifyAttempts: options.verifyAttempts }),
        ...(options.verifyWaitSeconds !== undefined && { verifyWaitSeconds: options.verifyWaitSeconds }),
        ...(options.settleSeconds !== undefined && { settleSeconds: options.settleSeconds }),
        askAgain: options.askAgain === true,
        ...(options.signal && { signal: options.signal }),
        askAgainCommand: `${sentinelCommand()} investigate --resume ${investigation.id} --ask-again`,
      });
    } finally {
      await caller.close();
    }
    return { investigation, report: buildReport(investigation) };
  } finally {
    await local?.close();
  }
}
