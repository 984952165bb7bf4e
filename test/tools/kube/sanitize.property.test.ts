/**
 * Property (issue 13, finding 1): whatever strings the cluster puts in any field of its objects —
 * names, labels and annotations (keys and values), images, env values, commands, conditions, events,
 * change-causes, Status messages, logs — no tool output (text, structuredContent, error) carries an
 * ESC, BEL, C1 control, bidi control or other invisible format character. Every tool runs against an
 * API server (nock) serving poisoned copies of a crash-looping Deployment's objects; remediation
 * tools run as previews (dry_run), as the gate runs them before a human sees them.
 */
import fc from 'fast-check';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.ts';
import type { Tool, ToolContext } from '../../../tools/define-tool.ts';
import { SentinelError } from '../../../tools/errors.ts';
import { NOW, ago, deployment, pod, replicaSet } from '../../helpers/fixtures.ts';
import { TEST_SERVER, useMockedCluster } from '../../helpers/kube.ts';
import { FORBIDDEN } from '../../helpers/escapes.ts';
import { injections, poison } from '../../helpers/poison.ts';

/** Runs of the property: each is one poisoned cluster, every tool called once against it. */
export const NUM_RUNS = 25;

const kube = useMockedCluster({ now: NOW });

/** A Deployment mid-way through a bad rollout, with everything the tools read. */
function cluster() {
  const dep = deployment({
    name: 'checkout',
    image: 'shop/checkout:2.4.1',
    revision: 3,
    updated: 1,
    ready: 2,
    env: [
      { name: 'MODE', value: 'live' },
      { name: 'DB_PASSWORD', value: 'hunter2' },
    ],
    conditions: [
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable', message: 'ok' },
      {
        type: 'Progressing',
        status: 'False',
        reason: 'ProgressDeadlineExceeded',
        message: 'ReplicaSet "checkout-b" has timed out progressing.',
      },
    ],
  });
  (dep.metadata as { annotations: Record<string, string> }).annotations['kubernetes.io/change-cause'] =
    'deploy 2.4.1';
  const old = replicaSet({
    deployment: dep,
    revision: 2,
    hash: 'a',
    image: 'shop/checkout:2.4.0',
    replicas: 2,
    changeCause: 'deploy 2.4.0',
  });
  const current = replicaSet({
    deployment: dep,
    revision: 3,
    hash: 'b',
    image: 'shop/checkout:2.4.1',
    replicas: 1,
    ready: 0,
    changeCause: 'deploy 2.4.1',
  });
  const crashing = pod({
    name: 'checkout-b-1',
    owner: current,
    containers: [
      {
        name: 'app',
        image: 'shop/checkout:2.4.1',
        restarts: 5,
        waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s restarting failed container' },
        last: { reason: 'Error', exitCode: 1 },
      },
    ],
  });
  const healthy = pod({ name: 'checkout-a-1', owner: old });
  const event = {
    metadata: { uid: 'e1', name: 'checkout-b-1.1', namespace: 'shop', creationTimestamp: ago(5) },
    involvedObject: { kind: 'Pod', name: 'checkout-b-1', namespace: 'shop' },
    type: 'Warning',
    reason: 'BackOff',
    message: 'Back-off restarting failed container app in pod checkout-b-1',
    count: 7,
    firstTimestamp: ago(10),
    lastTimestamp: ago(1),
    source: { component: 'kubelet' },
  };
  const eventV1 = {
    metadata: { uid: 'e2', name: 'checkout.2', namespace: 'shop', creationTimestamp: ago(14) },
    regarding: { kind: 'Deployment', name: 'checkout', namespace: 'shop' },
    type: 'Normal',
    reason: 'ScalingReplicaSet',
    note: 'Scaled up replica set checkout-b to 1',
    eventTime: ago(14),
    reportingController: 'deployment-controller',
  };
  const hpa = {
    metadata: { name: 'checkout', namespace: 'shop', uid: 'h1', creationTimestamp: ago(100) },
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'checkout', apiVersion: 'apps/v1' },
      minReplicas: 2,
      maxReplicas: 6,
    },
    status: { currentReplicas: 3, desiredReplicas: 3 },
  };
  const service = {
    metadata: { name: 'checkout', namespace: 'shop', uid: 's1', creationTimestamp: ago(100) },
    spec: { selector: { app: 'checkout' }, ports: [{ name: 'http', port: 80 }] },
  };
  const log = 'starting\n{"level":"fatal","msg":"invalid configuration"}\n';
  const status = {
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'NotFound',
    code: 404,
    message: 'not found',
  };
  const version = { major: '1', minor: '30', gitVersion: 'v1.30.0', platform: 'linux/amd64' };
  return {
    dep,
    sets: [old, current],
    pods: [crashing, healthy],
    events: [event],
    eventsV1: [eventV1],
    hpas: [hpa],
    services: [service],
    log,
    status,
    version,
  };
}

