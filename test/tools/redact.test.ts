import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  REDACTED,
  REDACTION_RULES,
  isSecretName,
  redact,
  redactByRules,
  redactValue,
} from '../../tools/redact.ts';

describe('redact (text)', () => {
  it.each([
    ['Authorization: Bearer eyJhbGciOiJSUzI1NiJ9abcdef', `Authorization: Bearer ${REDACTED}`],
    ['curl -H "Authorization: Basic dXNlcjpodW50ZXIy"', `curl -H "Authorization: Basic ${REDACTED}"`],
    [
      'connecting to postgres://app:hunter2@db:5432/shop',
      `connecting to postgres://app:${REDACTED}@db:5432/shop`,
    ],
    ['aws key AKIAIOSFODNN7EXAMPLE used', `aws key ${REDACTED} used`],
    ['gcp key=AIzaSyA-1234567890abcdefghijklmnopqrstu ok', `gcp key=${REDACTED} ok`],
    [
      'https://acct.blob.core.windows.net/c?sv=2020&sig=abc%2Bdef%3D&se=1',
      `https://acct.blob.core.windows.net/c?sv=2020&sig=${REDACTED}&se=1`,
    ],
    ['token ghp_abcdefghijklmnopqrstuvwxyz0123456789 leaked', `token ${REDACTED} leaked`],
    ['password=hunter2 user=bob', `password=${REDACTED} user=bob`],
    ['DB_PASSWORD: s3cr3t', `DB_PASSWORD: ${REDACTED}`],
    ['{"api_key": "abc123", "user": "bob"}', `{"api_key": "${REDACTED}", "user": "bob"}`],
    ["--client-secret='x y z' --verbose", `--client-secret='${REDACTED}' --verbose`],
    ['GET /cb?token=abc&state=1', `GET /cb?token=${REDACTED}&state=1`],
    ['deploy 2.4.1 (token=abc123)', `deploy 2.4.1 (token=${REDACTED})`],
    ['id eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJl done', `id ${REDACTED} done`],
  ])('%s', (input, expected) => {
    const result = redact(input);
    expect(result.value).toBe(expected);
    expect(result.redactions).toBe(1);
  });

  it('removes a private key block whole', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----';
    const result = redact(`key:\n${pem}\nafter`);
    expect(result.value).toBe(`key:\n${REDACTED} private key\nafter`);
    expect(result.value).not.toContain('MIIE');
    expect(result.redactions).toBe(1);
  });

  it('redacts env entries inside serialized JSON and YAML (e.g. last-applied-configuration)', () => {
    const json = '{"env":[{"name":"DB_PASSWORD","value":"hunter2"},{"name":"LOG_LEVEL","value":"debug"}]}';
    expect(redact(json)).toEqual({
      value: `{"env":[{"name":"DB_PASSWORD","value":"${REDACTED}"},{"name":"LOG_LEVEL","value":"debug"}]}`,
      redactions: 1,
    });
    const yaml =
      'env:\n  - name: STRIPE_API_KEY\n    value: sk_live_abc\n  - name: PORT\n    value: "8080"\n';
    const result = redact(yaml);
    expect(result.value).toContain(`value: ${REDACTED}\n`);
    expect(result.value).toContain('value: "8080"');
    expect(result.redactions).toBe(1);
  });

  it('leaves ordinary text alone', () => {
    const text = 'GET /healthz 200 in 3ms; key=app tokens=5 author=jane passthrough=true';
    expect(redact(text)).toEqual({ value: text, redactions: 0 });
  });

  it('is idempotent: a second pass removes and counts nothing more', () => {
    const once = redact('password=a Bearer abcdefghijk postgres://u:p@h sig=xyz {"token": "q"}');
    expect(once.redactions).toBe(5);
    expect(redact(once.value)).toEqual({ value: once.value, redactions: 0 });
  });
});

describe('redact: the shortcut for text no rule can match', () => {
  // Pieces of every rule's match, with and without the `:`/`=` most rules need.
  const fragments = [
    'Bearer abcdefgh12345',
    'Basic dXNlcjpodW50ZXIy',
    'postgres://app:hunter2@db',
    'AKIAIOSFODNN7EXAMPLE',
    `AIza${'a'.repeat(35)}`,
    'sig=abc%2Bdef',
    `ghp_${'x'.repeat(36)}`,
    `github_pat_${'y'.repeat(22)}`,
    'xoxb-1234567890',
    'eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl',
    '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----',
    '{"name":"DB_PASSWORD","value":"hunter2"}',
    'name: API_TOKEN\n  value: s3cr3t',
    'password=hunter2',
    '"token": "abc"',
    ' ',
    '\n',
    'checkout-7f9c',
    'app',
  ];
  const text = fc
    .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 12 })), { maxLength: 8 })
    .map((parts) => parts.join(''));

  it('gives what running every rule gives, for any text', () => {
    fc.assert(
      fc.property(text, (value) => {
        expect(redact(value)).toEqual(redactByRules(value));
      }),
      { numRuns: 2000 },
    );
  });

  it('still redacts secrets that carry no `:` or `=`', () => {
    for (const secret of fragments.slice(0, 11)) {
      const result = redact(`x ${secret} y`);
      expect(result.redactions, secret).toBeGreaterThan(0);
      expect(result).toEqual(redactByRules(`x ${secret} y`));
    }
  });
});

