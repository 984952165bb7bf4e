/**
 * The TrueForge harness's tool selector semantics, for `require_approval_for_tools` and
 * `enable_tools` / `disable_tools`. Mirrors the harness's `toolRequiresApproval` and
 * `isToolAllowed`; test/agent-spec/selectors.test.ts checks every row of the harness's own truth
 * table (test/fixtures/tool-selectors.truth.json).
 *
 * A selector is a tag or a literal tool name (exact, case-sensitive; no globs):
 * - `@all` — every tool;
 * - `@read-only` — `readOnlyHint === true`;
 * - `@write` — `readOnlyHint === false` and `destructiveHint !== true`;
 * - `@destructive` — `destructiveHint === true`.
 * Hints count only as the booleans `true`/`false` (a string `"true"` is no hint), and a tool without
 * annotations matches only `@all` and its literal name.
 */

/** Annotations as the harness receives them over the wire (any JSON). */
export type WireAnnotations = Readonly<Record<string, unknown>> | undefined;

export const DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS: readonly string[] = ['@write', '@destructive'];
export const DEFAULT_ENABLE_TOOLS: readonly string[] = ['@all'];
export const DEFAULT_DISABLE_TOOLS: readonly string[] = [];

/** Tags the harness knows; anything else is a literal tool name. */
export const SELECTOR_TAGS = ['@all', '@read-only', '@write', '@destructive'] as const;
type SelectorTag = (typeof SELECTOR_TAGS)[number];

function isTag(selector: string): selector is SelectorTag {
  return (SELECTOR_TAGS as readonly string[]).includes(selector);
}

function matchesTag(tag: SelectorTag, annotations: WireAnnotations): boolean {
  switch (tag) {
    case '@all':
      return true;
    case '@read-only':
      return annotations?.readOnlyHint === true;
    case '@write':
      return annotations?.readOnlyHint === false && annotations.destructiveHint !== true;
    case '@destructive':
      return annotations?.destructiveHint === true;
  }
}

/** Whether any selector (tag or literal name) matches the tool. No selectors match nothing. */
export function matchesAnySelector(
  toolName: string,
  annotations: WireAnnotations,
  selectors: readonly string[] | undefined,
): boolean {
  return (selectors ?? []).some((selector) =>
    isTag(selector) ? matchesTag(selector, annotations) : selector === toolName,
  );
}

/**
 * Whether the harness pauses a call of this tool for human approval under these
 * `require_approval_for_tools` selectors (as given: an undefined or empty list gates nothing; the
 * harness fills in `DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS` only when the key is absent from the spec).
 */
export function requiresApproval(
  toolName: string,
  annotations: WireAnnotations,
  selectors: readonly string[] | undefined,
): boolean {
  return matchesAnySelector(toolName, annotations, selectors);
}

/** Whether the harness exposes the tool: matched by `enable_tools` and not by `disable_tools`. */
export function isToolAllowed(
  toolName: string,
  annotations: WireAnnotations,
  enableTools: readonly string[],
  disableTools: readonly string[],
): boolean {
  return (
    matchesAnySelector(toolName, annotations, enableTools) &&
    !matchesAnySelector(toolName, annotations, disableTools)
  );
}

/** The literal tool names in a selector list (everything that is not a tag). */
export function literalToolNames(selectors: readonly string[] | undefined): string[] {
  return (selectors ?? []).filter((selector) => !isTag(selector));
}
