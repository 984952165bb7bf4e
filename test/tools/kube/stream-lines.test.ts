import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { streamLines } from '../../../tools/kube/stream-lines.ts';

async function* chunksOf(buffers: readonly Buffer[]): AsyncGenerator<Buffer> {
  for (const buffer of buffers) yield buffer;
}
async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}
const split = (buffer: Buffer, size: number) =>
  Array.from({ length: Math.ceil(buffer.length / size) }, (_, i) =>
    buffer.subarray(i * size, (i + 1) * size),
  );

describe('streamLines', () => {
  it('yields each line trimmed, skips blank ones, and keeps characters split between chunks', async () => {
    const body = Buffer.from(' {"a":1}\r\n\n  \n{"é":"😀"}\n{"b":2}');
    expect(await collect(streamLines(chunksOf(split(body, 1))))).toEqual([
      '{"a":1}',
      '{"é":"😀"}',
      '{"b":2}',
    ]);
  });

  // A line in many chunks was searched for its newline from its start at every chunk, on a string
  // flattened again each time: quadratic in the chunks, 600 KB in 256-byte chunks took 0.6 s, so
  // this 9 MB line (1.5 MB of escaped control characters) in 128-byte chunks would take minutes.
  // Linear now, it takes milliseconds; the generous timeout is for a loaded machine.
  it('reads a long line arriving in many small chunks', { timeout: 120_000 }, async () => {
    const line = `{"a":"${'\\u0001'.repeat(1_500_000)}"}`;
    const chunks = split(Buffer.from(`${line}\n{"b":2}\n`), 128);
    expect(await collect(streamLines(chunksOf(chunks)))).toEqual([line, '{"b":2}']);
  });

  /** The loop it replaces (quadratic in the chunks of a long line). */
  async function* before(body: AsyncIterable<Buffer>): AsyncGenerator<string> {
    const decoder = new TextDecoder();
    let pending = '';
    for await (const chunk of body) {
      pending += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, end).trim();
        pending = pending.slice(end + 1);
        if (line) yield line;
      }
    }
    const rest = (pending + decoder.decode()).trim();
    if (rest) yield rest;
  }
  const text = fc
    .array(fc.constantFrom('\n', '\r', ' ', '\t', 'a', '{}', 'é', '😀', '\u2028'), { maxLength: 30 })
    .map((parts) => parts.join(''));
  it('gives what the loop gave, for any text in any chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.array(fc.integer({ min: 1, max: 8 }), { minLength: 1, maxLength: 8 }),
        async (value, sizes) => {
          const buffer = Buffer.from(value);
          const chunks: Buffer[] = [];
          for (let at = 0, i = 0; at < buffer.length; i += 1) {
            const size = sizes[i % sizes.length]!;
            chunks.push(buffer.subarray(at, at + size));
            at += size;
          }
          expect(await collect(streamLines(chunksOf(chunks)))).toEqual(
            await collect(before(chunksOf(chunks))),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });
});