describe('redact on hostile text from the cluster (a log line of one long token)', () => {
  // Each took time quadratic in the token's length: 100 KB of letters before `: ` took 30 s, so 2 MB
  // would take hours. Linear now, they take milliseconds; the generous timeout is for a loaded machine.
  const token = 'QUJD'.repeat(500_000);
  it.each([
    ['a name=value pair after the token', `${token} password=hunter2`, `${token} password=${REDACTED}`],
    [
      'a URL with a password after a dotted token',
      `${'a.'.repeat(1_000_000)} https://app:hunter2@db`,
      `${'a.'.repeat(1_000_000)} https://app:${REDACTED}@db`,
    ],
    [
      'BEGIN lines of a private key with no END',
      '-----BEGIN PRIVATE KEY-----\n'.repeat(70_000),
      '-----BEGIN PRIVATE KEY-----\n'.repeat(70_000),
    ],
  ])('%s', { timeout: 120_000 }, (_case, input, expected) => {
    expect(redact(input).value).toBe(expected);
  });
});

describe('the rules rewritten to run in linear time', () => {
  /** The expressions they replace, as they were (quadratic on a long run of name characters). */
  const before: Record<string, RegExp> = {
    url: /\b([a-z][a-z0-9+.-]*:\/\/[^/\s:@]+:)(?!\[REDACTED\])[^/\s@]+(@)/gi,
    pair: /(["']?)([A-Za-z][\w.-]*)\1(\s*[:=]\s*)(\[REDACTED\]|"(?:[^"\\]|\\.)*"|'[^']*'|[^\s,;&"'}\]]+)/g,
  };
  const ruleFor = (needs: string) => {
    const rule = REDACTION_RULES.find((candidate) => candidate.needs.source === needs);
    if (!rule || !('pattern' in rule)) throw new Error(`no pattern rule needing ${needs}`);
    return rule;
  };
  const pieces = [
    'https',
    'a',
    'B',
    '9',
    '_',
    '.',
    '-',
    '+',
    ':',
    '//',
    '://',
    '@',
    '=',
    ' = ',
    '"',
    "'",
    ' ',
    '\n',
    ',',
    ')',
    'password',
    'token',
    'api_key',
    REDACTED,
  ];
  const text = fc
    .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 3 })), { maxLength: 30 })
    .map((parts) => parts.join(''));
  it.each([
    ['url', ':\\/\\/'],
    ['pair', '[:=]'],
  ])('%s: the same result as the expression it replaces, for any text', (name, needs) => {
    const rule = ruleFor(needs);
    const apply = (pattern: RegExp, value: string) =>
      value.replace(pattern, (...args: unknown[]) =>
        rule.replace(args[0] as string, ...(args.slice(1, -2) as string[])),
      );
    fc.assert(
      fc.property(text, (value) => {
        expect(apply(rule.pattern, value)).toBe(apply(before[name]!, value));
      }),
      { numRuns: 5000 },
    );
  });
});

describe('name=value pairs in free text', () => {
  it('answers the same for a pair name seen again (answers are remembered), and never by name alone', () => {
    const message = 'back-off 5m0s restarting failed container=app pod=web-1 token=abc123 key=app';
    for (let i = 0; i < 3; i += 1) {
      expect(redact(message)).toEqual({
        value: `back-off 5m0s restarting failed container=app pod=web-1 token=${REDACTED} key=app`,
        redactions: 1,
      });
    }
  });
});

describe('isSecretName', () => {
  it('answers the same for a name asked again (answers are remembered)', () => {
    for (let i = 0; i < 3; i += 1) {
      expect(isSecretName('DB_PASSWORD')).toBe(true);
      expect(isSecretName('containerPort')).toBe(false);
    }
  });

  it.each([
    'DB_PASSWORD',
    'API_KEY',
    'apiKey',
    'AWS_SECRET_ACCESS_KEY',
    'GITHUB_TOKEN',
    'x-auth-token',
    'SIGNING_KEY',
    'KEY',
    'credentials',
    'SENTRY_DSN',
  ])('%s is secret', (name) => expect(isSecretName(name)).toBe(true));
  it.each([
    'LOG_LEVEL',
    'secretName',
    'TOKEN_FILE',
    'keyRef',
    'serviceAccountName',
    'MONKEY',
    'author',
    'tokenExpirationSeconds',
    'PORT',
  ])('%s is not', (name) => expect(isSecretName(name)).toBe(false));
});

describe('redactValue (objects)', () => {
  it('redacts env values with secret-looking names and secret-looking keys, counting each', () => {
    const container = {
      name: 'app',
      image: 'shop/checkout:2.4.1',
      env: [
        { name: 'DB_PASSWORD', value: 'hunter2' },
        { name: 'LOG_LEVEL', value: 'info' },
        { name: 'API_TOKEN', valueFrom: { secretKeyRef: { name: 'api', key: 'token' } } },
        { name: 'DSN', value: 'postgres://app:pw@db/shop' },
      ],
      args: ['--password=letmein'],
      selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] },
    };
    const { value, redactions } = redactValue(container);
    expect(value.env[0]).toEqual({ name: 'DB_PASSWORD', value: REDACTED });
    expect(value.env[1]).toEqual({ name: 'LOG_LEVEL', value: 'info' });
    expect(value.env[2]).toEqual(container.env[2]);
    expect(value.env[3]).toEqual({ name: 'DSN', value: REDACTED });
    expect(value.args).toEqual([`--password=${REDACTED}`]);
    expect(value.selector).toEqual(container.selector);
    expect(redactions).toBe(3);
    expect(container.env[0]!.value).toBe('hunter2');
  });

  it('is idempotent', () => {
    const once = redactValue({ password: 'x', nested: { clientSecret: 'y' } });
    expect(once).toEqual({
      value: { password: REDACTED, nested: { clientSecret: REDACTED } },
      redactions: 2,
    });
    expect(redactValue(once.value).redactions).toBe(0);
  });
});
