/**
 * Identities and their token hashes in `<data-dir>/tokens.yaml`, plus the built-in `local` identity
 * that holds the token the server started with.
 *
 * The file is re-read whenever its size, inode or modification time changes (checked on every
 * lookup, a single `stat`), so `sentinel tokens add|revoke` take effect in a running server without
 * a restart. A file that fails to parse or validate fails closed: no identity from it authenticates
 * until it is fixed (a revocation is never undone by a typo). Two identities sharing a token, or an
 * identity holding the startup token, make the file invalid: a token must name exactly one identity.
 */
import { withTokensFileLock } from './tokens-file-lock.ts';
import { WebhookUrlSchema } from './webhook-url.ts';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { didYouMean, fromZod, SentinelError, sentinelCommand } from '../core/index.ts';
import {
  credentialOf,
  LOCAL_IDENTITY_NAME,
  localIdentity,
  RoleSchema,
  type Identity,
  type Role,
} from './identity.ts';
import { generateToken, hashToken, sameHash } from './tokens.ts';

export const IdentityNameSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,62}$/,
    'must be 1-63 characters of lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
  );

/**
 * The harness a `trust_upstream_approval` identity's approvals are verified against: its API URL, a
 * file holding a read token for it (a local harness needs none), and how old an allow may be.
 */
export const UpstreamHarnessSchema = z.strictObject({
  /** The harness base URL, e.g. `http://127.0.0.1:8000`. */
  url: z.url({ protocol: /^https?$/ }),
  /** File with the bearer token the server reads the harness with (sessions, turns, events). */
  token_file: z.string().min(1).optional(),
  /** Oldest harness allow honoured, e.g. `2m` (default). */
  max_age: z
    .string()
    .regex(/^\d+(ms|s|m|h)$/, 'must be a duration such as "90s" or "2m"')
    .optional(),
});
export type UpstreamHarness = z.infer<typeof UpstreamHarnessSchema>;

/** One identity as stored in tokens.yaml. */
export const IdentityRecordSchema = z.strictObject({
  name: IdentityNameSchema,
  roles: z
    .array(RoleSchema)
    .min(1, 'must list at least one role')
    .refine((roles) => new Set(roles).size === roles.length, 'must not repeat a role'),
  /** Lowercase hex SHA-256 of the token; the token itself is never stored. */
  token_sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (SHA-256)'),
  /** ISO 8601 time the identity was added. */
  created_at: z.iso.datetime(),
  /**
   * Opt-in: calls run on the harness's approval, verified against `upstream_harness` (DESIGN.md,
   * "Upstream approval"). Requires `upstream_harness`: a token alone is never enough.
   */
  trust_upstream_approval: z.boolean().optional(),
  /** Where the harness approvals of a `trust_upstream_approval` identity are verified. */
  upstream_harness: UpstreamHarnessSchema.optional(),
  /** Where approval requests routed to this identity are announced (http or https URL). */
  webhook: WebhookUrlSchema.optional(),
});
export type IdentityRecord = z.infer<typeof IdentityRecordSchema>;

export const TokensFileSchema = z
  .strictObject({ identities: z.array(IdentityRecordSchema).default([]) })
  .superRefine((file, ctx) => {
    const seen = new Set<string>();
    // A token shared by two identities would authenticate as whichever comes first.
    const tokenOwners = new Map<string, string>();
    file.identities.forEach((identity, index) => {
      if (identity.trust_upstream_approval === true && identity.upstream_harness === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['identities', index, 'trust_upstream_approval'],
          message: `'${identity.name}' trusts upstream approval but names no harness to verify it against; add upstream_harness: { url, token_file } (a token alone is never enough) or remove trust_upstream_approval`,
        });
      }
      const owner = tokenOwners.get(identity.token_sha256);
      if (owner !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['identities', index, 'token_sha256'],
          message: `'${identity.name}' has the same token as '${owner}'; every identity needs its own token (revoke one and add it again)`,
        });
      }
      tokenOwners.set(identity.token_sha256, identity.name);
      if (identity.name === LOCAL_IDENTITY_NAME) {
        ctx.addIssue({
          code: 'custom',
          path: ['identities', index, 'name'],
          message: `'${LOCAL_IDENTITY_NAME}' is reserved for the server's startup token`,
        });
      }
      if (seen.has(identity.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['identities', index, 'name'],
          message: `'${identity.name}' appears more than once`,
        });
      }
      seen.add(identity.name);
    });
  });
