/**
 * The text a model reads when its tool arguments are wrong: every line `arguments.<field>: <rule>`,
 * "required" for a missing field, no zod boilerplate, no line twice.
 */
import { describe, expect, it } from 'vitest';
import { parseToolArguments } from '../../server/arguments.ts';
import { scaleDeployment } from '../../tools/remediate/scale-deployment.ts';
import { listPods } from '../../tools/investigate/list-pods.ts';
import type { Tool } from '../../tools/define-tool.ts';
import { SentinelError } from '../../tools/errors.ts';
import { fixtureTools } from '../helpers/fixture-tools.ts';

/** The message and field of the error `parseToolArguments` throws for `raw`. */
function rejection(tool: Tool, raw: unknown): { message: string; field: string | undefined } {
  try {
    parseToolArguments(tool, raw);
  } catch (error) {
    expect(error).toBeInstanceOf(SentinelError);
    const { message, field } = error as SentinelError;
    const rules = message.replace(/^Invalid arguments for \w+: /, '').replace(/\. Nothing was run.*$/, '');
    return { message: rules, field };
  }
  throw new Error('expected the arguments to be rejected');
}

const scaleThing = fixtureTools().registry.get('scale_thing')!;

describe('parseToolArguments', () => {
  it('says "required" for a missing field, with the rule and without what was "got"', () => {
    expect(rejection(scaleDeployment, { namespace: 'shop', name: 'web' })).toEqual({
      message: 'arguments.replicas: required; must be a whole number of replicas from 0 to 50',
      field: 'replicas',
    });
    const { message } = rejection(listPods, {});
    expect(message).toMatch(/^arguments\.namespace: required; must be a DNS-1123 label: [^(]*$/);
    expect(message).not.toContain('non-string');
  });

  it('keeps the tool’s own note on a wrong type that is present', () => {
    expect(rejection(listPods, { namespace: 3 }).message).toMatch(
      /^arguments\.namespace: must be a DNS-1123 label: .* \(got a non-string\)$/,
    );
  });

  it('gives a rule broken by several checks with one message once', () => {
    expect(rejection(scaleDeployment, { namespace: 'shop', name: 'web', replicas: -1.5 }).message).toBe(
      'arguments.replicas: must be a whole number of replicas from 0 to 50',
    );
  });

  it.each([
    [{ namespace: 'shop', name: 'web', replicas: 2.5 }, 'arguments.replicas: must be an integer'],
    [{ namespace: 'shop', name: 'web', replicas: -1 }, 'arguments.replicas: must be at least 0'],
    [{ namespace: 'shop', name: 'web', replicas: 'three' }, 'arguments.replicas: must be a number'],
    [
      { namespace: 'shop', name: 'web', replicas: 1, idempotency_key: '' },
      'arguments.idempotency_key: must be at least 1 character long',
    ],
    ['scale everything', 'arguments: must be an object'],
  ])('words zod’s generic rules as rules: %j', (raw, message) => {
    const { message: text } = rejection(scaleThing, raw);
    expect(text).toBe(message);
    expect(text).not.toMatch(/Invalid input|Too (small|big)|expected \w+, received/);
  });

  it('names unknown arguments and lists the accepted ones, after the other rules', () => {
    expect(rejection(scaleThing, { namespace: 'shop', name: 'web', replicas: 1, dryrun: true })).toEqual({
      message:
        'arguments.dryrun: unknown argument (accepted: namespace, name, replicas, dry_run, idempotency_key, evidence, investigation)',
      field: 'dryrun',
    });
  });
});
