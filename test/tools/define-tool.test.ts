import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, toolInput, annotationsFor, createRegistry, SentinelError } from '../../tools/index.ts';
import type { Risk } from '../../tools/index.ts';

const noop = async () => ({ text: 'ok' });

function tool(name: string, risk: Risk, extra: Partial<Parameters<typeof defineTool>[0]> = {}) {
  return defineTool({
    name,
    title: `Title of ${name}`,
    description: `Description of ${name}`,
    risk,
    input: toolInput({ namespace: z.string() }),
    handler: noop,
    ...extra,
  });
}

describe('defineTool', () => {
  it.each<[Risk, boolean, boolean]>([
    ['read', true, false],
    ['write', false, false],
    ['destructive', false, true],
  ])('derives annotations from risk %s', (risk, readOnlyHint, destructiveHint) => {
    const t = tool('some_tool', risk);
    expect(t.annotations).toEqual({
      title: 'Title of some_tool',
      readOnlyHint,
      destructiveHint,
      idempotentHint: risk === 'read',
      openWorldHint: true,
    });
    expect(t.annotations).toEqual(annotationsFor(risk, t.title, risk === 'read'));
  });

  it('takes idempotentHint from the tool', () => {
    expect(tool('scale_it', 'destructive', { idempotent: true }).annotations.idempotentHint).toBe(true);
    expect(tool('read_it', 'read', { idempotent: false }).annotations.idempotentHint).toBe(false);
  });

  it('returns a frozen tool whose annotations cannot be rewritten', () => {
    const t = tool('frozen_tool', 'destructive');
    expect(Object.isFrozen(t)).toBe(true);
    expect(() => {
      (t.annotations as { destructiveHint: boolean }).destructiveHint = false;
    }).toThrow(TypeError);
  });

  it.each(['RollBack', 'roll-back', '1tool', 'a__b', 'trailing_', '', 'x'.repeat(65)])(
    'rejects bad name %j',
    (name) => {
      expect(() => tool(name, 'read')).toThrow(/name must be snake_case/);
    },
  );

  it('rejects an empty description and an empty title', () => {
    expect(() => tool('t_one', 'read', { description: '  ' })).toThrow(
      /description must be a non-empty string/,
    );
    expect(() => tool('t_two', 'read', { title: '' })).toThrow(/title must be a non-empty string/);
  });

  it('rejects a risk outside read|write|destructive at run time too', () => {
    expect(() => tool('t_three', 'dangerous' as Risk)).toThrow(/risk must be one of/);
  });

  it('rejects non-strict input schemas', () => {
    for (const input of [z.object({ a: z.string() }), z.looseObject({ a: z.string() }), z.string()]) {
      expect(() => tool('t_four', 'read', { input: input as never })).toThrow(
        /input must be a strict zod object/,
      );
    }
  });

  it('requires a dry_run field when the tool says it supports dry runs', () => {
    expect(() => tool('t_five', 'write', { supportsDryRun: true })).toThrow(/dry_run/);
  });

  it('strict input names a misspelled argument instead of dropping it', () => {
    const input = toolInput({ dry_run: z.boolean().optional(), to_revision: z.number().optional() });
    const t = tool('t_six', 'destructive', { input, supportsDryRun: true });
    const parsed = t.input.safeParse({ dryrun: true, to_revison: 3 });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/dryrun/);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/to_revison/);
  });
});

describe('createRegistry', () => {
  it('rejects duplicate names', () => {
    expect(() => createRegistry([tool('dup_tool', 'read'), tool('dup_tool', 'write')])).toThrow(
      /'dup_tool' is registered twice/,
    );
  });

  it('rejects objects that did not come from defineTool', () => {
    const fake = { name: 'fake_tool', risk: 'read', annotations: { readOnlyHint: true } };
    expect(() => createRegistry([fake as never])).toThrow(SentinelError);
  });

  it('indexes tools by name and risk', () => {
    const registry = createRegistry([
      tool('a_read', 'read'),
      tool('b_write', 'write'),
      tool('c_destroy', 'destructive'),
    ]);
    expect(registry.get('b_write')?.risk).toBe('write');
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.namesWithRisk('write', 'destructive')).toEqual(['b_write', 'c_destroy']);
  });
});
