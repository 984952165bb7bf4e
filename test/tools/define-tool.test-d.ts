import { expectTypeOf, test } from 'vitest';
import { z } from 'zod';
import { defineTool, toolInput } from '../../tools/index.ts';
import type { Risk } from '../../tools/index.ts';

test('risk is required and has no default', () => {
  // @ts-expect-error — a tool without `risk` does not compile.
  defineTool({
    name: 'no_risk',
    title: 'No risk',
    description: 'Missing risk',
    input: toolInput({}),
    handler: async () => ({ text: '' }),
  });
  expectTypeOf<Parameters<typeof defineTool>[0]['risk']>().toEqualTypeOf<Risk>();
});

test('only strict object schemas compile', () => {
  defineTool({
    name: 'loose_input',
    title: 'Loose',
    description: 'Loose schema',
    risk: 'read',
    // @ts-expect-error — z.object() strips unknown keys; only toolInput() is accepted.
    input: z.object({ a: z.string() }),
    handler: async () => ({ text: '' }),
  });
});

test('an unknown risk does not compile', () => {
  defineTool({
    name: 'bad_risk',
    title: 'Bad',
    description: 'Bad risk',
    // @ts-expect-error — risk is a closed union.
    risk: 'dangerous',
    input: toolInput({}),
    handler: async () => ({ text: '' }),
  });
});