export type TokensFile = z.infer<typeof TokensFileSchema>;

/** What `add` needs. */
export interface NewIdentity {
  name: string;
  roles: Role[];
  trustUpstreamApproval?: boolean | undefined;
  upstreamHarness?: UpstreamHarness | undefined;
  webhook?: string | undefined;
}

export interface IdentityStore {
  /** Absolute path of tokens.yaml. */
  readonly tokensFile: string;
  /**
   * Adds an identity with a fresh token and returns the token (shown once; only its hash is kept).
   * Throws `invalid_input` (bad name, role or webhook, naming the field), `conflict` (name exists or
   * is `local`), or the file's load error.
   */
  add(identity: NewIdentity): { identity: Identity; token: string };
  /** Identities in tokens.yaml, in file order (without `local`). Throws the file's load error. */
  list(): IdentityRecord[];
  /** Removes an identity; its token stops working at once. Throws `not_found` when there is none. */
  revoke(name: string): void;
  /**
   * Gives an identity a new token (returned, shown once) and keeps its name, roles, settings and
   * creation time, so grants it gave stay valid; the old token stops working at once. Throws
   * `not_found` when there is none (and for `local`, whose token is in its own file: see
   * server/local-token.ts).
   */
  rotate(name: string): { identity: Identity; token: string };
  /** The identity named `name` (`local` is built in), or undefined. */
  get(name: string): Identity | undefined;
  /** The identity whose token hash matches `token` (constant-time comparison), or undefined. */
  lookupByToken(token: string): Identity | undefined;
  /** Whether at least one token (the startup token or any in tokens.yaml) can authenticate. */
  hasTokens(): boolean;
}

export interface IdentityStoreOptions {
  tokensFile: string;
  /** The token the server started with; identity `local` with every role. */
  startupToken?: string;
  /**
   * The file the startup token was read from (`<data-dir>/local.token`): re-read when it changes,
   * so `sentinel tokens rotate local` takes effect in a running server at once.
   */
  startupTokenFile?: string;
  /**
   * Where the startup token came from (`SENTINEL_TOKEN`, `--token-file <file>`), named in the error
   * when tokens.yaml gives the same token to an identity. Default `the startup token`.
   */
  startupTokenSource?: string;
  /** Called once per failed (re)load of tokens.yaml, with the error. */
  onLoadError?: (error: SentinelError) => void;
}

/**
 * A file's identity and version (inode, size, mtime), `missing`, or `unreadable:<errno code>`: a
 * change of it is what makes the store read the file again.
 */
function fileStamp(file: string): string {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'missing' : `unreadable:${code}`;
  }
}

function toIdentity(record: IdentityRecord): Identity {
  return {
    name: record.name,
    roles: [...record.roles],
    trustUpstreamApproval: record.trust_upstream_approval === true,
    ...(record.upstream_harness && { upstreamHarness: record.upstream_harness }),
    credential: credentialOf(record.token_sha256),
  };
}

/**
 * The error for an identity in tokens.yaml whose token is the server's startup token: that token
 * would authenticate as `local` (every role), so the identity — an agent, say — could approve its
 * own requests. Names both sources, never the token.
 */
function startupTokenClash(tokensFile: string, name: string, source: string): SentinelError {
  // A configuration error (exit 2): the server's token or the file must change.
  return new SentinelError(
    'invalid_input',
    `The startup token (${source}) is also the token of identity '${name}' in ${tokensFile}; ` +
      `it would authenticate as '${LOCAL_IDENTITY_NAME}' with every role, so '${name}' could approve its own requests. ` +
      `Give the server a token of its own (or unset it to have one generated on loopback), or revoke '${name}' (\`${sentinelCommand()} tokens revoke ${name}\`).`,
    { field: source },
  );
}

