/**
 * Strict, lossless JSON for ferryman records (its canonical serialization and digest:
 * canonical.ts).
 *
 * Pure and framework-free: no `fs`, no `node:` imports, no Buffer; runs in the browser too.
 *
 * `parseStrictJson` / `parseStrictJsonText` accept exactly what serde_json accepts (RFC 8259,
 * at most 127 nested arrays/objects, no lone surrogate escapes, numbers within f64 range),
 * and additionally refuse duplicate keys, a UTF-8 BOM and invalid UTF-8. Numbers keep their
 * token text, so canonical.ts writes them back exactly.
 */
import { firstInvalidUtf8, utf8Offset } from './utf8';

/** A JSON value parsed losslessly: numbers keep their token text. Objects keep entries in file order. */
export type JsonNode =
  | { readonly t: 'null' }
  | { readonly t: 'bool'; readonly v: boolean }
  | { readonly t: 'num'; readonly text: string }
  | { readonly t: 'str'; readonly v: string }
  | { readonly t: 'arr'; readonly items: readonly JsonNode[] }
  | { readonly t: 'obj'; readonly entries: readonly (readonly [string, JsonNode])[] };

export type StrictParse = { ok: true; node: JsonNode } | { ok: false; reason: string };

/**
 * serde_json's recursion limit: `remaining_depth` starts at 128 and is decremented before each
 * `[` / `{`, failing when it reaches 0, so at most 127 containers may be open at once.
 */
const MAX_DEPTH = 127;

const NULL_NODE: JsonNode = Object.freeze({ t: 'null' });
const TRUE_NODE: JsonNode = Object.freeze({ t: 'bool', v: true });
const FALSE_NODE: JsonNode = Object.freeze({ t: 'bool', v: false });

/** Above this many entries, duplicate keys are detected with a Set instead of a linear scan. */
const LINEAR_DUP_SCAN_MAX = 12;

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Thrown internally on the first syntax error only (never on the happy path); caught at the API boundary. */
class ParseFailure {
  constructor(
    readonly message: string,
    readonly at: number,
  ) {}
}

function describeChar(s: string, i: number): string {
  const c = s.codePointAt(i) ?? 0;
  return JSON.stringify(String.fromCodePoint(c));
}

function hexVal(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  const l = c | 0x20;
  if (l >= 0x61 && l <= 0x66) return l - 0x61 + 10;
  return -1;
}

class Parser {
  private i = 0;
  private depth = 0;
  private readonly n: number;

  constructor(private readonly s: string) {
    this.n = s.length;
  }

  private fail(message: string, at: number): never {
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- on purpose: not an Error, so no stack is captured per syntax error; parseText catches it
    throw new ParseFailure(message, at);
  }

  parseDocument(): JsonNode {
    this.skipWs();
    const node = this.parseValue();
    this.skipWs();
    if (this.i < this.n) this.fail('trailing characters after the JSON value', this.i);
    return node;
  }

  private skipWs(): void {
    const s = this.s;
    let i = this.i;
    while (i < this.n) {
      const c = s.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
    this.i = i;
  }

  /** Expects no leading whitespace. */
  private parseValue(): JsonNode {
    const i = this.i;
    if (i >= this.n) this.fail('unexpected end of input', i);
    const c = this.s.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
        return this.parseObject();
      case 0x5b: // [
        return this.parseArray();
      case 0x22: // "
        return { t: 'str', v: this.parseString() };
      case 0x74: // t
        if (this.s.startsWith('true', i)) {
          this.i = i + 4;
          return TRUE_NODE;
        }
        break;
      case 0x66: // f
        if (this.s.startsWith('false', i)) {
          this.i = i + 5;
          return FALSE_NODE;
        }
        break;
      case 0x6e: // n
        if (this.s.startsWith('null', i)) {
          this.i = i + 4;
          return NULL_NODE;
        }
        break;
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.parseNumber();
    }
    if (c === 0x74 || c === 0x66 || c === 0x6e) this.fail('invalid literal', i);
    return this.fail(`unexpected character ${describeChar(this.s, i)}`, i);
  }

