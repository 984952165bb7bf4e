/**
 * Image pulls by cause (agent/investigator/playbook/image-pull.ts): not found, refused credentials
 * (401/403), a pull secret that does not exist, one a revision removed — each named in `facts`, the
 * change that caused it rolled back, an unchanged template refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import { missingPullSecrets } from '../../../../agent/investigator/playbook/image-pull.ts';
import type { RevisionView } from '../../../../agent/investigator/evidence.ts';
import { event, healthy, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

const IMAGE = 'private.example.com/shop/billing:3.2.0';
const UNAUTHORIZED = `Failed to pull image "${IMAGE}": rpc error: code = Unknown desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": failed to authorize: failed to fetch oauth token: unexpected status from POST request to https://private.example.com/token: 401 Unauthorized`;
const FORBIDDEN = `Failed to pull image "${IMAGE}": rpc error: code = Unknown desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": unexpected status from HEAD request to https://private.example.com/v2/shop/billing/manifests/3.2.0: 403 Forbidden`;
const NOT_FOUND = `Failed to pull image "${IMAGE}": rpc error: code = NotFound desc = failed to pull and unpack image "${IMAGE}": failed to resolve reference "${IMAGE}": ${IMAGE}: not found`;
const imageChange: RevisionView['changes'][number] = {
  kind: 'image',
  container: 'app',
  key: 'image',
  from: 'registry.example.com/shop/billing:3.1.0',
  to: IMAGE,
  text: '',
};

/** A Deployment whose newest revision 2 (`minutes` ago, `changes`) cannot pull, with `messages` as events. */
function decideWith(messages: [reason: string, message: string][], minutes = 10, changes = [imageChange]) {
  const pulling = { state: 'waiting' as const, reason: 'ImagePullBackOff', ready: false };
  return decide({
    namespace: 'shop',
    now: NOW,
    suspect: suspect('app', {
      pods: [pod('app-2-a', 2, minutes, pulling)],
      events: sourced(
        messages.map(([reason, message]) => event('app-2-a', reason, message, minutes - 1)),
        'list_events',
      ),
      history: sourced(
        [rev(2, minutes, 0, { current: true, changes }), rev(1, 3 * 1440, 2, { health })],
        'get_rollout_history',
      ),
    }),
  });
}
const health = healthy;

describe('image pull class: by cause', () => {
  it('401 Unauthorized after a rollout that changed the image: rollback, naming the registry and the status', () => {
    const decision = decideWith([['Failed', UNAUTHORIZED]]);
    expect(decision).toMatchObject({ action: 'rollback', cause: 'image_pull' });
    expect(decision.remediation?.arguments.to_revision).toBe(1);
    expect(decision.facts).toMatchObject({
      failure: 'pull_unauthorized',
      image: IMAGE,
      registry: 'private.example.com',
      registry_status: 401,
      changed_field: 'image',
      changed_to: IMAGE,
    });
    expect(decision.diagnosis).toContain(
      `registry private.example.com refuses the pull of ${IMAGE} (401 Unauthorized): the Pods' image pull secrets do not grant access to it`,
    );
  });

  it('403 Forbidden counts as refused credentials too', () => {
    const decision = decideWith([['Failed', FORBIDDEN]]);
    expect(decision.facts).toMatchObject({ failure: 'pull_unauthorized', registry_status: 403 });
    expect(decision.diagnosis).toContain('(403 Forbidden)');
  });

  it('not found: names the image that does not exist', () => {
    const decision = decideWith([['Failed', NOT_FOUND]]);
    expect(decision.facts).toMatchObject({ failure: 'image_not_found', image: IMAGE });
    expect(decision.diagnosis).toContain(`image ${IMAGE} does not exist in the registry`);
  });

  it('a pull secret the Pods name but the namespace lacks: missing_pull_secret, by name', () => {
    const renamed: RevisionView['changes'][number] = {
      kind: 'pod_spec',
      key: 'imagePullSecrets',
      from: '[{"name":"regcred"}]',
      to: '[{"name":"ghcr-creds"}]',
      text: '',
    };
    const decision = decideWith(
      [
        [
          'FailedToRetrieveImagePullSecret',
          'Unable to retrieve some image pull secrets (ghcr-creds); attempting to pull the image may not succeed.',
        ],
        ['Failed', UNAUTHORIZED],
      ],
      10,
      [renamed],
    );
    expect(decision).toMatchObject({ action: 'rollback' });
    expect(decision.facts).toMatchObject({
      failure: 'missing_pull_secret',
      pull_secret: 'ghcr-creds',
      changed_field: 'imagePullSecrets',
    });
    expect(decision.diagnosis).toContain(
      'image pull secret ghcr-creds does not exist in namespace shop (FailedToRetrieveImagePullSecret), so the registry refuses the pull (unauthorized)',
    );
  });

  it('an unchanged template that cannot pull is refused (pull-unauthorized), saying to fix the credentials', () => {
    const decision = decideWith([['Failed', UNAUTHORIZED]], 3 * 1440 - 1, []);
    expect(decision).toMatchObject({ action: 'refused', refusal: 'pull-unauthorized' });
    expect(decision.facts).toMatchObject({ failure: 'pull_unauthorized', registry_status: 401 });
    expect(decision.explanation).toContain('image pull secret');
  });
});

describe('missingPullSecrets', () => {
  const PREFIX = 'Unable to retrieve some image pull secrets (';
  it('gives the names the kubelet lists, or undefined', () => {
    expect(missingPullSecrets(`${PREFIX}ghcr-creds, other); attempting to pull`)).toBe('ghcr-creds, other');
    expect(missingPullSecrets(`${PREFIX}ghcr-creds`)).toBeUndefined();
    expect(missingPullSecrets('Back-off pulling image')).toBeUndefined();
  });

  // The expression scanned to the end of the message from each prefix with no `)` after it:
  // quadratic, 128,000 characters took 0.33 s, so these 1.9 MB would take over a minute. Linear
  // now, it takes milliseconds; the generous timeout is for a loaded machine.
  it('reads a hostile event message of many prefixes and no ")"', { timeout: 120_000 }, () => {
    expect(missingPullSecrets(PREFIX.repeat(45_000))).toBeUndefined();
    expect(missingPullSecrets(`${PREFIX.repeat(45_000)})`)).toBe(PREFIX.repeat(44_999));
  });

  /** The expression it replaces (quadratic on many prefixes with no `)` after them). */
  const MISSING_SECRETS = /Unable to retrieve some image pull secrets \(([^)]*)\)/;
  const message = fc
    .array(
      fc.oneof(
        { arbitrary: fc.constantFrom(PREFIX, PREFIX.slice(0, -1), '(', ')', 'a', ', ', '\n'), weight: 4 },
        { arbitrary: fc.string({ maxLength: 2 }), weight: 1 },
      ),
      { maxLength: 12, size: 'max' },
    )
    .map((parts) => parts.join(''));
  it('gives what the expression gave, for any message', () => {
    fc.assert(
      fc.property(message, (value) => {
        expect(missingPullSecrets(value)).toBe(MISSING_SECRETS.exec(value)?.[1]);
      }),
      { numRuns: 10_000 },
    );
  });
});
