import { describe, expect, it } from 'vitest';
import { containerProblem, containerStates, podSummary } from '../../../tools/kube/pod-status.ts';
import { NOW, pod } from '../../helpers/fixtures.ts';

describe('podSummary (kubectl get pods STATUS / READY / RESTARTS)', () => {
  it.each([
    ['running', pod({ name: 'p' }), 'Running', '1/1', 0],
    [
      'crash loop',
      pod({
        name: 'p',
        containers: [
          {
            name: 'app',
            waiting: { reason: 'CrashLoopBackOff' },
            restarts: 7,
            last: { reason: 'Error', exitCode: 1 },
          },
        ],
      }),
      'CrashLoopBackOff',
      '0/1',
      7,
    ],
    [
      'image pull',
      pod({
        name: 'p',
        phase: 'Pending',
        containers: [{ name: 'app', waiting: { reason: 'ImagePullBackOff' } }],
      }),
      'ImagePullBackOff',
      '0/1',
      0,
    ],
    [
      'OOM killed',
      pod({ name: 'p', containers: [{ name: 'app', terminated: { reason: 'OOMKilled', exitCode: 137 } }] }),
      'OOMKilled',
      '0/1',
      0,
    ],
    [
      'exit code without reason',
      pod({ name: 'p', containers: [{ name: 'app', terminated: { exitCode: 2 } }] }),
      'ExitCode:2',
      '0/1',
      0,
    ],
    [
      'signal without reason',
      pod({ name: 'p', containers: [{ name: 'app', terminated: { exitCode: 0, signal: 9 } }] }),
      'Signal:9',
      '0/1',
      0,
    ],
    [
      'config error',
      pod({
        name: 'p',
        phase: 'Pending',
        containers: [
          {
            name: 'app',
            waiting: { reason: 'CreateContainerConfigError', message: 'secret "db" not found' },
          },
        ],
      }),
      'CreateContainerConfigError',
      '0/1',
      0,
    ],
    [
      'unschedulable',
      pod({
        name: 'p',
        phase: 'Pending',
        containers: [],
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
      }),
      'Pending',
      '0/0',
      0,
    ],
    ['evicted', pod({ name: 'p', phase: 'Failed', reason: 'Evicted', containers: [] }), 'Evicted', '0/0', 0],
    ['terminating', pod({ name: 'p', deleting: true }), 'Terminating', '1/1', 0],
  ])('%s', (_title, p, status, ready, restarts) => {
    const summary = podSummary(p);
    expect(summary.status).toBe(status);
    expect(`${summary.readyContainers}/${summary.totalContainers}`).toBe(ready);
    expect(summary.restarts).toBe(restarts);
  });

  it('multi-container: the first container (in reverse order) with a reason wins, ready counts running ready ones', () => {
    const p = pod({
      name: 'p',
      containers: [
        { name: 'app', waiting: { reason: 'CrashLoopBackOff' }, restarts: 3 },
        { name: 'proxy', restarts: 1, last: { reason: 'Error', exitCode: 1, finishedMinutesAgo: 2 } },
      ],
    });
    const summary = podSummary(p);
    expect(summary).toMatchObject({
      status: 'CrashLoopBackOff',
      readyContainers: 1,
      totalContainers: 2,
      restarts: 4,
    });
    expect(summary.lastRestartAt).toBe(NOW - 2 * 60_000);
  });

  describe('init containers', () => {
    it('Init:i/n while an init container runs', () => {
      const p = pod({
        name: 'p',
        phase: 'Pending',
        initContainers: [
          { name: 'migrate', terminated: { reason: 'Completed', exitCode: 0 } },
          { name: 'seed', running: true, ready: false, started: true },
        ],
        containers: [{ name: 'app', waiting: { reason: 'PodInitializing' } }],
      });
      expect(podSummary(p).status).toBe('Init:1/2');
    });
    it('Init:<reason> when an init container fails or waits with a reason', () => {
      const crashing = pod({
        name: 'p',
        phase: 'Pending',
        initContainers: [{ name: 'migrate', waiting: { reason: 'CrashLoopBackOff' }, restarts: 4 }],
        containers: [{ name: 'app', waiting: { reason: 'PodInitializing' } }],
      });
      expect(podSummary(crashing)).toMatchObject({ status: 'Init:CrashLoopBackOff', restarts: 4 });
      const failed = pod({
        name: 'p',
        phase: 'Pending',
        initContainers: [{ name: 'migrate', terminated: { exitCode: 3 } }],
        containers: [{ name: 'app', waiting: { reason: 'PodInitializing' } }],
      });
      expect(podSummary(failed).status).toBe('Init:ExitCode:3');
    });
    it('a started sidecar (restartPolicy Always) counts toward READY and does not block', () => {
      const p = pod({
        name: 'p',
        initContainers: [
          { name: 'mesh', restartPolicy: 'Always', running: true, started: true, ready: true, restarts: 2 },
        ],
        containers: [{ name: 'app' }],
      });
      expect(podSummary(p)).toMatchObject({
        status: 'Running',
        readyContainers: 2,
        totalContainers: 2,
        restarts: 2,
      });
    });
  });
});

describe('containerStates and containerProblem', () => {
  it('lists init containers first with state, reason, exit code and last termination', () => {
    const p = pod({
      name: 'p',
      initContainers: [{ name: 'migrate', terminated: { reason: 'Completed', exitCode: 0 } }],
      containers: [
        {
          name: 'app',
          waiting: { reason: 'CrashLoopBackOff', message: 'back-off 5m0s' },
          restarts: 9,
          last: { reason: 'OOMKilled', exitCode: 137 },
        },
        { name: 'proxy' },
      ],
    });
    const states = containerStates(p);
    expect(states.map((s) => [s.name, s.type, s.state, s.reason])).toEqual([
      ['migrate', 'init', 'terminated', 'Completed'],
      ['app', 'app', 'waiting', 'CrashLoopBackOff'],
      ['proxy', 'app', 'running', undefined],
    ]);
    expect(states[1]!.lastTermination).toEqual({
      reason: 'OOMKilled',
      exitCode: 137,
      finishedAt: NOW - 5 * 60_000,
    });
    expect(states.map(containerProblem)).toEqual([
      undefined,
      'CrashLoopBackOff (last: OOMKilled, exit 137)',
      undefined,
    ]);
  });

  it('describes a failed termination with its exit code', () => {
    const [state] = containerStates(
      pod({ name: 'p', containers: [{ name: 'app', terminated: { reason: 'Error', exitCode: 1 } }] }),
    );
    expect(containerProblem(state!)).toBe('Error (exit 1)');
  });
});
