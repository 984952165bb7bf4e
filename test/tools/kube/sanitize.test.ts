/**
 * The Kubernetes layer's boundary (tools/kube/sanitize.ts): which strings keep newlines, keys and
 * values alike, copies that remember what was sent, and every reader result and API error message
 * sanitized once the client returns it.
 */
import { describe, expect, it } from 'vitest';
import { sanitizeFromCluster, sanitizedCopy, unsanitized } from '../../../tools/kube/index.ts';
import { deployment } from '../../helpers/fixtures.ts';
import { caughtSentinelError, mockApi, statusBody, useMockedCluster } from '../../helpers/kube.ts';
import { CLEAR_PAYLOAD, IMAGE_PAYLOAD, IMAGE_VISIBLE, expectClean } from '../../helpers/escapes.ts';

const kube = useMockedCluster();

describe('sanitizeFromCluster', () => {
  it('escapes every string and key; message, note, env value and annotation values keep \\n and \\t', () => {
    const object = sanitizeFromCluster({
      metadata: {
        name: 'web\nApproved: yes',
        labels: { [`app${CLEAR_PAYLOAD}`]: 'web\u202e' },
        annotations: { 'kubernetes.io/change-cause': 'line 1\nline 2\u001b[8m' },
      },
      spec: {
        containers: [{ image: IMAGE_PAYLOAD, env: [{ name: 'A', value: 'x\ny\tz\u0007' }], args: ['a\nb'] }],
      },
      status: {
        conditions: [{ message: 'first\nsecond\r\n', reason: 'Bad\tReason' }],
        startedAt: new Date(0),
      },
      note: 'n\n',
    });
    expect(object).toEqual({
      metadata: {
        name: 'web\\x0aApproved: yes',
        labels: { 'app\\x1b[2J': 'web\\u202e' },
        annotations: { 'kubernetes.io/change-cause': 'line 1\nline 2\\x1b[8m' },
      },
      spec: {
        containers: [
          { image: IMAGE_VISIBLE, env: [{ name: 'A', value: 'x\ny\tz\\x07' }], args: ['a\\x0ab'] },
        ],
      },
      status: {
        conditions: [{ message: 'first\nsecond\n', reason: 'Bad\\x09Reason' }],
        startedAt: new Date(0),
      },
      note: 'n\n',
    });
    expect(sanitizeFromCluster(`log\n${CLEAR_PAYLOAD}\n`, true)).toBe('log\n\\x1b[2J\n');
  });

  it('sanitizedCopy leaves what was sent untouched and unsanitized returns it', () => {
    const sent = { spec: { image: IMAGE_PAYLOAD } };
    const copy = sanitizedCopy(sent);
    expect(copy.spec.image).toBe(IMAGE_VISIBLE);
    expect(sent.spec.image).toBe(IMAGE_PAYLOAD);
    expect(unsanitized(copy)).toBe(sent);
    const other = { a: 1 };
    expect(unsanitized(other)).toBe(other);
  });

  it('sanitizedCopy copies JSON the way structuredClone does: deep, own __proto__ keys kept, Dates copied', () => {
    const sent = JSON.parse(
      '{"metadata":{"name":"web","labels":{"app":"web"},"__proto__":{"polluted":true}},"spec":{"replicas":3,"paused":false,"selector":null,"containers":[{"name":"web","args":["-v",2]}]}}',
    ) as Record<string, unknown>;
    const copy = sanitizedCopy(sent);
    expect(copy).toEqual(structuredClone(sent));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(sent));
    const metadata = copy.metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.keys(metadata)).toEqual(['name', 'labels', '__proto__']);
    expect(copy.metadata).not.toBe(sent.metadata);
    expect((copy.spec as { containers: unknown[] }).containers[0]).not.toBe(
      (sent.spec as { containers: unknown[] }).containers[0],
    );
    const at = new Date('2026-12-01T00:00:00Z');
    const dated = sanitizedCopy({ at, set: new Map([['a', 1]]) });
    expect(dated.at).toEqual(at);
    expect(dated.at).not.toBe(at);
    expect(dated.set).toEqual(new Map([['a', 1]]));
  });
});

describe('the reader returned by connectKube', () => {
  const path = '/apis/apps/v1/namespaces/shop/deployments/web';
  const poisoned = () =>
    deployment({ name: 'web', image: IMAGE_PAYLOAD, env: [{ name: 'A', value: CLEAR_PAYLOAD }] });

  it('sanitizes typed reads and reads as sent; the as-sent original stays exact', async () => {
    mockApi().get(path).reply(200, poisoned()).get(path).reply(200, poisoned());
    const typed = await kube.reader.getDeployment('shop', 'web');
    expect(typed.spec?.template.spec?.containers[0]?.image).toBe(IMAGE_VISIBLE);
    expectClean(JSON.stringify(typed), 'getDeployment');
    const asSent = await kube.reader.getDeploymentAsSent('shop', 'web');
    expectClean(JSON.stringify(asSent), 'getDeploymentAsSent');
    expect(unsanitized(asSent).spec?.template.spec?.containers[0]?.image).toBe(IMAGE_PAYLOAD);
  });

  it('sanitizes logs (keeping newlines) and the API server Status message of an error', async () => {
    mockApi()
      .get('/api/v1/namespaces/shop/pods/web-1/log')
      .reply(200, `a\n${CLEAR_PAYLOAD}b\n`, { 'content-type': 'text/plain' })
      .get(path)
      .reply(422, statusBody(422, 'Invalid', `spec.image ${IMAGE_PAYLOAD}: invalid`));
    expect(await kube.reader.readPodLog('shop', 'web-1')).toBe('a\n\\x1b[2Jb\n');
    const error = await caughtSentinelError(kube.reader.getDeployment('shop', 'web'));
    expectClean(error.message, 'error message');
    expect(error.message).toContain(IMAGE_VISIBLE);
  });
});
