import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fromZod, SentinelError, zodIssueLines } from '../../core/index.ts';

const Schema = z.strictObject({
  replicas: z.number().int(),
  containers: z.array(z.strictObject({ image: z.string().min(1) })),
});

function errorOf(value: unknown): z.ZodError {
  const parsed = Schema.safeParse(value);
  if (parsed.success) throw new Error('expected a failure');
  return parsed.error;
}

describe('fromZod', () => {
  it('names the first field and its rule, with a path prefix, as invalid_input', () => {
    const error = fromZod(errorOf({ replicas: 'x', containers: [] }), ['arguments']);
    expect(error).toBeInstanceOf(SentinelError);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toBe('arguments.replicas: Invalid input: expected number, received string.');
    expect(error.field).toBe('arguments.replicas');
  });

  it('lists every issue with brackets for indexes and reworded rules; a missing field says required', () => {
    const error = fromZod(errorOf({ containers: [{ image: '' }] }), ['arguments'], {
      all: true,
      brackets: true,
      reword: true,
      input: { containers: [{ image: '' }] },
      field: (first) => first.local,
    });
    expect(error.message).toBe(
      'arguments.replicas: required; must be a number; arguments.containers[0].image: must be at least 1 character long.',
    );
    expect(error.field).toBe('replicas');
  });

  it('renders unknown keys as zod says, as fields, or with the caller’s rule, and can put them first', () => {
    const bad = errorOf({ replicas: 'x', containers: [], replica: 1 });
    expect(
      zodIssueLines(bad, [], { all: true, root: '(body)' }).map((line) => `${line.field}: ${line.rule}`),
    ).toEqual([
      'replicas: Invalid input: expected number, received string',
      '(body): Unrecognized key: "replica"',
    ]);
    const [first] = zodIssueLines(bad, [], { unknownFirst: true, unknownKeys: 'field' });
    expect(`${first?.field}: ${first?.rule}`).toBe('replica: unknown field');
    const [listed] = zodIssueLines(bad, [], { unknownFirst: true, unknownKeys: 'keys' });
    expect(`${listed?.field}: ${listed?.rule}`).toBe('(root): unknown key(s) replica');
    const accepted = fromZod(bad, ['arguments'], {
      unknownFirst: true,
      unknownKeys: () => 'unknown argument',
    });
    expect(accepted.message).toBe('arguments.replica: unknown argument.');
  });

  it('wraps the lines in the caller’s sentence and keeps a given field and details', () => {
    const error = fromZod(errorOf({ replicas: 1.5, containers: [] }), [], {
      message: (lines) => `Invalid request: ${lines}.`,
      field: '--replicas',
      details: { source: 'test' },
    });
    expect(error.message).toBe('Invalid request: replicas: Invalid input: expected int, received number.');
    expect(error.field).toBe('--replicas');
    expect(error.details).toEqual({ source: 'test' });
  });
});