/** Reads and validates tokens.yaml: its identities, or why it cannot be used. */
function readTokensFile(tokensFile: string): IdentityRecord[] | SentinelError {
  let content: unknown;
  try {
    content = YAML.parse(readFileSync(tokensFile, 'utf8'));
  } catch (error) {
    const problem = error instanceof YAML.YAMLError ? 'is not valid YAML' : 'could not be read';
    return new SentinelError(
      'invalid_input',
      `${tokensFile} ${problem}: ${error instanceof Error ? error.message : String(error)}.`,
      { cause: error },
    );
  }
  const parsed = TokensFileSchema.safeParse(content ?? {});
  if (parsed.success) return parsed.data.identities;
  return fromZod(parsed.error, [], {
    root: '(file)',
    all: true,
    message: (lines) => `${tokensFile} is invalid: ${lines}. Fix or remove the entry.`,
  });
}

/** The startup token (identity `local`), following a token file that `sentinel tokens rotate local` rewrites. */
interface StartupToken {
  /** The current token's hash, or undefined when the server started without one. */
  hash(): string | undefined;
  /** Picks up a rotated startup token file (an unreadable or malformed one keeps the last token). */
  refresh(): void;
  /** Identity `local`, bound to the current token. */
  local(): Identity;
}

function startupToken(options: IdentityStoreOptions): StartupToken {
  const file = options.startupTokenFile;
  let hash = options.startupToken === undefined ? undefined : hashToken(options.startupToken);
  let stamp = file === undefined ? undefined : fileStamp(file);
  return {
    hash: () => hash,
    refresh() {
      if (file === undefined) return;
      const current = fileStamp(file);
      if (current === stamp) return;
      stamp = current;
      try {
        const text = readFileSync(file, 'utf8').trim();
        if (text.length >= 32) hash = hashToken(text);
      } catch {
        // keep the token the server has
      }
    },
    local: () => ({
      ...localIdentity,
      roles: [...localIdentity.roles],
      ...(hash !== undefined && { credential: credentialOf(hash) }),
    }),
  };
}

/** tokens.yaml as last read: its identities, or why it cannot be used. */
interface TokensFileView {
  /** Re-reads the file when its stat changed since the last read. */
  refresh(): void;
  /** The identities (empty while the file is broken). */
  records(): IdentityRecord[];
  /** Why the file cannot be used, or undefined. */
  loadError(): SentinelError | undefined;
}

function tokensFileView(options: IdentityStoreOptions, startup: StartupToken): TokensFileView {
  const { tokensFile, onLoadError } = options;
  const startupSource = options.startupTokenSource ?? 'the startup token';
  let stamp: string | undefined;
  let records: IdentityRecord[] = [];
  let loadError: SentinelError | undefined;
  return {
    refresh() {
      const current = fileStamp(tokensFile);
      if (current === stamp) return;
      stamp = current;
      loadError = undefined;
      records = [];
      if (current === 'missing') return;
      let result = readTokensFile(tokensFile);
      const startupHash = startup.hash();
      const clash =
        startupHash === undefined || result instanceof SentinelError
          ? undefined
          : result.find((record) => sameHash(record.token_sha256, startupHash));
      if (clash) result = startupTokenClash(tokensFile, clash.name, startupSource);
      if (result instanceof SentinelError) {
        loadError = result;
        onLoadError?.(result);
      } else {
        records = result;
      }
    },
    records: () => records,
    loadError: () => loadError,
  };
}

/**
 * Writes `identities` to `tokensFile` (mode 0600), replacing it whole. Throws
 * `SentinelError('invalid_input')` naming the file when it cannot be written (a read-only or
 * special data dir such as /proc/1): nothing is changed then.
 */
