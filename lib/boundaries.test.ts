/**
 * Keeps the layout's dependencies pointing inward (the rules and the checker:
 * test/support/boundaries.ts): the pure core imports no fs, SQLite, Next, React or outer layer;
 * components import no server code; the index imports neither the actions, the HTTP layer, the
 * alerts nor the pages' words; the query language stands alone; this machine's facts (lib/local)
 * sit below the index, the hub's channel set (lib/hub) above it; a route file (app/api,
 * app/metrics) is an adapter of an endpoint of lib/api. Every source file of lib/ledger, components,
 * lib/index, lib/alerts, lib/api, lib/query, lib/local, lib/hub, app/api and app/metrics is read; a
 * failure names the file, the line and the import.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeViolation, importsOf, resolveImport, violationsOf, type CheckContext, type KnownException } from '../test/support/boundaries';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Forbidden imports allowed for now, each with its reason; one that no longer occurs fails too. */
const KNOWN: readonly KnownException[] = [];

const repoContext: CheckContext = {
  exists: (p) => fs.statSync(path.join(ROOT, p), { throwIfNoEntry: false })?.isFile() ?? false,
  isServerOnly: (p) => {
    try {
      return importsOf(fs.readFileSync(path.join(ROOT, p), 'utf8')).some((i) => i.specifier === 'server-only');
    } catch {
      return false;
    }
  },
};

function sourcesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...sourcesUnder(rel));
    else if (/\.(ts|tsx|mjs)$/.test(e.name)) out.push(rel);
  }
  return out;
}

