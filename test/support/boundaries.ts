/**
 * The dependency rules of the layout (README "Layout") as a checker over source text,
 * for lib/boundaries.test.ts: which modules the pure core, the presentational components and
 * the index may import. Imports are read with TypeScript's own pre-processor (static imports,
 * `import type`, `export ... from`, `import('…')`, `require('…')`; never what sits in a comment
 * or a string), relative and `@/` specifiers resolved to repository paths.
 *
 * Test files (`*.test.ts(x)`) are exempt: a test may set up with anything.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

/** One import of a file: its specifier as written and its line (1-based). */
export interface ImportRef {
  readonly specifier: string;
  readonly line: number;
}

/** The imports of a source text. */
export function importsOf(source: string): ImportRef[] {
  const lineOf = (pos: number) => source.slice(0, pos).split('\n').length;
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => ({ specifier: f.fileName, line: lineOf(f.pos) }));
}

/** What an import names: a file of this repository (its path from the root, `/`-separated) or a package. */
export type Target = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'package'; readonly name: string };

const BUILTINS = new Set(builtinModules.filter((m) => !m.startsWith('_')).map((m) => m.split('/')[0] ?? m));
const EXTENSIONS = ['', '.ts', '.tsx', '.mjs', '.js', '/index.ts', '/index.tsx'];

/**
 * The target of `specifier` imported by `file` (repository path): relative and `@/` specifiers
 * become the repository file they resolve to (the first of the TypeScript extensions `exists`
 * accepts, else the path as written); anything else is a package, named without its subpath
 * (`node:fs/promises` is `fs`, `next/server` is `next`, `@scope/pkg/x` is `@scope/pkg`).
 */
export function resolveImport(file: string, specifier: string, exists: (repoPath: string) => boolean): Target {
  const local = specifier.startsWith('@/') ? specifier.slice(2) : specifier.startsWith('.') ? path.posix.join(path.posix.dirname(file), specifier) : null;
  if (local !== null) {
    const base = path.posix.normalize(local);
    return { kind: 'file', path: EXTENSIONS.map((e) => base + e).find(exists) ?? base };
  }
  const bare = specifier.replace(/^node:/, '');
  const parts = bare.split('/');
  return { kind: 'package', name: bare.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? bare) };
}

/** Which files a rule governs and why a target is forbidden to them (null: allowed). */
export interface Rule {
  readonly name: string;
  /** Repository path prefix of the files it governs. */
  readonly files: string;
  readonly forbids: (target: Target, ctx: CheckContext) => string | null;
}

/** What the checker needs to know of the repository. */
export interface CheckContext {
  readonly exists: (repoPath: string) => boolean;
  /** Whether the repository file imports 'server-only' (Next.js refuses it in a browser bundle). */
  readonly isServerOnly: (repoPath: string) => boolean;
}

const under = (t: Target, prefixes: readonly string[]): string | undefined =>
  t.kind === 'file' ? prefixes.find((p) => t.path === p || t.path.startsWith(`${p}/`)) : undefined;
const packageIn = (t: Target, names: readonly string[]): string | undefined => (t.kind === 'package' ? names.find((n) => t.name === n) : undefined);

/** Code that touches the disk, SQLite, the environment or the server (the outer layers). */
const SERVER_CODE = ['lib/index', 'lib/actions', 'lib/alerts', 'lib/fs', 'lib/demo', 'lib/hub', 'lib/config.ts'];

