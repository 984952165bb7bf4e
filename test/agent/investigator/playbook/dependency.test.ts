/**
 * The dependency class follows a host to a Service and the Service's selector to the workload
 * behind it (any of Deployment, StatefulSet, DaemonSet), not the host's name to a workload's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PodView, RevisionView, ServiceView } from '../../../../agent/investigator/evidence.ts';
import {
  decide,
  namedHosts,
  serviceBackends,
  suspectHosts,
  type SuspectEvidence,
} from '../../../../agent/investigator/playbook.ts';

const NOW = Date.parse('2026-12-02T02:24:00Z');
const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();

function pod(name: string, revision: number | null, created: number, crashing: boolean): PodView {
  return {
    name,
    phase: 'Running',
    status: crashing ? 'CrashLoopBackOff' : 'Running',
    ready_containers: crashing ? 0 : 1,
    total_containers: 1,
    restarts: crashing ? 6 : 0,
    created: ago(created),
    revision,
    containers: [
      {
        name: 'app',
        type: 'app',
        image: 'app:1',
        state: crashing ? 'waiting' : 'running',
        reason: crashing ? 'CrashLoopBackOff' : null,
        ready: !crashing,
        restarts: crashing ? 6 : 0,
        last_termination: crashing ? { reason: 'Error', exit_code: 1, finished_at: ago(1) } : null,
        problem: null,
      },
    ],
  };
}

function rev(n: number, created: number, extra: Partial<RevisionView> = {}): RevisionView {
  return {
    revision: n,
    current: false,
    replica_set: `postgres-${n}`,
    images: ['postgres:16.4'],
    change_cause: null,
    created: ago(created),
    replicas: 0,
    ready: 0,
    changes: [],
    ...extra,
  };
}

const victim: SuspectEvidence = {
  name: 'checkout',
  deployment: {
    value: {
      namespace: 'shop',
      name: 'checkout',
      revision: 1,
      paused: false,
      replicas: { desired: 2, ready: 0, available: 0, updated: 2 },
      conditions: [],
      containers: [{ name: 'app', image: 'checkout:2.4.0', limits: {} }],
    },
    source: 'get_deployment name=checkout',
  },
  history: { value: [rev(1, 4 * 1440, { current: true })], source: 'get_rollout_history name=checkout' },
  pods: { value: [pod('checkout-1-a', 1, 4 * 1440, true)], source: 'list_pods deployment=checkout' },
  events: { value: [], source: 'list_events' },
  logs: [
    {
      value: {
        pod: 'checkout-1-a',
        container: 'app',
        previous: true,
        log: 'starting\nfailed to connect to db:5432 (postgres://checkout@db:5432/shop): connection refused\n',
      },
      source: 'get_pod_logs pod=checkout-1-a previous=true',
    },
  ],
};

const service: ServiceView = {
  namespace: 'shop',
  name: 'db',
  selector: 'app=postgres',
  pods: { matched: 1, ready: 0 },
  backends: [{ kind: 'StatefulSet', name: 'postgres', pods: 1, ready: 0 }],
};

/** StatefulSet postgres: revision 2 (10 minutes old) crash-loops on postgres-0; revision 1 served for days. */
const postgres: SuspectEvidence = {
  kind: 'StatefulSet',
  name: 'postgres',
  history: {
    value: [
      rev(2, 10, {
        current: true,
        changes: [{ kind: 'container', container: 'app', key: 'args', from: '200', to: 'abc', text: '' }],
      }),
      rev(1, 6 * 1440),
    ],
    source: 'get_rollout_history name=postgres kind=StatefulSet',
  },
  pods: { value: [pod('postgres-0', null, 10, true)], source: 'list_pods' },
  events: { value: [], source: 'list_events' },
  logs: [],
  triage: {
    kind: 'StatefulSet',
    name: 'postgres',
    severity: 'critical',
    summary: 'postgres-0 crash-loops',
    likely_cause: 'crash loop',
    findings: [],
    rollout: { current_revision: 2, failing_revisions: [2], previous_revision: null },
  },
  via: { host: 'db', service: { value: service, source: 'get_service name=db' } },
};

