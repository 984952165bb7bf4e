import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  ContainerNameSchema,
  DeploymentNameSchema,
  LabelSelectorSchema,
  NamespaceSchema,
  boundedInt,
} from '../../tools/params.ts';
import { toolInput } from '../../tools/define-tool.ts';

/** The first issue zod reports for `value` under `field`, as `field: message`. */
function issue(schema: z.ZodType, value: unknown, field = 'field'): string | undefined {
  const result = toolInput({ [field]: schema }).safeParse({ [field]: value });
  if (result.success) return undefined;
  const first = result.error.issues[0]!;
  return `${first.path.join('.')}: ${first.message}`;
}

describe('NamespaceSchema (DNS-1123 label, ≤63)', () => {
  it.each(['shop', 'kube-system', 'a', 'a1', 'x'.repeat(63)])('accepts %j', (value) => {
    expect(issue(NamespaceSchema, value, 'namespace')).toBeUndefined();
  });
  it.each(['', 'Shop', 'shop_prod', '-shop', 'shop-', 'shop.prod', 'x'.repeat(64), 42])(
    'rejects %j naming the field and rule',
    (value) => {
      expect(issue(NamespaceSchema, value, 'namespace')).toMatch(
        /^namespace: must be a DNS-1123 label: 1-63 characters/,
      );
    },
  );
  it('says why a long namespace is rejected', () => {
    expect(issue(NamespaceSchema, 'x'.repeat(64), 'namespace')).toContain('got more than 63 characters');
  });
});

describe('object names (DNS-1123 subdomain, ≤253)', () => {
  it.each(['checkout', 'checkout.v2', 'web-7d9f8b6c5d-x2x9q', 'a'.repeat(253)])('accepts %j', (value) => {
    expect(issue(DeploymentNameSchema, value, 'name')).toBeUndefined();
  });
  it.each(['', 'Checkout', 'check_out', '.checkout', 'checkout.', 'a..b', 'a'.repeat(254)])(
    'rejects %j',
    (value) => {
      expect(issue(DeploymentNameSchema, value, 'name')).toMatch(
        /^name: must be a DNS-1123 subdomain: 1-253 characters/,
      );
    },
  );
  it('describes itself with the kind, rule and example', () => {
    expect(DeploymentNameSchema.description).toContain('Name of the Deployment');
    expect(DeploymentNameSchema.description).toContain('at most 253 characters');
  });
  it('container names are DNS-1123 labels', () => {
    expect(issue(ContainerNameSchema, 'app.v2', 'container')).toMatch(/^container: must be a DNS-1123 label/);
  });
});

describe('LabelSelectorSchema', () => {
  it('accepts a valid selector and trims it', () => {
    expect(LabelSelectorSchema.parse('  app=web,env in (prod) ')).toBe('app=web,env in (prod)');
  });
  it('rejects a bad selector before any API call, naming the field and what is wrong', () => {
    expect(issue(LabelSelectorSchema, 'app in web', 'label_selector')).toBe(
      "label_selector: must be a Kubernetes label selector such as 'app=web,tier!=cache' or 'env in (prod,staging)': 'app in' must be followed by '(values)'",
    );
  });
});

describe('boundedInt', () => {
  const tail = boundedInt({ min: 1, max: 2000, default: 200, unit: 'lines', what: 'Lines from the end' });
  it('applies the default and documents unit, range and default', () => {
    expect(tail.parse(undefined)).toBe(200);
    expect(tail.description).toBe('Lines from the end, in lines; 1-2000, default 200.');
  });
  it.each([0, 2001, 1.5, '10'])('rejects %j naming the range', (value) => {
    expect(issue(tail, value, 'tail_lines')).toBe(
      'tail_lines: must be a whole number of lines from 1 to 2000',
    );
  });
});
