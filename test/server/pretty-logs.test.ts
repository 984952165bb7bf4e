/* eslint-disable no-control-regex -- matching terminal escape codes is the point */
/**
 * `sentinel serve` logs on a terminal (server/pretty-logs.ts): one short line per record, through
 * the same logger (redaction, levels); cluster text in a record cannot colour or move the cursor,
 * with or without pino-pretty's colours.
 */
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { logFormat, prettyLogDestination } from '../../server/pretty-logs.ts';
import { CLEAR_PAYLOAD, IMAGE_PAYLOAD, expectClean } from '../helpers/escapes.ts';

async function prettyLogger(colorize: boolean) {
  let text = '';
  const destination = await prettyLogDestination({
    colorize,
    destination: { write: (t: string) => (text += t) },
  });
  return { logger: createLogger({ level: 'info', destination }), text: () => text };
}

describe('pretty logs', () => {
  it('prints one line per record: time, level, message, fields; tokens still redacted', async () => {
    const { logger, text } = await prettyLogger(false);
    logger.info({ url: 'http://127.0.0.1:7070/mcp', token: 'snt_secret' }, 'listening');
    logger.warn({ path: '/data' }, 'data dir permissions were too open; tightened');
    expect(text().split('\n')).toEqual([
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\] INFO: listening \{"url":"http:\/\/127\.0\.0\.1:7070\/mcp","token":"\[redacted\]"\}$/,
      ),
      expect.stringMatching(
        /^\[\d\d:\d\d:\d\d\] WARN: data dir permissions were too open; tightened \{"path":"\/data"\}$/,
      ),
      '',
    ]);
  });

  it('shows escapes in cluster text instead of obeying them (keys, values, message)', async () => {
    const { logger, text } = await prettyLogger(false);
    logger.info(
      { image: IMAGE_PAYLOAD, [`k${CLEAR_PAYLOAD}`]: ['\u202eabc', { deep: '\r\u001b[1A' }] },
      `pulled ${CLEAR_PAYLOAD}`,
    );
    expectClean(text(), 'pretty log');
    expect(text()).toContain('pulled \\x1b[2J');
    expect(text()).toContain('"image":"checkout:2.4.0\\x1b]0;pwned\\x07\\x1b[8m"');
  });

  it('with colours, the only escape codes are pino-pretty’s own colours', async () => {
    const { logger, text } = await prettyLogger(true);
    logger.error({ image: IMAGE_PAYLOAD }, `oops ${CLEAR_PAYLOAD}`);
    const codes = text().match(/\u001b\[[0-9;]*m/g) ?? [];
    expect(codes.length).toBeGreaterThan(0);
    expect(text().replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/\u001b/);
    expect(text().replace(/\u001b\[[0-9;]*m/g, '')).toContain('oops \\x1b[2J');
  });
});

describe('logFormat', () => {
  it('is pretty on a terminal, JSON otherwise; SENTINEL_LOG_FORMAT chooses; another value is refused', () => {
    expect(logFormat({ isTTY: true }, {})).toBe('pretty');
    expect(logFormat({ isTTY: false }, {})).toBe('json');
    expect(logFormat({}, {})).toBe('json');
    expect(logFormat({ isTTY: true }, { SENTINEL_LOG_FORMAT: 'json' })).toBe('json');
    expect(logFormat({ isTTY: false }, { SENTINEL_LOG_FORMAT: 'pretty' })).toBe('pretty');
    expect(() => logFormat({ isTTY: true }, { SENTINEL_LOG_FORMAT: 'fancy' })).toThrow(
      /SENTINEL_LOG_FORMAT 'fancy' must be json or pretty/,
    );
  });
});
