/**
 * The migrations list (index.ts) against the modules beside it: the runner applies the list in
 * order, so a module left out of it, or listed out of order, would change what an index becomes.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MIGRATIONS } from './index';

const here = path.dirname(fileURLToPath(import.meta.url));

describe('the migrations list', () => {
  it('numbers the migrations 1, 2, 3, ... in the order they apply, each name once', () => {
    expect(MIGRATIONS.map((m) => m.id)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(new Set(MIGRATIONS.map((m) => m.name)).size).toBe(MIGRATIONS.length);
  });

  it('lists every migration module of the folder, each named by its id and name', () => {
    const modules = fs.readdirSync(here).filter((f) => /^\d+-.*\.ts$/.test(f) && !f.endsWith('.test.ts')).sort();
    const named = MIGRATIONS.map((m) => `${String(m.id).padStart(2, '0')}-${m.name.replaceAll('_', '-')}.ts`);
    expect(modules).toEqual(named);
  });
});
