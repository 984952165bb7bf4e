/**
 * Loading a policy file: YAML (the `yaml` package, with line positions) validated by
 * `PolicyFileSchema`, then checked against the tool registry so a misspelled tool or argument name
 * in a rule is an error instead of a rule that silently never matches.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { zodIssueLines, SentinelError } from '../../../core/index.ts';
import type { ToolRegistry, Tool } from '../../../tools/index.ts';
import { compilePolicy, type CompiledPolicy, type CompiledRule } from './evaluate.ts';
import { PolicyFileSchema, type PolicyFile, type PolicyRule } from './schema.ts';

/** The commented default policy shipped with the server. */
export const DEFAULT_POLICY_PATH = fileURLToPath(new URL('../default-policy.yaml', import.meta.url));

export interface LoadedPolicy {
  /** Absolute or given path of the file. */
  path: string;
  policy: CompiledPolicy;
  /** Things worth a log line that do not stop the server (e.g. a tool glob that matches no tool). */
  warnings: string[];
}

/** `rules[2].args.replicas` from a zod/yaml path. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  }
  return out === '' ? '(top level)' : out;
}

/** Line (1-based) of the deepest YAML node that exists along `path`. */
function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | undefined {
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = doc.getIn(path.slice(0, depth) as unknown[], true) as
      { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return lines.linePos(node.range[0]).line;
  }
  return undefined;
}

/** Line of a key inside the map at `path` (for unknown-key errors). */
function lineOfKey(
  doc: Document,
  lines: LineCounter,
  path: readonly PropertyKey[],
  key: string,
): number | undefined {
  const map = path.length === 0 ? doc.contents : doc.getIn(path as unknown[], true);
  if (isMap(map)) {
    for (const pair of map.items) {
      if (isScalar(pair.key) && pair.key.value === key && pair.key.range)
        return lines.linePos(pair.key.range[0]).line;
    }
  }
  return lineOf(doc, lines, path);
}

function policyError(file: string, line: number | undefined, field: string, message: string): SentinelError {
  const where = line === undefined ? file : `${file}, line ${line}`;
  return new SentinelError('invalid_input', `Policy file ${where}: ${field}: ${message}.`, {
    field,
    details: { file, ...(line !== undefined && { line }) },
  });
}

function issueError(file: string, doc: Document, lines: LineCounter, error: z.ZodError): SentinelError {
  // A misspelled field is the likeliest cause of any other issue on the same object: report it first.
  const [first] = zodIssueLines(error, [], {
    brackets: true,
    root: '(top level)',
    unknownFirst: true,
    unknownKeys: () => 'unknown field (check the spelling)',
  });
  const issue = first!.issue;
  const line =
    issue.code === 'unrecognized_keys'
      ? lineOfKey(doc, lines, issue.path, issue.keys[0] ?? '')
      : lineOf(doc, lines, issue.path);
  return policyError(file, line, first!.field, first!.rule);
}

/**
 * Parses policy YAML text. Throws `SentinelError('invalid_input')` whose message names the file,
 * the line and the field (`Policy file p.yaml, line 7: rules[0].decision: ...`) for YAML syntax
 * errors, schema violations (unknown fields included), and (when `registry` is given) tool names the
 * registry does not know and rule arguments no matched tool has.
 */
export function parsePolicy(text: string, file: string, registry?: ToolRegistry): LoadedPolicy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const syntax = doc.errors[0];
  if (syntax) {
    const line = syntax.linePos?.[0]?.line;
    // prettyErrors appends " at line N, column M:" and a source excerpt; the line is reported separately.
    const message = (syntax.message.split('\n')[0] ?? syntax.message).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    throw policyError(file, line, 'YAML', message);
  }
  const parsed = PolicyFileSchema.safeParse(doc.toJS() ?? {});
  if (!parsed.success) throw issueError(file, doc, lines, parsed.error);
  const warnings = registry ? checkAgainstRegistry(parsed.data, registry, file, doc, lines) : [];
  return { path: file, policy: compilePolicy(parsed.data), warnings };
}

/** Reads and parses a policy file; see `parsePolicy`. A missing file is an error naming it. */
export function loadPolicyFile(file: string = DEFAULT_POLICY_PATH, registry?: ToolRegistry): LoadedPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SentinelError(
      'invalid_input',
      `Policy file ${file} cannot be read: ${(error as Error).message}.`,
      {
        field: 'policy',
        cause: error,
      },
    );
  }
  return parsePolicy(text, file, registry);
}

function checkAgainstRegistry(
  file: PolicyFile,
  registry: ToolRegistry,
  path: string,
  doc: Document,
  lines: LineCounter,
): string[] {
  const warnings: string[] = [];
  const compiled = compilePolicy(file);
  compiled.rules.forEach((rule, index) => {
    const tools = file.rules[index]!.tool;
    const names = tools === undefined ? [] : Array.isArray(tools) ? tools : [tools];
    names.forEach((name, position) => {
      if (!rule.literalToolNames.includes(name) || registry.get(name)) return;
      const at: PropertyKey[] = Array.isArray(tools)
        ? ['rules', index, 'tool', position]
        : ['rules', index, 'tool'];
      throw policyError(
        path,
        lineOf(doc, lines, at),
        formatPath(at),
        `unknown tool '${name}' (registered: ${registry.tools.map((tool) => tool.name).join(', ')})`,
      );
    });
    const matched = registry.tools.filter((tool) => rule.matchesTool(tool));
    for (const argument of Object.keys(file.rules[index]!.args ?? {})) {
      if (matched.length === 0) continue;
      if (!matched.some((tool) => argument in tool.input.shape)) {
        throw policyError(
          path,
          lineOfKey(doc, lines, ['rules', index, 'args'], argument),
          formatPath(['rules', index, 'args', argument]),
          `no tool this rule matches (${matched.map((t) => t.name).join(', ')}) has an argument '${argument}'`,
        );
      }
    }
    if (matched.length === 0) {
      warnings.push(`${path}: rule '${rule.name}' matches no registered tool`);
    }
    checkDestructiveFloor(file.rules[index]!, rule, matched, path, doc, lines);
  });
  return warnings;
}

/**
 * The safety floor no policy file can lower: an irreversible change never runs without a human
 * approving that call. An `allow` rule that could match a real (not dry-run) call of a
 * `destructive` tool is an error naming the rule; restricting it to `dry_run: true` (previews only)
 * makes it acceptable. `write` tools may be allowed.
 */
function checkDestructiveFloor(
  source: PolicyRule,
  rule: CompiledRule,
  matched: readonly Tool[],
  path: string,
  doc: Document,
  lines: LineCounter,
): void {
  if (source.decision !== 'allow' || source.dry_run === true) return;
  const destructive = matched.filter((tool) => tool.risk === 'destructive').map((tool) => tool.name);
  if (destructive.length === 0) return;
  const at: PropertyKey[] = ['rules', rule.index, 'decision'];
  throw policyError(
    path,
    lineOf(doc, lines, at),
    formatPath(at),
    `rule '${rule.name}' allows real calls of destructive tools (${destructive.join(', ')}) without approval; ` +
      'destructive tools can only be ask or deny; allow their previews with dry_run: true',
  );
}
