import { describe, expect, it } from 'vitest';
import {
  LabelSelectorSyntaxError,
  formatLabelSelector,
  matchesLabels,
  parseLabelSelector,
} from '../../../tools/kube/label-selector.ts';

describe('parseLabelSelector (Kubernetes selector grammar)', () => {
  it.each([
    ['', []],
    ['app=web', [{ key: 'app', operator: '=', values: ['web'] }]],
    ['app==web', [{ key: 'app', operator: '=', values: ['web'] }]],
    [' tier != cache ', [{ key: 'tier', operator: '!=', values: ['cache'] }]],
    ['app', [{ key: 'app', operator: 'exists', values: [] }]],
    ['!canary', [{ key: 'canary', operator: 'doesnotexist', values: [] }]],
    ['env in (prod, staging)', [{ key: 'env', operator: 'in', values: ['prod', 'staging'] }]],
    ['env notin (dev)', [{ key: 'env', operator: 'notin', values: ['dev'] }]],
    [
      'app.kubernetes.io/name=checkout',
      [{ key: 'app.kubernetes.io/name', operator: '=', values: ['checkout'] }],
    ],
    ['app=', [{ key: 'app', operator: '=', values: [''] }]],
    ['replicas>2', [{ key: 'replicas', operator: '>', values: ['2'] }]],
    [
      'app=web,env in (a,b),!x',
      [
        { key: 'app', operator: '=', values: ['web'] },
        { key: 'env', operator: 'in', values: ['a', 'b'] },
        { key: 'x', operator: 'doesnotexist', values: [] },
      ],
    ],
  ])('parses %j', (selector, expected) => {
    expect(parseLabelSelector(selector)).toEqual(expected);
  });

  it.each([
    ['app=web,', 'expected a label key but the selector ended'],
    ['app in web', "'app in' must be followed by '(values)'"],
    ['env in (a,b', "expected ',' or ')' in 'env in (...)' but the selector ended"],
    ['-app=web', "label key '-app'"],
    ['Bad_Prefix/app=web', "the prefix before '/' must be a DNS-1123 subdomain"],
    ['app=web app=api', "expected ',' between requirements, found 'app'"],
    [`app=${'v'.repeat(64)}`, 'must be at most 63 characters'],
    ['app>two', "the value of '>' must be an integer"],
    ['=web', "expected a label key, found '='"],
    ['app=web)', "expected ',' between requirements, found ')'"],
  ])('rejects %j naming the rule', (selector, message) => {
    expect(() => parseLabelSelector(selector)).toThrow(LabelSelectorSyntaxError);
    expect(() => parseLabelSelector(selector)).toThrow(message);
  });
});

describe('matchesLabels', () => {
  const labels = { app: 'web', env: 'prod', gen: '3' };
  it.each([
    ['app=web', true],
    ['app!=web', false],
    ['missing!=x', true],
    ['env in (prod,staging)', true],
    ['env notin (prod)', false],
    ['app', true],
    ['!app', false],
    ['gen>2', true],
    ['gen<2', false],
    ['app=web,env=dev', false],
    ['', true],
  ])('%j → %s', (selector, expected) => {
    expect(matchesLabels(labels, parseLabelSelector(selector))).toBe(expected);
  });
});

describe('formatLabelSelector (metav1.LabelSelectorAsSelector)', () => {
  it('renders matchLabels and matchExpressions sorted by key, and parses back', () => {
    const text = formatLabelSelector({
      matchLabels: { tier: 'web', app: 'shop' },
      matchExpressions: [
        { key: 'track', operator: 'In', values: ['stable', 'canary'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'zone', operator: 'Exists' },
      ],
    });
    expect(text).toBe('app=shop,!legacy,tier=web,track in (canary,stable),zone');
    expect(parseLabelSelector(text)).toHaveLength(5);
  });

  it('renders an empty selector as the empty string', () => {
    expect(formatLabelSelector(undefined)).toBe('');
    expect(formatLabelSelector({})).toBe('');
  });
});
