/**
 * UTF-8 byte offsets for the strict JSON reader's refusals (json.ts): where in the file a syntax
 * error or the first invalid byte sits. Error paths only; pure, runs in the browser too.
 */

/** UTF-8 length of `s.slice(0, end)`: turns a UTF-16 index into a byte offset for error messages. */
export function utf8Offset(s: string, end: number): number {
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Offset of the first byte that does not start a well-formed UTF-8 sequence (error path only). */
export function firstInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i] ?? 0;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0; // no overlong forms
      if (c === 0xed) hi = 0x9f; // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90; // no overlong forms
      if (c === 0xf4) hi = 0x8f; // nothing above U+10FFFF
    } else return i;
    if (i + need >= n) return i; // truncated sequence
    const b1 = b[i + 1] ?? 0;
    if (b1 < lo || b1 > hi) return i;
    for (let k = 2; k <= need; k++) {
      const bk = b[i + k] ?? 0;
      if (bk < 0x80 || bk > 0xbf) return i;
    }
    i += need + 1;
  }
  return n;
}
