/** The rulebook as the table of docs/channel-format.md (flags/doc.test.ts keeps the two equal). */
import { RULEBOOK } from '.';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export const DOC_BEGIN = '<!-- rulebook: generated from lib/ledger/flags by `WRITE_DOCS=1 npx vitest run lib/ledger/flags/doc.test.ts`; do not edit -->';
export const DOC_END = '<!-- rulebook end -->';

/** One row per flag: its badge, rule, meaning, the ferry code it follows and the clocks it reads. */
export function rulebookTable(): string {
  const rows = RULEBOOK.map((r) => `| \`${r.flag}\` (${cell(r.label)}) | ${cell(r.rule)} | ${cell(r.glossary)} | ${cell(r.ferry)} | ${cell(r.clocks)} |`);
  return [DOC_BEGIN, '| flag | rule | what it means (glossary) | ferry code | clocks |', '|---|---|---|---|---|', ...rows, DOC_END].join('\n');
}