  private enter(at: number): void {
    if (++this.depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`, at);
  }

  private parseArray(): JsonNode {
    const s = this.s;
    this.enter(this.i);
    this.i++;
    this.skipWs();
    const items: JsonNode[] = [];
    if (this.i < this.n && s.charCodeAt(this.i) === 0x5d) {
      this.i++;
      this.depth--;
      return { t: 'arr', items };
    }
    for (;;) {
      items.push(this.parseValue());
      this.skipWs();
      if (this.i >= this.n) this.fail('unexpected end of input in an array', this.i);
      const c = s.charCodeAt(this.i);
      if (c === 0x2c) {
        const comma = this.i;
        this.i++;
        this.skipWs();
        if (this.i < this.n && s.charCodeAt(this.i) === 0x5d) this.fail('trailing comma', comma);
        continue;
      }
      if (c === 0x5d) {
        this.i++;
        this.depth--;
        return { t: 'arr', items };
      }
      this.fail(`expected ',' or ']' but found ${describeChar(s, this.i)}`, this.i);
    }
  }

  private parseObject(): JsonNode {
    const s = this.s;
    this.enter(this.i);
    this.i++;
    this.skipWs();
    const entries: (readonly [string, JsonNode])[] = [];
    if (this.i < this.n && s.charCodeAt(this.i) === 0x7d) {
      this.i++;
      this.depth--;
      return { t: 'obj', entries };
    }
    let seen: Set<string> | undefined;
    for (;;) {
      const keyAt = this.i;
      if (keyAt >= this.n) this.fail('unexpected end of input in an object', keyAt);
      if (s.charCodeAt(keyAt) !== 0x22) {
        this.fail(`expected a string key but found ${describeChar(s, keyAt)}`, keyAt);
      }
      const key = this.parseString();
      // Duplicate keys are refused (stricter than serde_json, which keeps the last one).
      let dup = false;
      if (seen !== undefined) {
        dup = seen.has(key);
        seen.add(key);
      } else {
        for (let k = 0; k < entries.length; k++) {
          if ((entries[k] as readonly [string, JsonNode])[0] === key) {
            dup = true;
            break;
          }
        }
        if (entries.length >= LINEAR_DUP_SCAN_MAX) {
          seen = new Set(entries.map((e) => e[0]));
          seen.add(key);
        }
      }
      if (dup) this.fail(`duplicate key ${JSON.stringify(key)}`, keyAt);
      this.skipWs();
      if (this.i >= this.n) this.fail('unexpected end of input in an object', this.i);
      if (s.charCodeAt(this.i) !== 0x3a) {
        this.fail(`expected ':' but found ${describeChar(s, this.i)}`, this.i);
      }
      this.i++;
      this.skipWs();
      entries.push([key, this.parseValue()]);
      this.skipWs();
      if (this.i >= this.n) this.fail('unexpected end of input in an object', this.i);
      const c = s.charCodeAt(this.i);
      if (c === 0x2c) {
        const comma = this.i;
        this.i++;
        this.skipWs();
        if (this.i < this.n && s.charCodeAt(this.i) === 0x7d) this.fail('trailing comma', comma);
        continue;
      }
      if (c === 0x7d) {
        this.i++;
        this.depth--;
        return { t: 'obj', entries };
      }
      this.fail(`expected ',' or '}' but found ${describeChar(s, this.i)}`, this.i);
    }
  }

  /** At an opening quote; returns the decoded string and leaves `i` after the closing quote. */
  private parseString(): string {
    const s = this.s;
    const n = this.n;
    const start = this.i + 1;
    let i = start;
    // Fast path: no escapes.
    for (;;) {
      if (i >= n) this.fail('unterminated string', this.i);
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        this.i = i + 1;
        return s.slice(start, i);
      }
      if (c === 0x5c) break;
      if (c < 0x20) this.controlChar(c, i);
      if (c >= 0xd800 && c <= 0xdfff) i = this.rawSurrogate(c, i);
      else i++;
    }
    // Slow path: escapes present.
    let out = s.slice(start, i);
    let chunk = i;
    for (;;) {
      if (i >= n) this.fail('unterminated string', this.i);
      const c = s.charCodeAt(i);
      if (c === 0x22) {
        out += s.slice(chunk, i);
        this.i = i + 1;
        return out;
      }
      if (c === 0x5c) {
        out += s.slice(chunk, i);
        const escAt = i;
        if (i + 1 >= n) this.fail('unterminated string', this.i);
        const e = s.charCodeAt(i + 1);
        i += 2;
        switch (e) {
          case 0x22:
            out += '"';
            break;
          case 0x5c:
            out += '\\';
            break;
          case 0x2f:
            out += '/';
            break;
          case 0x62:
            out += '\b';
            break;
          case 0x66:
            out += '\f';
            break;
          case 0x6e:
            out += '\n';
            break;
          case 0x72:
            out += '\r';
            break;
          case 0x74:
            out += '\t';
            break;
          case 0x75: {
            const u = this.hex4(i, escAt);
            i += 4;
            if (u >= 0xd800 && u <= 0xdbff) {
              // A high surrogate escape must be followed by a low surrogate escape.
              if (i + 1 < n && s.charCodeAt(i) === 0x5c && s.charCodeAt(i + 1) === 0x75) {
                const lo = this.hex4(i + 2, i);
                if (lo >= 0xdc00 && lo <= 0xdfff) {
                  out += String.fromCharCode(u, lo);
                  i += 6;
                  break;
                }
              }
              this.fail(`lone surrogate escape \\u${u.toString(16)}`, escAt);
            }
            if (u >= 0xdc00 && u <= 0xdfff) {
              this.fail(`lone surrogate escape \\u${u.toString(16)}`, escAt);
            }
            out += String.fromCharCode(u);
            break;
          }
          default:
            this.fail('invalid escape in string', escAt);
        }
        chunk = i;
        continue;
      }
      if (c < 0x20) this.controlChar(c, i);
      if (c >= 0xd800 && c <= 0xdfff) i = this.rawSurrogate(c, i);
      else i++;
    }
  }

  private controlChar(c: number, at: number): never {
    const hex = c.toString(16).toUpperCase().padStart(4, '0');
    return this.fail(`unescaped control character U+${hex} in string`, at);
  }

  /**
   * A raw (unescaped) surrogate code unit: only possible for text input (decoded bytes are
   * well-formed). A proper pair is accepted; anything else is not representable in UTF-8.
   */
  private rawSurrogate(c: number, i: number): number {
    if (c <= 0xdbff && i + 1 < this.n) {
      const d = this.s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) return i + 2;
    }
    return this.fail('unpaired surrogate in string', i);
  }

  private hex4(i: number, escAt: number): number {
    const s = this.s;
    if (i + 4 > this.n) this.fail('invalid \\u escape', escAt);
    const a = hexVal(s.charCodeAt(i));
    const b = hexVal(s.charCodeAt(i + 1));
    const c = hexVal(s.charCodeAt(i + 2));
    const d = hexVal(s.charCodeAt(i + 3));
    if ((a | b | c | d) < 0) this.fail('invalid \\u escape', escAt);
    return (a << 12) | (b << 8) | (c << 4) | d;
  }

  private parseNumber(): JsonNode {
    const s = this.s;
    const n = this.n;
    const start = this.i;
    let i = start;
    if (s.charCodeAt(i) === 0x2d) i++;
    if (i >= n) this.fail('invalid number', start);
    let c = s.charCodeAt(i);
    if (c === 0x30) {
      i++;
      if (i < n) {
        const d = s.charCodeAt(i);
        if (d >= 0x30 && d <= 0x39) this.fail('leading zeros are not allowed', start);
      }
    } else if (c >= 0x31 && c <= 0x39) {
      i++;
      while (i < n && (c = s.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
    } else {
      this.fail('invalid number', start);
    }
    let isFloat = false;
    if (i < n && s.charCodeAt(i) === 0x2e) {
      i++;
      const digitsAt = i;
      while (i < n && (c = s.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
      if (i === digitsAt) this.fail('invalid number: expected a digit after the decimal point', start);
      isFloat = true;
    }
    if (i < n && (s.charCodeAt(i) | 0x20) === 0x65) {
      i++;
      if (i < n && ((c = s.charCodeAt(i)) === 0x2b || c === 0x2d)) i++;
      const digitsAt = i;
      while (i < n && (c = s.charCodeAt(i)) >= 0x30 && c <= 0x39) i++;
      if (i === digitsAt) this.fail('invalid number: expected a digit in the exponent', start);
      isFloat = true;
    }
    const text = s.slice(start, i);
    // An integer token of at most 20 characters is below 1e20 in magnitude: always finite.
    if ((isFloat || text.length > 20) && !Number.isFinite(Number(text))) {
      this.fail('number out of range', start);
    }
    this.i = i;
    return { t: 'num', text };
  }
}

function parseText(text: string): StrictParse {
  try {
    return { ok: true, node: new Parser(text).parseDocument() };
  } catch (e) {
    if (e instanceof ParseFailure) {
      return { ok: false, reason: `${e.message} at byte ${utf8Offset(text, e.at)}` };
    }
    return { ok: false, reason: `unparseable JSON (${e instanceof Error ? e.message : String(e)})` };
  }
}

/**
 * Strict parse of a record file's bytes: refuses a UTF-8 BOM, invalid UTF-8,
 * anything that is not RFC 8259 JSON (whitespace only space/tab/LF/CR, no trailing commas,
 * comments, NaN/Infinity, leading zeros, `+1`, `.5`, `5.`, unescaped control characters,
 * malformed or lone surrogate `\u` escapes, trailing non-whitespace), nesting deeper than 127
 * arrays/objects (serde_json's limit, counted from the top of the file), a number outside f64
 * range (`1e400`), and a duplicate key in any object (our rule, stricter than serde_json).
 * Numbers keep their token text. Never throws: on failure `reason` is one short English
 * sentence ending with the UTF-8 byte offset, e.g. `duplicate key "agent" at byte 57`.
 */
export function parseStrictJson(bytes: Uint8Array): StrictParse {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { ok: false, reason: 'file starts with a UTF-8 byte order mark at byte 0' };
  }
  let text: string;
  try {
    text = utf8Decoder.decode(bytes);
  } catch {
    return { ok: false, reason: `invalid UTF-8 at byte ${firstInvalidUtf8(bytes)}` };
  }
  return parseText(text);
}

/**
 * Same rules as `parseStrictJson`, for a string already decoded (used for ledger lines;
 * docs/channel-format.md/§3.2). A leading U+FEFF is refused (it is not JSON whitespace) and so is an
 * unpaired surrogate code unit (not representable in UTF-8). Byte offsets in `reason` are
 * offsets into the string's UTF-8 encoding. Never throws.
 */
export function parseStrictJsonText(text: string): StrictParse {
  return parseText(text);
}

/**
 * Plain JS value for schema validation: objects become plain objects
 * whose keys are all own enumerable properties (a `"__proto__"` key is defined with
 * `Object.defineProperty`, so it is data, not a prototype change), numbers become JS numbers
 * (`Number(text)`; integers past 2^53 lose precision, use the node for exact values), arrays
 * become arrays, strings/booleans/null as is. Never throws for a node from the parser.
 */
export function toPlain(node: JsonNode): unknown {
  switch (node.t) {
    case 'null':
      return null;
    case 'bool':
    case 'str':
      return node.v;
    case 'num':
      return Number(node.text);
    case 'arr':
      return node.items.map(toPlain);
    case 'obj': {
      const o: Record<string, unknown> = {};
      for (const [k, v] of node.entries) {
        if (k === '__proto__') {
          Object.defineProperty(o, k, {
            value: toPlain(v),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        } else {
          o[k] = toPlain(v);
        }
      }
      return o;
    }
  }
}

/**
 * The value of an object node's entry with exactly this key, or
 * undefined when the node is not an object or has no such key. Never throws.
 */
export function objectGet(node: JsonNode, key: string): JsonNode | undefined {
  if (node.t !== 'obj') return undefined;
  const entries = node.entries;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i] as readonly [string, JsonNode];
    if (e[0] === key) return e[1];
  }
  return undefined;
}
