/**
 * Light entry of the tools module: the pure text helpers (sanitizer, one-line, durations, redactor)
 * that start-up and client paths need (the terminal guard, the approval renderers), without the
 * tools, their schemas or the Kubernetes layer. Everything here is also exported by index.ts.
 */
export { humanDuration } from './format/age.ts';
export { oneLine, sanitizeText } from './format/text.ts';
export { REDACTED, isSecretName, redact, redactValue } from './redact.ts';