/** The layering rules (docs/architecture.md), and that the index does not import the HTTP layer. */
export const RULES: readonly Rule[] = [
  {
    name: 'lib/ledger is pure (no fs, SQLite, Next, React, environment, or outer layer)',
    files: 'lib/ledger/',
    forbids: (t) => {
      // No node builtin at all: the core also runs in the browser (the dialogs build actions with it).
      if (t.kind === 'package' && BUILTINS.has(t.name)) return `node builtin ${t.name}`;
      const pkg = packageIn(t, ['better-sqlite3', 'next', 'react', 'react-dom', 'server-only']);
      if (pkg) return `package ${pkg}`;
      const dir = under(t, ['lib/api', 'lib/client', ...SERVER_CODE]);
      return dir ? `${dir} is outside the core` : null;
    },
  },
  {
    name: 'components/ are presentational (no server code)',
    files: 'components/',
    forbids: (t, ctx) => {
      if (t.kind === 'package' && BUILTINS.has(t.name)) return `node builtin ${t.name}`;
      const pkg = packageIn(t, ['better-sqlite3', 'server-only']);
      if (pkg) return `package ${pkg}`;
      const dir = under(t, SERVER_CODE);
      if (dir) return `${dir} is server code`;
      return t.kind === 'file' && ctx.isServerOnly(t.path) ? `${t.path} is server-only` : null;
    },
  },
  {
    name: 'lib/index does not import lib/actions (the index is read by the actions, not the other way)',
    files: 'lib/index/',
    forbids: (t) => (under(t, ['lib/actions']) ? 'lib/actions' : null),
  },
  {
    name: 'lib/index does not import lib/api (its types are lib/index/types.ts)',
    files: 'lib/index/',
    forbids: (t) => (under(t, ['lib/api']) ? 'lib/api' : null),
  },
  {
    name: 'lib/alerts does not import components/ (the words it pages with live in lib)',
    files: 'lib/alerts/',
    forbids: (t) => (under(t, ['components']) ? 'components/ is the UI' : null),
  },
  {
    name: 'lib/index does not import lib/alerts (the alerts read the index, not the other way)',
    files: 'lib/index/',
    forbids: (t) => (under(t, ['lib/alerts']) ? 'lib/alerts' : null),
  },
  {
    name: 'lib/index does not import lib/ui (the query language is lib/query)',
    files: 'lib/index/',
    forbids: (t) => (under(t, ['lib/ui']) ? 'lib/ui is the words of the pages' : null),
  },
  {
    name: 'lib/api does not import lib/ui (the query language is lib/query)',
    files: 'lib/api/',
    forbids: (t) => (under(t, ['lib/ui']) ? 'lib/ui is the words of the pages' : null),
  },
  {
    name: 'lib/query is the query language alone (no words of the pages, no server code)',
    files: 'lib/query/',
    forbids: (t) => {
      const dir = under(t, ['lib/ui', 'components', 'lib/api', 'lib/client', ...SERVER_CODE]);
      return dir ? `${dir} is outside the query language` : null;
    },
  },
  {
    name: 'lib/index does not import lib/hub (an index reads one channel; the hub, above it, holds several)',
    files: 'lib/index/',
    forbids: (t) => (under(t, ['lib/hub']) ? 'lib/hub is a layer above' : null),
  },
  {
    name: 'lib/hub (the channel set) does not import the layers that name its channels (HTTP, acts, alerts, pages)',
    files: 'lib/hub/',
    forbids: (t) => {
      const dir = under(t, ['lib/api', 'lib/actions', 'lib/alerts', 'lib/client', 'lib/ui', 'components']);
      return dir ? `${dir} is a layer above` : null;
    },
  },
  {
    name: "lib/local (this machine's facts) does not import lib/index or lib/actions (the reaper, lib/reaper, uses all three)",
    files: 'lib/local/',
    forbids: (t) => {
      const dir = under(t, ['lib/index', 'lib/actions', 'lib/reaper']);
      return dir ? `${dir} is a layer above` : null;
    },
  },
  {
    name: 'app/api route files are adapters of lib/api endpoints (lib/api/next-route.ts and the endpoints, nothing else)',
    files: 'app/api/',
    forbids: (t) => routeImport(t),
  },
  {
    name: 'app/metrics is an adapter of a lib/api endpoint (lib/api/next-route.ts and the endpoint, nothing else)',
    files: 'app/metrics/',
    forbids: (t) => routeImport(t),
  },
];

/** Why a route file may not import `t` (it imports the adapter and its endpoint from lib/api only), or null. */
function routeImport(t: Target): string | null {
  if (t.kind === 'package') return `package ${t.name}: a route's work is its endpoint's`;
  return under(t, ['lib/api']) ? null : `${t.path} is not lib/api: a route's work is its endpoint's`;
}

/** One forbidden import. */
export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly specifier: string;
  /** The target as a repository path or package name. */
  readonly target: string;
  readonly rule: string;
  readonly why: string;
}

/** A forbidden import that is known and allowed for now, with the reason. */
export interface KnownException {
  readonly file: string;
  readonly target: string;
  readonly reason: string;
}

/** The forbidden imports of `file` (repository path) whose text is `source`, under `rules`. */
export function violationsOf(file: string, source: string, ctx: CheckContext, rules: readonly Rule[] = RULES): Violation[] {
  if (/\.test\.tsx?$/.test(file)) return [];
  const governing = rules.filter((r) => file.startsWith(r.files));
  if (governing.length === 0) return [];
  const out: Violation[] = [];
  for (const imp of importsOf(source)) {
    const target = resolveImport(file, imp.specifier, ctx.exists);
    for (const rule of governing) {
      const why = rule.forbids(target, ctx);
      if (why) out.push({ file, line: imp.line, specifier: imp.specifier, target: target.kind === 'file' ? target.path : target.name, rule: rule.name, why });
    }
  }
  return out;
}

/** A violation as one line: `file:line imports 'specifier' (why): rule`. */
export const describeViolation = (v: Violation): string => `${v.file}:${v.line} imports '${v.specifier}' (${v.why}): ${v.rule}`;
