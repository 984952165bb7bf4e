/**
 * The order of a benchmark's rows within each round (bench/readpath.ts), so that no row is favoured
 * by its place: an A/A run (the same code in two rows) with the previous fixed rotation gave one of
 * them 1.1–1.4x the RPS of the other.
 */

/** `abba`: a Williams-design order then its reverse, each row twice per round; `rotate`: a fixed cycle. */
export type RowOrder = 'abba' | 'rotate';

/**
 * The rows to run in round `round` (0-based), in order, each with its share of the round's seconds.
 *
 * `abba` (default): round r runs the rows in row r of a Williams design (a balanced Latin square:
 * positions 0, 1, n-1, 2, n-2, … shifted by r, so over n rounds every row comes right after every
 * other row equally often), then the same rows in reverse, each for half the round — every row's
 * mean position in every round is the middle, and it follows a different row in every round.
 * `rotate` (the previous order, kept to show the bias it had): a fixed cycle shifted by one per
 * round, so a row always follows the same row, whose after-effects it inherits.
 */
export function roundOrder<T>(rows: readonly T[], round: number, order: RowOrder): [T, number][] {
  const n = rows.length;
  if (order === 'rotate') return rows.map((_, i) => [rows[(i + round) % n]!, 1]);
  // 0, 1, n-1, 2, n-2, …: the first row of the Williams square.
  const first = Array.from({ length: n }, (_, i) => (i % 2 === 1 ? (i + 1) / 2 : (n - i / 2) % n));
  const forward = first.map((index) => rows[(index + round) % n]!);
  return [...forward, ...forward.toReversed()].map((row) => [row, 0.5]);
}
