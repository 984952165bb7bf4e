/**
 * Config errors (agent/investigator/playbook/config-key.ts): a container the kubelet cannot create
 * because a ConfigMap/Secret or a key in it is missing — rolled back when the newest revision
 * introduced the reference, refused with the fix otherwise; the diagnosis names key and object.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import type { RevisionView } from '../../../../agent/investigator/evidence.ts';
import { event, healthy, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

const configError = { state: 'waiting', reason: 'CreateContainerConfigError', ready: false };
const failed = (podName: string, message: string) =>
  event(podName, 'Failed', `Error: ${message}`, 8, { count: 40 });
const MISSING_KEY = "couldn't find key fraud.api.url in ConfigMap shop/payments-config";
const introduced: RevisionView['changes'] = [
  {
    kind: 'env',
    container: 'app',
    key: 'FRAUD_API_URL',
    from: null,
    to: 'from ConfigMap payments-config key fraud.api.url',
    text: 'container app: env FRAUD_API_URL (none) → from ConfigMap payments-config key fraud.api.url',
  },
];

function decideWith(changes: RevisionView['changes'], message = MISSING_KEY, revisionAge = 9) {
  return decide({
    namespace: 'shop',
    now: NOW,
    suspect: suspect('app', {
      pods: [pod('app-2-a', 2, revisionAge - 1, configError), pod('app-1-a', 1, 3 * 1440)],
      events: sourced([failed('app-2-a', message)], 'list_events'),
      history: sourced(
        [rev(2, revisionAge, 0, { current: true, changes }), rev(1, 3 * 1440, 1, { health: healthy })],
        'get_rollout_history',
      ),
    }),
  });
}

describe('config key class', () => {
  it('rolls back the recent revision that introduced the reference, naming key and ConfigMap', () => {
    const decision = decideWith(introduced);
    expect(decision).toMatchObject({ action: 'rollback', cause: 'config_error' });
    expect(decision.remediation?.arguments.to_revision).toBe(1);
    expect(decision.facts).toMatchObject({
      failure: 'missing_config_key',
      config_key: 'fraud.api.url',
      config_object: 'ConfigMap shop/payments-config',
      changed_field: 'FRAUD_API_URL',
    });
    expect(decision.diagnosis).toContain(
      'reference key fraud.api.url of ConfigMap shop/payments-config, which has no such key',
    );
  });

  it('refuses with the fix when no revision introduced the reference (the key was removed)', () => {
    const decision = decideWith([
      { kind: 'image', container: 'app', from: 'app:1', to: 'app:2', text: 'image app:1 → app:2' },
    ]);
    expect(decision).toMatchObject({ action: 'refused', refusal: 'missing-config-key' });
    expect(decision.explanation).toContain(
      'add key fraud.api.url in ConfigMap shop/payments-config (`kubectl edit configmap payments-config -n shop`)',
    );
  });

  it('refuses when the reference is old, even right after a rollout of another change', () => {
    expect(decideWith([], MISSING_KEY, 9 * 60).refusal).toBe('missing-config-key');
  });

  it("names a missing Secret (the object itself) from the kubelet's NotFound", () => {
    const decision = decideWith(
      [
        {
          kind: 'env',
          container: 'app',
          key: 'DB_PASSWORD',
          from: null,
          to: 'from Secret db-credentials key password',
          text: '',
        },
      ],
      'secret "db-credentials" not found',
    );
    expect(decision.action).toBe('rollback');
    expect(decision.facts).toMatchObject({
      failure: 'missing_config_object',
      config_object: 'Secret shop/db-credentials',
    });
    expect(decision.facts.config_key).toBeUndefined();
  });
});
