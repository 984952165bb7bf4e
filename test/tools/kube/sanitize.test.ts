/**
 * The Kubernetes layer's boundary (tools/kube/sanitize.ts): which strings keep newlines, keys and
 * values alike, copies that remember what was sent, and every reader result and API error message
 * sanitized once the client returns it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeFromCluster, sanitizedCopy, unsanitized } from '../../../tools/kube/index.ts';
import { isAlreadySafe, parseFromCluster } from '../../../tools/kube/sanitize.ts';
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

describe('parseFromCluster: answers whose text shows nothing to sanitize', () => {
  // Characters on both sides of the line: escapes JSON.stringify writes (\n, \u001b, \u202e) and
  // raw non-ASCII, against the printable ASCII ones (", \, /) whose escapes need no sanitizing.
  const char = fc.constantFrom(
    'a',
    'Z',
    '0',
    ' ',
    ':',
    '"',
    '\\',
    '/',
    '\n',
    '\t',
    '\r\n',
    '\u001b',
    '\u007f',
    '\u009b',
    '\u202e',
    '\u200b',
    'é',
    '\u{1f600}',
    '\ud800',
  );
  const text = fc.array(char, { maxLength: 6 }).map((chars) => chars.join(''));
  const value = fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      text,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('node'), { maxLength: 4 }),
      fc.dictionary(text, tie('node'), { maxKeys: 4 }),
    ),
  })).node;

  it('gives what sanitizing the parsed value gives, for any JSON', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (v, pretty) => {
        const json = JSON.stringify({ items: [v], v }, null, pretty ? 2 : undefined);
        const fast = sanitizeFromCluster(parseFromCluster(json));
        expect(fast).toEqual(sanitizeFromCluster(JSON.parse(json)));
        expect(sanitizedCopy(parseFromCluster(json) as object)).toEqual(
          sanitizeFromCluster(JSON.parse(json)),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('skips only text of printable ASCII whose escapes are \\", \\\\ or \\/', () => {
    expect(
      isAlreadySafe(parseFromCluster('{"message":"ReplicaSet \\"web\\" progressed","path":"a\\/b\\\\"}')),
    ).toBe(true);
    expect(isAlreadySafe(parseFromCluster('{"a":"line\\nbreak"}'))).toBe(false);
    expect(isAlreadySafe(parseFromCluster('{"a":"\\u001b[2J"}'))).toBe(false);
    expect(isAlreadySafe(parseFromCluster('{"a":"caf\u00e9"}'))).toBe(false);
    // Raw in a JSON string, yet not printable: DEL, a C1 control, an astral and a lone surrogate.
    for (const raw of ['\u007f', '\u0085', '\u{1f600}', '\ud800'])
      expect(isAlreadySafe(parseFromCluster(JSON.stringify({ a: `x${raw}y` })))).toBe(false);
    expect(isAlreadySafe(parseFromCluster('[{"a":"\\u0041"}]'))).toBe(false);
    expect(isAlreadySafe(parseFromCluster('{"items":[{"a":"b"}],\n "c":\t[1, 2.5e3, null, true]}'))).toBe(
      true,
    );
    expect(sanitizeFromCluster(parseFromCluster('{"a":"\\u001b[2J"}'))).toEqual({ a: '\\x1b[2J' });
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
