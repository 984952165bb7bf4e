import { describe, expect, it } from 'vitest';
import {
  HTTP_STATUS,
  JSON_RPC_CODE,
  SentinelError,
  toSentinelError,
  type ErrorCode,
} from '../../core/index.ts';
import { SentinelError as ToolsSentinelError } from '../../tools/index.ts';

describe('SentinelError wire mapping', () => {
  it('maps every code to one HTTP status: unavailable is 503, not 500', () => {
    const statuses = Object.fromEntries(
      (Object.keys(HTTP_STATUS) as ErrorCode[]).map((code) => [
        code,
        new SentinelError(code, 'x').statusCode,
      ]),
    );
    expect(statuses).toMatchObject({
      invalid_input: 422,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      approval_expired: 410,
      unavailable: 503,
      internal: 500,
    });
  });

  it('maps codes to JSON-RPC codes: invalid request, internal error, else server error', () => {
    expect(new SentinelError('invalid_input', 'x').jsonRpcCode).toBe(-32600);
    expect(new SentinelError('internal', 'x').jsonRpcCode).toBe(-32603);
    expect(new SentinelError('forbidden', 'x').jsonRpcCode).toBe(-32000);
    expect(Object.keys(JSON_RPC_CODE).sort()).toEqual(Object.keys(HTTP_STATUS).sort());
  });

  it('lets the transport override both', () => {
    const tooLarge = new SentinelError('invalid_input', 'too large', {
      statusCode: 413,
      jsonRpcCode: -32700,
    });
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.toJsonRpcBody()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: 'too large' },
      id: null,
    });
  });

  it('renders the approvals API body with the field when there is one, and keeps toJSON unchanged', () => {
    const error = new SentinelError('not_found', 'gone', { field: 'id', kind: 'Deployment', name: 'web' });
    expect(error.toApiBody()).toEqual({ error: { code: 'not_found', message: 'gone', field: 'id' } });
    expect(new SentinelError('conflict', 'no').toApiBody()).toEqual({
      error: { code: 'conflict', message: 'no' },
    });
    expect(error.toJSON()).toEqual({
      code: 'not_found',
      message: 'gone',
      kind: 'Deployment',
      name: 'web',
      field: 'id',
    });
  });

  it('is the one class the tools module re-exports, and hides unknown errors as internal', () => {
    expect(ToolsSentinelError).toBe(SentinelError);
    const hidden = toSentinelError(new TypeError('boom'));
    expect(hidden.code).toBe('internal');
    expect(hidden.statusCode).toBe(500);
    expect(hidden.message).not.toContain('boom');
  });
});
