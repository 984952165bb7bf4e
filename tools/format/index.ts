/** Output formatting shared by the tools: the sanitizer, fixed-column tables, untrusted blocks, kubectl-style ages. */
export { formatTable, bound, moreLine, DEFAULT_MAX_ROWS, type TableOptions } from './table.ts';
export {
  untrustedBlock,
  capBytes,
  DEFAULT_UNTRUSTED_MAX_BYTES,
  type UntrustedOptions,
  type CappedText,
} from './untrusted.ts';
export { sanitizeText, isSanitized, oneLine, byteLength, type SanitizeOptions } from './text.ts';
export { humanDuration, age } from './age.ts';
