/** Output formatting shared by the tools: fixed-column tables, untrusted blocks, kubectl-style ages. */
export { formatTable, bound, moreLine, DEFAULT_MAX_ROWS, type TableOptions } from './table.ts';
export {
  untrustedBlock,
  capBytes,
  DEFAULT_UNTRUSTED_MAX_BYTES,
  type UntrustedOptions,
  type CappedText,
} from './untrusted.ts';
export { stripControlCharacters, oneLine, byteLength } from './text.ts';
export { humanDuration, age } from './age.ts';
