/**
 * A sentence with some order ids in it, cut into pieces so the page can link each id (the
 * derivation's notes name orders in words: "superseded by a-wisp-offered-2 (ops: …)"). Pure.
 */

/** One piece of a sentence: plain text, or an order id to link. */
export type Segment = { readonly text: string; readonly id?: undefined } | { readonly text: string; readonly id: string };

const isIdChar = (c: string | undefined) => c !== undefined && /[A-Za-z0-9._-]/.test(c);

/**
 * `text` cut at each whole-word occurrence of one of `ids` (an id inside a longer name, such as
 * `a-1` in `a-1-2`, is not one; a sentence's closing "." or ";" after an id is not part of it). The
 * longest id wins where two start at the same place. Joining the pieces' text gives `text` back.
 */
export function idSegments(text: string, ids: readonly string[]): Segment[] {
  const wanted = [...new Set(ids.filter((i) => i.length > 0))].sort((a, b) => b.length - a.length);
  const out: Segment[] = [];
  let plain = '';
  let i = 0;
  // An id ends a word where the next character is not a name character, or is a "." that ends the sentence.
  const endsWord = (j: number) => !isIdChar(text[j]) || (text[j] === '.' && !isIdChar(text[j + 1]));
  while (i < text.length) {
    const hit = isIdChar(text[i - 1]) ? undefined : wanted.find((id) => text.startsWith(id, i) && endsWord(i + id.length));
    if (hit) {
      if (plain) out.push({ text: plain });
      plain = '';
      out.push({ text: hit, id: hit });
      i += hit.length;
    } else {
      plain += text[i];
      i++;
    }
  }
  if (plain) out.push({ text: plain });
  return out;
}
