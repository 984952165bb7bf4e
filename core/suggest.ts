/**
 * "Did you mean …?" for a mistyped name (a tool, a role, a scenario, a namespace, a Deployment): the closest known
 * names by Levenshtein distance (fastest-levenshtein), within a third of the name's length.
 */
import { distance } from 'fastest-levenshtein';

/**
 * Known names closest to `typed` (at most 3, nearest first), each at most max(2, ⌈len/3⌉) edits
 * away; a name that differs only in case comes first. Empty when nothing is close.
 */
export function closestNames(typed: string, known: Iterable<string>): string[] {
  const limit = Math.max(2, Math.ceil(typed.length / 3));
  return [...new Set(known)]
    .map((name) => ({ name, edits: name.toLowerCase() === typed.toLowerCase() ? 0 : distance(typed, name) }))
    .filter(({ edits, name }) => edits <= limit && name !== typed)
    .sort((a, b) => a.edits - b.edits || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map(({ name }) => name);
}

/** ` Did you mean 'a' or 'b'?` (with a leading space), or '' when nothing is close. */
export function didYouMean(typed: string, known: Iterable<string>): string {
  const names = closestNames(typed, known).map((name) => `'${name}'`);
  if (names.length === 0) return '';
  return ` Did you mean ${names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`}?`;
}
