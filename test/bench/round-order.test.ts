/**
 * The benchmark's row order (bench/round-order.ts): with `abba` no row keeps one predecessor or one
 * place, the finding behind the A/A slot bias of bench/readpath.ts.
 */
import { describe, expect, it } from 'vitest';
import { roundOrder } from '../../bench/round-order.ts';

const rows = ['a', 'b', 'c', 'd'];
/** Ordered pairs (predecessor, row) of the first half of each of `rounds` rounds. */
const predecessors = (rounds: number) =>
  Array.from({ length: rounds }, (_, round) => {
    const names = roundOrder(rows, round, 'abba')
      .slice(0, rows.length)
      .map(([row]) => row);
    return names.slice(1).map((row, i) => `${names[i]}${row}`);
  }).flat();

describe('roundOrder', () => {
  it('abba runs every row twice per round for half of it, at a mean position in the middle', () => {
    for (let round = 0; round < 6; round += 1) {
      const order = roundOrder(rows, round, 'abba');
      expect(order).toHaveLength(2 * rows.length);
      for (const row of rows) {
        const places = order.flatMap(([name, share], place) => (name === row ? [{ place, share }] : []));
        expect(places.map(({ share }) => share)).toEqual([0.5, 0.5]);
        expect(places[0]!.place + places[1]!.place).toBe(2 * rows.length - 1);
      }
    }
  });

  it('abba puts every row right after every other row once over n rounds (Williams design)', () => {
    const pairs = predecessors(rows.length);
    expect(new Set(pairs).size).toBe(rows.length * (rows.length - 1));
    expect(pairs).toHaveLength(rows.length * (rows.length - 1));
  });

  it('rotate keeps the fixed cycle: each row always after the same row', () => {
    const after = (round: number) => {
      const names = roundOrder(rows, round, 'rotate').map(([row]) => row);
      // Cyclically: the first row of a round follows the last of the round before.
      return names[(names.indexOf('b') + names.length - 1) % names.length];
    };
    expect([0, 1, 2, 3].map(after)).toEqual(['a', 'a', 'a', 'a']);
    expect(roundOrder(rows, 1, 'rotate')).toEqual([
      ['b', 1],
      ['c', 1],
      ['d', 1],
      ['a', 1],
    ]);
  });
});
