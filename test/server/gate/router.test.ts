import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SentinelError } from '../../../core/index.ts';
import { createApprovalsRouter } from '../../../server/gate/router.ts';
import type { ApprovalsService } from '../../../server/gate/approvals.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** Serves the router over a service whose `get` throws `error`; returns the base URL. */
async function serve(error: SentinelError): Promise<string> {
  const service = {
    get: async () => {
      throw error;
    },
  } as unknown as ApprovalsService;
  const app = express();
  app.use((_req, res, next) => {
    res.locals.identity = { name: 'alice', roles: ['approver'] };
    next();
  });
  app.use(createApprovalsRouter(service));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('approvals router errors', () => {
  it('answers unavailable with 503, like the approvals page (one status table)', async () => {
    const base = await serve(new SentinelError('unavailable', 'The approval store is busy; try again.'));
    const response = await fetch(`${base}/approvals/apr_1`);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      error: { code: 'unavailable', message: 'The approval store is busy; try again.' },
    });
  });

  it('answers a malformed JSON body with its body-parser status and an invalid_input body', async () => {
    const base = await serve(new SentinelError('internal', 'unused'));
    const response = await fetch(`${base}/approvals/apr_1/deny`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('invalid_input');
    expect(body.error.message).toMatch(/^Invalid request body: /);
  });

  it('names an unknown body field as a field, and the rule of a bad one', async () => {
    const base = await serve(new SentinelError('internal', 'unused'));
    const post = async (body: unknown) => {
      const response = await fetch(`${base}/approvals/apr_1/deny`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { error: Record<string, string> } };
    };
    expect(await post({ reason: 'no', because: 'x' })).toEqual({
      status: 422,
      body: {
        error: {
          code: 'invalid_input',
          message: 'Invalid request: because: unknown field.',
          field: 'because',
        },
      },
    });
    const missing = await post({});
    expect(missing.status).toBe(422);
    expect(missing.body.error.message).toMatch(/^Invalid request: reason: /);
  });
});