function saveTokensFile(tokensFile: string, identities: IdentityRecord[]): void {
  const text =
    '# Sentinel identities: managed by `sentinel tokens add|list|revoke`. Token hashes only.\n' +
    YAML.stringify({ identities } satisfies TokensFile);
  // Write-then-rename: a reader (the running server) never sees a half-written file.
  const temporary = `${tokensFile}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(tokensFile), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, text, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, tokensFile);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new SentinelError(
      'invalid_input',
      `Cannot write the tokens file ${tokensFile}: ${(error as Error).message}. Check --data-dir (or --tokens-file).`,
      { field: '--data-dir', cause: error },
    );
  }
}

/**
 * The record `add` stores for `input`, its token hash still a placeholder. Throws `invalid_input`
 * (bad name, role or webhook, naming the field; trust without a harness) or `conflict` (`local`).
 */
function newIdentityRecord(input: NewIdentity): IdentityRecord {
  const record = IdentityRecordSchema.safeParse({
    name: input.name,
    roles: input.roles,
    token_sha256: '0'.repeat(64),
    created_at: new Date().toISOString(),
    ...(input.trustUpstreamApproval && { trust_upstream_approval: true }),
    ...(input.upstreamHarness && { upstream_harness: input.upstreamHarness }),
    ...(input.webhook !== undefined && { webhook: input.webhook }),
  });
  if (!record.success) {
    throw fromZod(record.error, [], {
      root: '(file)',
      all: true,
      message: (lines) => `Cannot add identity '${input.name}': ${lines}.`,
    });
  }
  if (input.trustUpstreamApproval && !input.upstreamHarness) {
    throw new SentinelError(
      'invalid_input',
      `Cannot add identity '${input.name}': trust_upstream_approval needs a harness to verify approvals against (--upstream-harness <url>, with --upstream-harness-token-file for a harness that needs login); a token alone is never enough.`,
      { field: 'upstream_harness' },
    );
  }
  if (input.name === LOCAL_IDENTITY_NAME) {
    throw new SentinelError(
      'conflict',
      `'${LOCAL_IDENTITY_NAME}' is reserved for the server's startup token. Did you mean \`${sentinelCommand()} tokens rotate ${LOCAL_IDENTITY_NAME}\` (a new token in <data-dir>/local.token)? Else choose another name.`,
      { field: 'name' },
    );
  }
  return record.data;
}

/**
 * Gives `record` a fresh token and saves it into `identities` (replacing the record of that name,
 * or appended). Returns the identity and the token (shown once; only its hash is kept).
 */
function issueToken(
  tokensFile: string,
  identities: IdentityRecord[],
  record: IdentityRecord,
): { identity: Identity; token: string } {
  const token = generateToken();
  const stored = { ...record, token_sha256: hashToken(token) };
  const replaced = identities.some((identity) => identity.name === record.name);
  saveTokensFile(
    tokensFile,
    replaced
      ? identities.map((identity) => (identity.name === record.name ? stored : identity))
      : [...identities, stored],
  );
  return { identity: toIdentity(stored), token };
}

/**
 * `invalid_input` for `tokens revoke local`: `local` is the startup token, not an identity of the
 * file; as for `tokens add local`, the message points to rotate.
 */
function localNotRevocable(): SentinelError {
  return new SentinelError(
    'invalid_input',
    `'${LOCAL_IDENTITY_NAME}' is the server's startup token, not an identity in the tokens file: \`${sentinelCommand()} tokens rotate ${LOCAL_IDENTITY_NAME}\` replaces it (a new token in <data-dir>/local.token; the old one stops working at once).`,
    { field: 'name' },
  );
}

/** `not_found` for an identity missing from `tokensFile`. */
function noSuchIdentity(tokensFile: string, name: string): SentinelError {
  return new SentinelError(
    'not_found',
    `No identity named '${name}' in ${tokensFile}; \`${sentinelCommand()} tokens list\` shows what exists.`,
    { field: 'name' },
  );
}