describe('the layout', () => {
  it('lib/ledger, components, lib/index, lib/alerts, lib/api, lib/query, lib/local, lib/hub and the route files import only what their layer may', () => {
    const files = ['lib/ledger', 'components', 'lib/index', 'lib/alerts', 'lib/api', 'lib/query', 'lib/local', 'lib/hub', 'app/api', 'app/metrics'].flatMap(sourcesUnder);
    expect(files.length).toBeGreaterThan(80);
    const found = files.flatMap((f) => violationsOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8'), repoContext));
    const known = (v: { file: string; target: string }) => KNOWN.some((k) => k.file === v.file && k.target === v.target);
    expect(found.filter((v) => !known(v)).map(describeViolation)).toEqual([]);
    // A known exception that no longer occurs is taken out of the list.
    expect(KNOWN.filter((k) => !found.some((v) => v.file === k.file && v.target === k.target)).map((k) => `${k.file} -> ${k.target}`)).toEqual([]);
  });
});

describe('the checker', () => {
  const files = new Set(['lib/index/db.ts', 'lib/index/queries.ts', 'lib/api/types.ts', 'lib/actions/apply.ts', 'lib/client/secret.ts', 'lib/ledger/derive.ts', 'lib/errors.ts', 'lib/alerts/store.ts', 'lib/alerts/status.ts', 'lib/ui/query.ts', 'lib/ui/labels.ts', 'lib/ledger/card.ts', 'lib/actions/write.ts', 'lib/index/channel-state.ts', 'lib/ledger/time.ts']);
  const ctx: CheckContext = { exists: (p) => files.has(p), isServerOnly: (p) => p === 'lib/client/secret.ts' };
  const check = (file: string, source: string) => violationsOf(file, source, ctx).map((v) => `${v.line} ${v.specifier} -> ${v.target}: ${v.why}`);

  it('reads static, type-only, re-exported, dynamic and required imports, with their lines, and nothing in comments or strings', () => {
    const src = [
      "// import fs from 'node:fs'",
      "/* await import('next') */",
      "import type { BoardResponse } from '../api/types';",
      "export * from './derive';",
      "const s = \"import x from 'react'\";",
      'async function f() {',
      "  await import('next/server');",
      "  return require('better-sqlite3');",
      '}',
    ].join('\n');
    expect(importsOf(src)).toEqual([
      { specifier: '../api/types', line: 3 },
      { specifier: './derive', line: 4 },
      { specifier: 'next/server', line: 7 },
      { specifier: 'better-sqlite3', line: 8 },
    ]);
  });

  it('resolves relative and @/ specifiers to repository files, and names packages without subpaths', () => {
    expect(resolveImport('lib/ledger/x.ts', '../index/db', ctx.exists)).toEqual({ kind: 'file', path: 'lib/index/db.ts' });
    expect(resolveImport('components/a/B.tsx', '@/lib/api/types', ctx.exists)).toEqual({ kind: 'file', path: 'lib/api/types.ts' });
    expect(resolveImport('lib/x.ts', 'node:fs/promises', ctx.exists)).toEqual({ kind: 'package', name: 'fs' });
    expect(resolveImport('lib/x.ts', '@tanstack/react-query', ctx.exists)).toEqual({ kind: 'package', name: '@tanstack/react-query' });
  });

  it('fails the core on fs, SQLite, Next, React, and the index, api or actions layers', () => {
    const bad = [
      "import fs from 'node:fs';",
      "import { readFileSync } from 'fs';",
      "import Database from 'better-sqlite3';",
      "import { NextResponse } from 'next/server';",
      "import { useState } from 'react';",
      "import { readDb } from '../index/db';",
      "import type { BoardResponse } from '../api/types';",
      "import { applyAction } from '@/lib/actions/apply';",
    ].join('\n');
    expect(check('lib/ledger/bad.ts', bad)).toEqual([
      '1 node:fs -> fs: node builtin fs',
      '2 fs -> fs: node builtin fs',
      '3 better-sqlite3 -> better-sqlite3: package better-sqlite3',
      '4 next/server -> next: package next',
      '5 react -> react: package react',
      '6 ../index/db -> lib/index/db.ts: lib/index is outside the core',
      '7 ../api/types -> lib/api/types.ts: lib/api is outside the core',
      '8 @/lib/actions/apply -> lib/actions/apply.ts: lib/actions is outside the core',
    ]);
    expect(check('lib/ledger/good.ts', "import { z } from 'zod';\nimport type { Card } from './derive';\nimport type { ErrorCode } from '../errors';")).toEqual([]);
  });

  it('fails a component on server code and on a server-only module, not on the API types', () => {
    const src = "import { board } from '@/lib/index/queries';\nimport { secret } from '@/lib/client/secret';\nimport type { Card } from '@/lib/api/types';\nimport fs from 'node:fs';";
    expect(check('components/board/Bad.tsx', src)).toEqual([
      '1 @/lib/index/queries -> lib/index/queries.ts: lib/index is server code',
      '2 @/lib/client/secret -> lib/client/secret.ts: lib/client/secret.ts is server-only',
      '4 node:fs -> fs: node builtin fs',
    ]);
  });

  it('fails the index on lib/actions and lib/api; its tests are exempt', () => {
    const src = "import { applyAction } from '../actions/apply';\nimport type { BoardResponse } from '../api/types';";
    expect(check('lib/index/bad.ts', src)).toEqual(['1 ../actions/apply -> lib/actions/apply.ts: lib/actions', '2 ../api/types -> lib/api/types.ts: lib/api']);
    expect(check('lib/index/bad.test.ts', src)).toEqual([]);
  });

  it('fails the index on lib/alerts and lib/ui, and the HTTP layer on lib/ui (the circle and the query language of the past)', () => {
    expect(check('lib/index/meta.ts', "import type { StoredAlertConfig } from '../alerts/store';")).toEqual(['1 ../alerts/store -> lib/alerts/store.ts: lib/alerts']);
    expect(check('lib/index/metrics-queries.ts', "import { alertsStatus } from '../alerts/status';")).toEqual(['1 ../alerts/status -> lib/alerts/status.ts: lib/alerts']);
    expect(check('lib/index/queries.ts', "import { groupQuery } from '../ui/query';")).toEqual(['1 ../ui/query -> lib/ui/query.ts: lib/ui is the words of the pages']);
    expect(check('lib/api/board-get.ts', "import { queryOfParams } from '../ui/query';")).toEqual(['1 ../ui/query -> lib/ui/query.ts: lib/ui is the words of the pages']);
    expect(check('lib/query/query.ts', "import { FLAG_LABEL } from '../ui/labels';\nimport { ATTENTION_FLAGS } from '../ledger/card';")).toEqual([
      '1 ../ui/labels -> lib/ui/labels.ts: lib/ui is outside the query language',
    ]);
  });

  it('fails a route file on anything but lib/api (its adapter and endpoint); its tests are exempt', () => {
    const src = "import { nextRoute } from '@/lib/api/next-route';\nimport { agents } from '@/lib/index/queries';\nimport { z } from 'zod';\nimport type { Card } from '@/lib/api/types';";
    const why = (p: string) => `${p} is not lib/api: a route's work is its endpoint's`;
    expect(check('app/api/agents/route.ts', src)).toEqual([`2 @/lib/index/queries -> lib/index/queries.ts: ${why('lib/index/queries.ts')}`, "3 zod -> zod: package zod: a route's work is its endpoint's"]);
    expect(check('app/metrics/route.ts', "import { readDb } from '@/lib/index/db';")).toEqual([`1 @/lib/index/db -> lib/index/db.ts: ${why('lib/index/db.ts')}`]);
    expect(check('app/api/agents/route.test.ts', src)).toEqual([]);
  });

  it('fails lib/local on the index and the acts (the reaper is lib/reaper)', () => {
    expect(check('lib/local/reap.ts', "import { appendLedgerLine } from '../actions/write';\nimport { channelStateOf } from '../index/channel-state';")).toEqual([
      '1 ../actions/write -> lib/actions/write.ts: lib/actions is a layer above',
      '2 ../index/channel-state -> lib/index/channel-state.ts: lib/index is a layer above',
    ]);
    expect(check('lib/local/liveness.ts', "import { parseTimestamp } from '../ledger/time';")).toEqual([]);
  });

  it('fails the index on lib/hub, and lib/hub on the layers above it', () => {
    expect(check('lib/index/db.ts', "import { ChannelSet } from '../hub/channel-set';")).toEqual(['1 ../hub/channel-set -> lib/hub/channel-set: lib/hub is a layer above']);
    expect(check('lib/hub/x.ts', "import { applyAction } from '../actions/apply';\nimport { readDb } from '../index/db';\nimport { canonicalName } from '../ledger/card';")).toEqual([
      '1 ../actions/apply -> lib/actions/apply.ts: lib/actions is a layer above',
    ]);
    expect(check('lib/ledger/x.ts', "import { ChannelSet } from '../hub/channel-set';")).toEqual(['1 ../hub/channel-set -> lib/hub/channel-set: lib/hub is outside the core']);
  });
});