describe('hosts a victim names', () => {
  it('takes the host after the user info of a URL, and host:port', () => {
    expect(namedHosts('postgres://checkout@db:5432/shop')).toEqual(['db']);
    expect(namedHosts('dial redis://:secret@cache.shop.svc:6379')).toEqual(['cache']);
    expect(suspectHosts(victim)).toEqual(['db']);
  });
});

describe('hosts a victim names, in hostile log lines', () => {
  // The URL pattern started at every letter and rescanned a long run of `a.b.c…` from each: quadratic,
  // 32,000 characters took 0.56 s, so this 2 MB line would take half an hour. Linear now, it takes
  // milliseconds; the generous timeout is for a loaded machine.
  it('finds the URL after a long dotted token', { timeout: 120_000 }, () => {
    expect(namedHosts(`${'a.'.repeat(1_000_000)} https://db`)).toEqual(['db']);
  });

  /** The function as it was (its URL expression quadratic on a long run of scheme characters). */
  const before = (text: string): string[] => {
    const hosts = new Set<string>();
    const add = (host: string | undefined) => {
      const label = host?.toLowerCase().split('.')[0];
      if (label && !/^\d+$/.test(label) && label !== 'localhost') hosts.add(label);
    };
    for (const m of text.matchAll(/[a-z][a-z0-9+.-]*:\/\/(?:[^@\s/]*@)?([a-z0-9.-]+)/gi)) add(m[1]);
    for (const m of text.matchAll(/(?<![\w/.-])([a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*):\d{2,5}\b/gi)) add(m[1]);
    return [...hosts];
  };
  const pieces = ['a', 'B', '1', '+', '.', '-', '_', ':', '/', '//', '://', '@', ' ', ':5432', 'db', 'x.y'];
  const text = fc
    .array(
      fc.oneof(
        { arbitrary: fc.constantFrom(...pieces), weight: 4 },
        { arbitrary: fc.string({ maxLength: 2 }), weight: 1 },
      ),
      { maxLength: 24, size: 'max' },
    )
    .map((parts) => parts.join(''));
  it('gives what the expressions gave, for any text', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(namedHosts(value)).toEqual(before(value));
      }),
      { numRuns: 10_000 },
    );
  });
});

describe('serviceBackends', () => {
  it('gives the workloads the selector selects, whatever their names, without the victim itself', () => {
    expect(serviceBackends(service, victim)).toEqual([{ kind: 'StatefulSet', name: 'postgres' }]);
    const mixed: ServiceView = {
      ...service,
      backends: [
        { kind: 'Deployment', name: 'checkout', pods: 2, ready: 0 },
        { kind: 'Pod', name: 'debug', pods: 1, ready: 1 },
        { kind: 'DaemonSet', name: 'pgbouncer', pods: 3, ready: 3 },
      ],
    };
    expect(serviceBackends(mixed, victim)).toEqual([{ kind: 'DaemonSet', name: 'pgbouncer' }]);
  });
});

describe('dependency via a Service selector', () => {
  it('blames the StatefulSet behind Service db and rolls it back; checkout is affected, untouched', () => {
    const decision = decide({ namespace: 'shop', now: NOW, suspect: victim, dependencies: [postgres] });
    expect(decision.culprit).toEqual({ kind: 'StatefulSet', namespace: 'shop', name: 'postgres' });
    expect(decision.action).toBe('rollback');
    expect(decision.remediation).toEqual({
      tool: 'rollback_deployment',
      arguments: { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', to_revision: 1 },
    });
    expect(decision.facts).toMatchObject({
      affected: 'Deployment shop/checkout',
      service: 'Service shop/db',
    });
    expect(decision.diagnosis).toContain('StatefulSet shop/postgres behind Service shop/db fails');
    expect(decision.evidence).toContainEqual({
      source: 'get_service name=db',
      line: 'host db → Service shop/db (selector app=postgres) → StatefulSet shop/postgres: 0/1 Pod(s) ready',
    });
  });

  it('does not follow a workload the victim names only by a host that is not its Service', () => {
    const unrelated = { ...postgres, via: { ...postgres.via!, host: 'cache' } };
    const decision = decide({ namespace: 'shop', now: NOW, suspect: victim, dependencies: [unrelated] });
    expect(decision.culprit?.name).toBe('checkout');
    expect(decision.action).toBe('refused');
  });
});