/**
 * Opens the identity store backed by `tokensFile` (which need not exist yet). Never throws on open;
 * a broken file is reported through `onLoadError` and by the methods that need it (`list` throws
 * `invalid_input`, also when an identity holds the startup token).
 */
export function createIdentityStore(options: IdentityStoreOptions): IdentityStore {
  const { tokensFile } = options;
  const startup = startupToken(options);
  const file = tokensFileView(options, startup);
  const loaded = (): IdentityRecord[] => {
    file.refresh();
    const error = file.loadError();
    if (error) throw error;
    return file.records();
  };
  const changes = lockedChanges(tokensFile, loaded);
  return {
    tokensFile,
    ...changes,
    list: () => [...loaded()],
    get(name) {
      if (name === LOCAL_IDENTITY_NAME) return startup.local();
      file.refresh();
      if (file.loadError()) return undefined;
      const record = file.records().find((identity) => identity.name === name);
      return record && toIdentity(record);
    },
    lookupByToken(token) {
      const presented = hashToken(token);
      let found: Identity | undefined;
      startup.refresh();
      const startupHash = startup.hash();
      // Compare against every hash without stopping early, so timing does not reveal a match.
      if (startupHash !== undefined && sameHash(presented, startupHash)) found = startup.local();
      file.refresh();
      if (file.loadError()) return found;
      for (const record of file.records()) {
        if (sameHash(presented, record.token_sha256) && !found) found = toIdentity(record);
      }
      return found;
    },
    hasTokens() {
      file.refresh();
      return startup.hash() !== undefined || (!file.loadError() && file.records().length > 0);
    },
  };
}

/**
 * `add`, `revoke` and `rotate` of the identity store on `tokensFile` (`loaded`: its records as they
 * are now, read again when the file changed). Each reads the file and writes it back whole, so each
 * runs under `withTokensFileLock`: a change made meanwhile by another process is never overwritten.
 */
function lockedChanges(
  tokensFile: string,
  loaded: () => IdentityRecord[],
): Pick<IdentityStore, 'add' | 'revoke' | 'rotate'> {
  const addRecord = (input: NewIdentity): { identity: Identity; token: string } => {
    let record: ReturnType<typeof newIdentityRecord>;
    try {
      record = newIdentityRecord(input);
    } catch (error) {
      // A refused name close to one that exists ('Alice' for 'alice') names it.
      const near = didYouMean(
        input.name,
        loaded().map((existing) => existing.name),
      );
      if (!(error instanceof SentinelError) || !near) throw error;
      throw new SentinelError(error.code, `${error.message}${near}`, { field: 'name', cause: error });
    }
    const identities = loaded();
    if (identities.some((existing) => existing.name === input.name)) {
      throw new SentinelError(
        'conflict',
        `Identity '${input.name}' already exists. Did you mean \`${sentinelCommand()} tokens rotate ${input.name}\` (a new token, the old one stops working)? To change its roles, revoke it first (\`${sentinelCommand()} tokens revoke ${input.name}\`) and add it again.`,
        { field: 'name' },
      );
    }
    return issueToken(tokensFile, identities, record);
  };
  const revokeRecord = (name: string): void => {
    const identities = loaded();
    if (!identities.some((identity) => identity.name === name)) {
      throw name === LOCAL_IDENTITY_NAME ? localNotRevocable() : noSuchIdentity(tokensFile, name);
    }
    saveTokensFile(
      tokensFile,
      identities.filter((identity) => identity.name !== name),
    );
  };
  const rotateRecord = (name: string): { identity: Identity; token: string } => {
    const identities = loaded();
    const record = identities.find((identity) => identity.name === name);
    if (!record) throw noSuchIdentity(tokensFile, name);
    return issueToken(tokensFile, identities, record);
  };
  return {
    add: (input) => withTokensFileLock(tokensFile, () => addRecord(input)),
    revoke: (name) => withTokensFileLock(tokensFile, () => revokeRecord(name)),
    rotate: (name) => withTokensFileLock(tokensFile, () => rotateRecord(name)),
  };
}