type Cluster = ReturnType<typeof cluster>;

/** Answers every GET from `current()`, as the API server would (lists unfiltered; a missing object is a poisoned 404). */
function serve(current: () => Cluster): nock.Scope {
  return nock(TEST_SERVER)
    .persist()
    .get(/.*/)
    .reply((request: string | Request) => {
      const c = current();
      const path = new URL(typeof request === 'string' ? request : request.url, TEST_SERVER).pathname;
      const list = (items: unknown[]) => [200, { items, metadata: {} }];
      const routes: [RegExp, () => unknown[]][] = [
        [/^\/version$/, () => [200, c.version]],
        [/^\/api\/v1\/namespaces$/, () => list([{ metadata: c.dep.metadata, status: { phase: 'Active' } }])],
        [/\/deployments$/, () => list([c.dep])],
        [/\/deployments\/[^/]+$/, () => [200, c.dep]],
        [/\/replicasets$/, () => list(c.sets)],
        [/\/pods$/, () => list(c.pods)],
        [/\/pods\/[^/]+\/log$/, () => [200, c.log, { 'content-type': 'text/plain' }]],
        [/\/pods\/([^/]+)$/, () => [200, c.pods[0]]],
        [/\/api\/v1\/namespaces\/[^/]+\/events$/, () => list(c.events)],
        [/\/apis\/events\.k8s\.io\/v1\/namespaces\/[^/]+\/events$/, () => list(c.eventsV1)],
        [/\/horizontalpodautoscalers$/, () => list(c.hpas)],
        [/\/services$/, () => list(c.services)],
        [/\/services\/[^/]+$/, () => [200, c.services[0]]],
      ];
      for (const [pattern, answer] of routes) if (pattern.test(path)) return answer() as [number, unknown];
      return [404, c.status];
    });
}

/** The arguments each tool is called with (remediations as previews). */
function argumentsFor(tool: Tool): Record<string, unknown> {
  const target = { namespace: 'shop', name: 'checkout' };
  switch (tool.name) {
    case 'get_cluster_version':
    case 'list_namespaces':
      return {};
    case 'triage_namespace':
    case 'list_deployments':
    case 'list_events':
      return { namespace: 'shop' };
    case 'list_pods':
      return { namespace: 'shop', deployment: 'checkout' };
    case 'get_pod_logs':
      return { namespace: 'shop', pod: 'checkout-b-1', previous: true };
    case 'scale_deployment':
      return { ...target, replicas: 4, dry_run: true };
    case 'get_deployment':
    case 'get_rollout_history':
    case 'get_rollout_status':
    case 'get_service':
      return target;
    default:
      return { ...target, dry_run: true };
  }
}

/** Everything a tool call produced, as text: its text and structuredContent, or its error. */
async function outputOf(tool: Tool, ctx: ToolContext): Promise<string[]> {
  const args = tool.input.parse(argumentsFor(tool));
  try {
    const output = await tool.handler(args, { ...ctx, dryRun: args.dry_run === true });
    return [output.text, JSON.stringify(output.structured ?? null)];
  } catch (error) {
    if (error instanceof SentinelError) return [error.message, JSON.stringify(error.toJSON())];
    return [error instanceof Error ? error.message : String(error)];
  }
}

describe('sanitizer property: tool outputs', () => {
  it(`no ESC, BEL, C1, bidi or invisible character reaches any tool's text, structuredContent or error (${NUM_RUNS} poisoned clusters)`, async () => {
    let current = cluster();
    const scope = serve(() => current);
    try {
      await fc.assert(
        fc.asyncProperty(injections(), async (plan) => {
          current = poison(cluster(), plan);
          for (const tool of allTools) {
            for (const [i, out] of (await outputOf(tool, kube.context())).entries()) {
              const found = FORBIDDEN.exec(out);
              expect(
                found,
                found
                  ? `${tool.name} ${i ? 'structuredContent' : 'text'}: U+${found[0].codePointAt(0)!.toString(16)} in ${JSON.stringify(out.slice(Math.max(0, found.index - 30), found.index + 30))}`
                  : '',
              ).toBeNull();
            }
          }
        }),
        { numRuns: NUM_RUNS },
      );
    } finally {
      scope.persist(false);
      nock.cleanAll();
    }
  });
});
