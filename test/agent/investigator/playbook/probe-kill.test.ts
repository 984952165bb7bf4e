/**
 * Probe kills (agent/investigator/playbook/probe-kill.ts): a crash loop the kubelet causes because a
 * liveness probe fails, or a startup probe never passes, is its own class — named with the probe and
 * its failures — rolled back when a recent revision brought it, refused with the fix otherwise.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import { crashing, event, healthy, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

const LIVENESS = 'liveness: http GET :8080/healthz delay=0s period=5s timeout=1s failure=3';
const STARTUP = 'startup: http GET :8080/started delay=0s period=2s timeout=1s failure=4';
const containers = [{ name: 'app', image: 'app:2', limits: {}, probes: [LIVENESS, STARTUP] }];
const livenessFailed = (podName: string, minutes: number) =>
  event(podName, 'Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 500', minutes, {
    count: 9,
  });
const startupFailed = (podName: string, minutes: number) =>
  event(podName, 'Unhealthy', 'Startup probe failed: HTTP probe failed with statuscode: 503', minutes, {
    count: 12,
  });

describe('liveness kill class', () => {
  it('with no recent change: refused (liveness-no-recent-change), naming the probe and its failures', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect(
        'app',
        {
          pods: [pod('app-1-a', 1, 3 * 1440, crashing(137)), pod('app-1-b', 1, 3 * 1440, crashing(137))],
          events: sourced([livenessFailed('app-1-a', 30), livenessFailed('app-1-b', 28)], 'list_events'),
          history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
        },
        containers,
      ),
    });
    expect(decision).toMatchObject({
      action: 'refused',
      refusal: 'liveness-no-recent-change',
      cause: 'liveness_kill',
    });
    expect(decision.facts).toMatchObject({
      failure: 'liveness_probe',
      container: 'app',
      exit_code: 137,
      probe: 'http GET :8080/healthz delay=0s period=5s timeout=1s failure=3',
      probe_failures: 18,
    });
    expect(decision.diagnosis).toContain(
      'the kubelet kills container app because its liveness probe (http GET :8080/healthz delay=0s period=5s timeout=1s failure=3) fails (Liveness probe failed: HTTP probe failed with statuscode: 500 ×18) and restarts it, exit 137',
    );
    expect(decision.explanation).toContain('relax it');
  });

  it('brought by a recent revision that changed the probe: rolled back, naming the change', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect(
        'app',
        {
          pods: [pod('app-2-a', 2, 12, crashing(137, 'Error', 3))],
          events: sourced([livenessFailed('app-2-a', 11)], 'list_events'),
          history: sourced(
            [
              rev(2, 12, 0, {
                current: true,
                changes: [
                  {
                    kind: 'container',
                    container: 'app',
                    key: 'livenessProbe',
                    from: '{"httpGet":{"path":"/healthz"},"timeoutSeconds":5}',
                    to: '{"httpGet":{"path":"/healthz"},"timeoutSeconds":1}',
                    text: '',
                  },
                ],
              }),
              rev(1, 3 * 1440, 2, { health: healthy }),
            ],
            'get_rollout_history',
          ),
        },
        containers,
      ),
    });
    expect(decision.action).toBe('rollback');
    expect(decision.remediation?.arguments.to_revision).toBe(1);
    expect(decision.cause).toBe('liveness_kill');
    expect(decision.facts).toMatchObject({ failure: 'liveness_probe', changed_field: 'livenessProbe' });
    expect(decision.diagnosis).toContain('revision 2 changed livenessProbe');
  });

  it('a crash loop without failing liveness probes stays a crash loop', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-1-a', 1, 3 * 1440, crashing(1))],
        history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
      }),
    });
    expect(decision).toMatchObject({ cause: 'crash_loop', refusal: 'crash-no-recent-change' });
  });
});

describe('startup probe class', () => {
  it('a container killed before its startup probe passes is a startup kill, not a readiness problem', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect(
        'app',
        {
          pods: [
            pod('app-1-a', 1, 3 * 1440, crashing(137, 'Error', 4)),
            // Between kills: running, not started, not ready.
            pod('app-1-b', 1, 3 * 1440, {
              ready: false,
              restarts: 4,
              last_termination: { reason: 'Error', exit_code: 137, finished_at: null },
            }),
          ],
          events: sourced([startupFailed('app-1-a', 20), startupFailed('app-1-b', 20)], 'list_events'),
          history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
        },
        containers,
      ),
    });
    expect(decision).toMatchObject({
      action: 'refused',
      refusal: 'startup-no-recent-change',
      cause: 'startup_kill',
    });
    expect(decision.facts).toMatchObject({
      failure: 'startup_probe',
      probe: 'http GET :8080/started delay=0s period=2s timeout=1s failure=4',
      probe_failures: 24,
      startup_budget_seconds: 8,
    });
    expect(decision.diagnosis).toContain('container app never passes its startup probe');
  });

  it('a first instance still in its startup window (no restart yet) is a startup kill too, never restarted', () => {
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect(
        'app',
        {
          pods: [pod('app-1-a', 1, 3 * 1440, { ready: false })],
          events: sourced([startupFailed('app-1-a', 1)], 'list_events'),
          history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
        },
        containers,
      ),
    });
    expect(decision.cause).toBe('startup_kill');
    expect(decision.action).not.toBe('restart');
  });
});
