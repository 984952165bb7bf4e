/**
 * One body limit (1 MiB) on every JSON route of `sentinel serve`: `/mcp`, the approvals API and
 * `/freeze` accept a body just under it and answer 413 just over it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BODY_BYTES } from '../../server/limits.ts';
import { startGateServer, type GateServer } from './gate/fixtures/serve.ts';

/** A JSON object of exactly `bytes` bytes. */
const bodyOf = (bytes: number) => {
  const frame = JSON.stringify({ pad: '' });
  return JSON.stringify({ pad: 'x'.repeat(bytes - frame.length) });
};

describe('request body limit', () => {
  let s: GateServer;
  beforeAll(async () => {
    s = await startGateServer();
  });
  afterAll(() => s.close());

  it('is 1 MiB', () => expect(MAX_BODY_BYTES).toBe(1_048_576));

  it.each([
    ['POST', '/approvals'],
    ['POST', '/freeze'],
  ])(
    '%s %s reads a 300 KiB body (then rejects its content) and answers 413 over 1 MiB',
    async (method, path) => {
      const under = await s.api(s.tokens.root, method, path, bodyOf(300 * 1024));
      expect(under.status).toBe(422);
      expect(under.body.error.message).toMatch(/^Invalid request: /);
      const atLimit = await s.api(s.tokens.root, method, path, bodyOf(MAX_BODY_BYTES));
      expect(atLimit.status).toBe(422);
      const over = await s.api(s.tokens.root, method, path, bodyOf(MAX_BODY_BYTES + 1));
      expect(over.status).toBe(413);
    },
  );

  it('POST /mcp answers 413 over 1 MiB', async () => {
    const response = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${s.tokens.agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: bodyOf(MAX_BODY_BYTES + 1),
    });
    expect(response.status).toBe(413);
  });
});
