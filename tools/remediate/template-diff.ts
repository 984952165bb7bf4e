/**
 * The whole pod template change as a unified diff (`diff -u`), for the human who approves it: the
 * itemised `changes` say what differs, the diff shows it in place, with the lines around it. Both
 * templates are laid out as YAML with sorted keys (so only real differences show), without the
 * controller's `pod-template-hash` label, with unset values dropped (Kubernetes' semantic
 * equality, as in `diffPodTemplates`), and through the one redactor (env values of secret-looking
 * names, tokens in strings).
 */
import { createTwoFilesPatch } from 'diff';
import { stringify } from 'yaml';
import { templateWithoutHash, type PodTemplateSpec } from '../kube/index.ts';
import { redactValue } from '../redact.ts';
import { normalize } from './changes.ts';

/** Lines of context around each change (what `diff -u` uses). */
const CONTEXT_LINES = 3;
/** Longest diff returned, in lines; the rest is counted in a last `… N more lines` line. */
export const MAX_DIFF_LINES = 400;
/**
 * Most lines the diff may add or remove (jsdiff's `maxEditLength`); beyond it a line says so. Myers'
 * diff takes time proportional to the lines times the lines changed, so two very different
 * templates of many lines (a hostile list of env vars) held the thread: 2,000 lines took 0.8 s,
 * 8,000 took 13.5 s. Bounded, 128,000 lines take 0.2 s.
 */
export const MAX_DIFF_EDITS = 1000;

/** The template as the diff shows it: YAML, keys sorted, redacted, `pod-template-hash` dropped. */
function templateYaml(template: PodTemplateSpec | undefined): string {
  const shown = redactValue(normalize(templateWithoutHash(template)) ?? {}).value;
  return stringify(shown, { sortMapEntries: true, lineWidth: 0 });
}

/**
 * `diff -u current proposed` of two pod templates (`from`: the live one, `to`: what the change
 * writes), e.g.
 *
 *   --- current pod template
 *   +++ proposed pod template
 *   @@ -5,7 +5,7 @@
 *      containers:
 *   -    - image: checkout:2.4.1
 *   +    - image: checkout:2.4.0
 *
 * The empty string when the templates do not differ. At most `MAX_DIFF_LINES` lines; when more than
 * `MAX_DIFF_EDITS` lines change, the two file lines and a line saying so.
 */
export function templateDiff(from: PodTemplateSpec | undefined, to: PodTemplateSpec | undefined): string {
  const before = templateYaml(from);
  const after = templateYaml(to);
  if (before === after) return '';
  const patch = createTwoFilesPatch(
    'current pod template',
    'proposed pod template',
    before,
    after,
    undefined,
    undefined,
    { context: CONTEXT_LINES, maxEditLength: MAX_DIFF_EDITS },
  );
  if (patch === undefined) {
    return [
      '--- current pod template',
      '+++ proposed pod template',
      `… more than ${MAX_DIFF_EDITS} lines change: too many to show; the itemised changes say what differs`,
    ].join('\n');
  }
  // Drop the `Index:`/`===` header jsdiff writes before `---`.
  const lines = patch.split('\n');
  const start = lines.findIndex((line) => line.startsWith('--- '));
  const body = lines
    .slice(Math.max(0, start))
    .filter((line, index, all) => line !== '' || index < all.length - 1);
  if (body.length <= MAX_DIFF_LINES) return body.join('\n');
  return [...body.slice(0, MAX_DIFF_LINES), `… ${body.length - MAX_DIFF_LINES} more lines`].join('\n');
}
