import { describe, expect, it } from 'vitest';
import {
  containerImages,
  diffPodTemplates,
  diffStringMap,
  imageList,
} from '../../../tools/remediate/changes.ts';
import type { PodTemplateSpec } from '../../../tools/kube/types.ts';

const template = (spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): PodTemplateSpec =>
  ({ metadata: { labels: { app: 'web' }, ...metadata }, spec }) as unknown as PodTemplateSpec;

describe('diffPodTemplates', () => {
  it('finds nothing between equal templates, whatever the hash label and empty fields', () => {
    const a = template({ containers: [{ name: 'app', image: 'web:1', env: [] }], volumes: [] });
    const b = template(
      { containers: [{ name: 'app', image: 'web:1' }] },
      { labels: { app: 'web', 'pod-template-hash': 'abc' }, annotations: {} },
    );
    expect(diffPodTemplates(a, b)).toEqual([]);
  });

  it('lists containers added and removed, init containers, other fields, labels and annotations', () => {
    const a = template(
      {
        initContainers: [{ name: 'migrate', image: 'web-migrate:1' }],
        containers: [
          { name: 'app', image: 'web:1', ports: [{ containerPort: 8080 }] },
          { name: 'old-sidecar', image: 'log:1' },
        ],
        serviceAccountName: 'web',
      },
      { annotations: { 'kubectl.kubernetes.io/restartedAt': '2024-05-01T00:00:00Z' } },
    );
    const b = template(
      {
        initContainers: [{ name: 'migrate', image: 'web-migrate:2' }],
        containers: [
          { name: 'app', image: 'web:1', ports: [{ containerPort: 9090 }] },
          { name: 'envoy', image: 'envoy:1.29' },
        ],
        serviceAccountName: 'web-v2',
      },
      { labels: { app: 'web', track: 'canary' } },
    );
    expect(diffPodTemplates(a, b).map((c) => [c.kind, c.text])).toEqual([
      ['container', 'container app: ports [{"containerPort":8080}] → [{"containerPort":9090}]'],
      ['container', 'container envoy added (image envoy:1.29)'],
      ['container', 'container old-sidecar removed (was image log:1)'],
      ['image', 'init container migrate: image web-migrate:1 → web-migrate:2'],
      ['pod_spec', 'pod spec: serviceAccountName web → web-v2'],
      ['template_label', 'pod template label track: (none) → canary'],
      [
        'template_annotation',
        'pod template annotation kubectl.kubernetes.io/restartedAt: 2024-05-01T00:00:00Z → (none)',
      ],
    ]);
  });

  it('describes env from Secrets and ConfigMaps without values, and reports a reordering', () => {
    const a = template({
      containers: [
        {
          name: 'app',
          image: 'web:1',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '$(A)-x' },
            { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
          ],
        },
      ],
    });
    const b = template({
      containers: [
        {
          name: 'app',
          image: 'web:1',
          env: [
            { name: 'B', value: '$(A)-x' },
            { name: 'A', value: '1' },
            { name: 'DB_PASSWORD', valueFrom: { configMapKeyRef: { name: 'db-cfg', key: 'pw' } } },
          ],
        },
      ],
    });
    expect(diffPodTemplates(a, b).map((c) => c.text)).toEqual([
      'container app: env DB_PASSWORD from Secret db key password → from ConfigMap db-cfg key pw',
    ]);
    const reordered = diffPodTemplates(a, {
      ...b,
      spec: {
        containers: [
          {
            ...b.spec!.containers[0]!,
            env: [
              b.spec!.containers[0]!.env![0]!,
              b.spec!.containers[0]!.env![1]!,
              a.spec!.containers[0]!.env![2]!,
            ],
          },
        ],
      },
    });
    expect(reordered).toEqual([
      expect.objectContaining({
        kind: 'env',
        key: '(order)',
        from: 'A,B,DB_PASSWORD',
        to: 'B,A,DB_PASSWORD',
      }),
    ]);
  });

  it('redacts secrets inside structured values', () => {
    const a = template({ containers: [{ name: 'app', image: 'web:1', args: ['--token=abcdef123456'] }] });
    const b = template({ containers: [{ name: 'app', image: 'web:1' }] });
    const [change] = diffPodTemplates(a, b);
    expect(change!.from).toBe('["--token=[REDACTED]"]');
  });
});

describe('diffStringMap', () => {
  it('redacts values of secret-looking keys', () => {
    expect(diffStringMap('annotation', 'Deployment annotation', { 'api-token': 'x1' }, {})).toEqual([
      {
        kind: 'annotation',
        key: 'api-token',
        from: '[REDACTED]',
        to: null,
        text: 'Deployment annotation api-token: [REDACTED] → (none)',
      },
    ]);
  });
});

describe('images', () => {
  it('names images per container for effects, and lists them for summaries', () => {
    const t = template({
      initContainers: [{ name: 'migrate', image: 'm:1' }],
      containers: [
        { name: 'app', image: 'web:1' },
        { name: 'envoy', image: 'envoy:1.29' },
      ],
    });
    expect(containerImages(t)).toEqual(['init:migrate=m:1', 'app=web:1', 'envoy=envoy:1.29']);
    expect(imageList(t)).toBe('web:1, envoy:1.29');
    expect(imageList(undefined)).toBe('(no containers)');
  });
});
