import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { scaleDeployment } from './fixtures/tools.ts';
import { effectChanges, effectDifference, resolutionFromDryRun } from '../../../server/gate/preview.ts';

const target = {
  kind: 'Deployment',
  namespace: 'shop',
  name: 'checkout',
  uid: 'uid-checkout-0123456789abcdef',
};
const images = (tag: string) =>
  ['app', 'sidecar', 'proxy'].map((c) => `${c}=registry.example.com/shop/${c}-with-a-long-name:${tag}`);

describe('effectDifference (the stale refusal names what changed)', () => {
  it('names each changed field, nested ones dotted, with both values whole', () => {
    const before = { target, to_template: '3f2a0c1d9b8e7f60', from_images: images('2.4.1') };
    const after = { target, to_template: '9b1c2d3e4f506172', from_images: images('2.4.2') };
    const difference = effectDifference(before, after)!;
    expect(difference).toContain('to_template: "3f2a0c1d9b8e7f60" → "9b1c2d3e4f506172"');
    expect(difference).toContain(
      `from_images: ${JSON.stringify(images('2.4.1'))} → ${JSON.stringify(images('2.4.2'))}`,
    );
    expect(difference).not.toContain('...');
    expect(difference).not.toContain('target');
  });

  it('names the generation an effect recorded before effects stopped binding it', () => {
    const old = { target: { ...target, generation: 3 }, replicas_from: 3 };
    const now = { target, replicas_from: 3 };
    expect(effectDifference(old, now)).toBe('target.generation: 3 → absent');
  });

  it('is undefined for equal effects whatever the key order', () => {
    expect(effectDifference({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBeUndefined();
    expect(effectDifference(null, { a: 1 })).toBe('null → {"a":1}');
  });
});

describe('effectChanges (what an approver is warned about)', () => {
  it('never cuts a value mid-way', () => {
    const lines = effectChanges({ from_images: images('1') }, { from_images: images('2') });
    expect(lines).toEqual([
      `from_images now ${JSON.stringify(images('2'))}, the preview said ${JSON.stringify(images('1'))}`,
    ]);
  });
});

describe('resolutionFromDryRun', () => {
  const tool = scaleDeployment;
  const result = (structured: Record<string, unknown>): CallToolResult => ({
    content: [{ type: 'text', text: 'Dry run' }],
    structuredContent: {
      resolved_arguments: { namespace: 'shop', name: 'checkout', replicas: 5 },
      ...structured,
    },
  });

  it('keeps the generation the dry run read (its `target.generation`) outside the effect', () => {
    const resolution = resolutionFromDryRun(
      tool,
      {},
      result({ target: { ...target, generation: 7 }, effect: { target } }),
    );
    expect(resolution.generation).toBe(7);
    expect(resolution.preview?.effect).toEqual({ target });
  });

  it('has no generation when the tool reports none or not a whole number', () => {
    expect(resolutionFromDryRun(tool, {}, result({ effect: {} })).generation).toBeUndefined();
    expect(
      resolutionFromDryRun(tool, {}, result({ target: { generation: '7' } })).generation,
    ).toBeUndefined();
    expect(resolutionFromDryRun(tool, {}, result({ target: 'shop/checkout' })).generation).toBeUndefined();
  });
});
