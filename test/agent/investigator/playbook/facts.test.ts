/**
 * Exact diagnosis facts (agent/investigator/playbook/facts.ts): an app exit names the container, its
 * exit code and the crashed instance's last telling log line, as structured facts.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import { crashing, healthy, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

describe('app exit facts', () => {
  it('names the container, the exit code and the last telling log line of the crashed instance', () => {
    const fatal = '{"level":"fatal","msg":"invalid configuration: payments.key is required"}';
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-2-a', 2, 12, crashing(3))],
        history: sourced(
          [rev(2, 12, 0, { current: true }), rev(1, 2 * 1440, 2, { health: healthy })],
          'get_rollout_history',
        ),
        logs: [
          sourced(
            {
              pod: 'app-2-a',
              container: 'app',
              previous: true,
              log: `{"level":"info","msg":"starting"}\n${fatal}\n`,
            },
            'get_pod_logs pod=app-2-a container=app previous=true',
          ),
        ],
      }),
    });
    expect(decision.action).toBe('rollback');
    expect(decision.facts).toMatchObject({
      failure: 'app_exit',
      container: 'app',
      exit_code: 3,
      last_log_line: fatal,
    });
    expect(decision.diagnosis).toContain(`container app exits with code 3, its last log line: ${fatal}`);
  });
});
