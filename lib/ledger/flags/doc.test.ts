/** docs/channel-format.md lists each flag with its rule and words as the rulebook states them. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_BEGIN, DOC_END, rulebookTable } from './doc';

const DOC = path.resolve(import.meta.dirname, '../../../docs/channel-format.md');

describe('docs/channel-format.md', () => {
  it('holds the rulebook table as generated', () => {
    const text = fs.readFileSync(DOC, 'utf8');
    const start = text.indexOf(DOC_BEGIN);
    const end = text.indexOf(DOC_END);
    expect(start, 'the rulebook markers').toBeGreaterThanOrEqual(0);
    const now = text.slice(start, end + DOC_END.length);
    if (process.env.WRITE_DOCS === '1' && now !== rulebookTable()) fs.writeFileSync(DOC, text.replace(now, rulebookTable()));
    else expect(now).toBe(rulebookTable());
  });
});
