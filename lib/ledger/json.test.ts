// Tests for lib/ledger/json.ts. Every expected value below was derived by hand
// from the rules (serde_json + ryu's format64), not by running the code under test.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type JsonNode, objectGet, parseStrictJson, parseStrictJsonText, toPlain } from './json';
import { canonicalJson, payloadDigest, sha256Hex, sha256HexOfText } from './canonical';

const enc = new TextEncoder();

function parse(text: string): JsonNode {
  const r = parseStrictJson(enc.encode(text));
  if (!r.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${r.reason}`);
  return r.node;
}

function canon(text: string): string {
  return canonicalJson(parse(text));
}

function refusal(input: string | Uint8Array): string {
  const r = parseStrictJson(typeof input === 'string' ? enc.encode(input) : input);
  if (r.ok) throw new Error(`expected a refusal for ${JSON.stringify(String(input))}`);
  return r.reason;
}

function nodeSha(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

const VECTORS = fileURLToPath(new URL('../../conformance/vectors/19-timestamps-and-payloads/channel/', import.meta.url));

describe('canonicalJson: numbers (serde_json Value + ryu format64)', () => {
  // Notation: value = 0.d × 10^kk, k = kk - len(d) (exponent of the last digit).
  it.each([
    // 100 → d="1", kk=3, k=2: 0<=k && kk<=16 → "1" + "00" + ".0"
    ['100.0', '100.0'],
    ['1E2', '100.0'],
    ['1.0', '1.0'],
    // 1e15 → d="1", kk=16, k=15 → "1" + 15 zeros + ".0"
    ['1e15', '1000000000000000.0'],
    // 1e16 → kk=17 > 16, one digit → "1e" + (kk-1)
    ['1e16', '1e16'],
    ['1e21', '1e21'],
    // d="15", kk=-6 → not in (-5,0], two digits → "1.5e-7"
    ['1.5e-7', '1.5e-7'],
    // 1e-5 → d="1", kk=-4 in (-5,0] → "0." + 4 zeros + "1"
    ['0.00001', '0.00001'],
    ['1e-5', '0.00001'],
    // 1.5e-5 → d="15", kk=-4 → "0.0000" + "15"
    ['1.5e-5', '0.000015'],
    // 1e-6 → kk=-5, not > -5 → "1e-6"
    ['0.000001', '1e-6'],
    // 0.1 → d="1", kk=0 → "0." + "" + "1"
    ['0.1', '0.1'],
    // 2.5 → d="25", kk=1, k=-1 → point inside: "2" + "." + "5"
    ['2.50', '2.5'],
    ['12.34', '12.34'],
    // 123e-2 is 1.23
    ['123e-2', '1.23'],
    // 123456.789e3 = 123456789 exactly, a float token → "123456789.0"
    ['123456.789e3', '123456789.0'],
    // float token with 16 digits: d="9999999999999998", kk=16, k=0 → digits + ".0"
    ['9999999999999998.0', '9999999999999998.0'],
    // 1.5e16 → d="15", kk=17 → "1.5e16"
    ['1.5e16', '1.5e16'],
    ['1.234e33', '1.234e33'],
    ['-1.5', '-1.5'],
    // smallest subnormal: shortest digits "5", exponent -324
    ['5e-324', '5e-324'],
    ['1.7976931348623157e308', '1.7976931348623157e308'],
    // underflow reads as (signed) zero in serde_json
    ['1e-400', '0.0'],
    ['-1e-400', '-0.0'],
    // zeros: "-0" is serde_json's F64(-0.0); "0" is the integer 0
    ['-0', '-0.0'],
    ['-0.0', '-0.0'],
    ['0', '0'],
    ['0.0', '0.0'],
    ['0e5', '0.0'],
    // integers (no '.', no e/E) that fit u64 / i64 are printed exactly
    ['100', '100'],
    ['-5', '-5'],
    ['9007199254740993', '9007199254740993'], // 2^53 + 1: not representable in f64, still exact
    ['18446744073709551615', '18446744073709551615'], // u64::MAX
    ['12345678901234567890', '12345678901234567890'], // 20 digits, below u64::MAX
    ['-9223372036854775808', '-9223372036854775808'], // i64::MIN
    // 2^64 is past u64 → float 18446744073709551616 (exact in f64); shortest digits that read
    // back as 2^64 are 1.8446744073709552e19 (17 digits), kk=20 > 16 → scientific
    ['18446744073709551616', '1.8446744073709552e19'],
    // -(2^63 + 1) is past i64 → f64 rounds to -2^63 = -9223372036854775808 → shortest
    // digits 9.223372036854776 (16 digits), kk=19 → scientific
    ['-9223372036854775809', '-9.223372036854776e18'],
  ])('%s → %s', (input, expected) => {
    expect(canon(input)).toBe(expected);
  });

  it('formats numbers inside containers the same way', () => {
    expect(canon('[1, 1.0, -0, 1e2, 0.5]')).toBe('[1,1.0,-0.0,100.0,0.5]');
  });

  it('refuses numbers out of f64 range', () => {
    expect(refusal('1e400')).toMatch(/number out of range at byte 0/);
    expect(refusal('-1e400')).toMatch(/number out of range/);
    expect(refusal('[0, 1e309]')).toBe('number out of range at byte 4');
    // an integer token of 401 digits is a float that overflows too
    expect(refusal('1' + '0'.repeat(400))).toMatch(/number out of range/);
    // exponent that does not fit any machine integer
    expect(refusal('1e99999999999999999999')).toMatch(/number out of range/);
  });

  it('canonicalJson throws RangeError for a hand-built out-of-range number node', () => {
    expect(() => canonicalJson({ t: 'num', text: '1e400' })).toThrow(RangeError);
  });
});

describe('canonicalJson: strings and keys', () => {
  it('escapes like serde_json / JSON.stringify', () => {
    expect(canon('"\\u0001"')).toBe('"\\u0001"');
    expect(canon('"\\u001F"')).toBe('"\\u001f"'); // lowercase hex
    expect(canon('"\\/"')).toBe('"/"'); // "/" is not escaped on output
    expect(canon('"\\u2028\\u2029"')).toBe('"\u2028\u2029"'); // raw U+2028/9
    expect(canon('"\\u007f"')).toBe('"\u007f"'); // raw DEL
    expect(canon('"\\u00e9"')).toBe('"é"'); // raw non-ASCII
    expect(canon('"\\b\\f\\n\\r\\t"')).toBe('"\\b\\f\\n\\r\\t"');
    expect(canon('"\\u0008\\u000C\\u000a"')).toBe('"\\b\\f\\n"');
    expect(canon('"\\"\\\\"')).toBe('"\\"\\\\"');
  });

  it('accepts a valid surrogate pair escape as the astral character', () => {
    const node = parse('"\\ud83d\\ude00"');
    expect(node).toEqual({ t: 'str', v: '😀' });
    expect(canonicalJson(node)).toBe('"😀"');
  });

  it('sorts keys by code point (UTF-8 bytes), not UTF-16 units', () => {
    // code points: "" < "z" (7A) < "é" (E9) < U+FFFD < U+1F600; in UTF-16 "😀" (D83D…) < U+FFFD
    expect(canon('{"😀":1,"\\uFFFD":2,"é":3,"z":4,"":5}')).toBe('{"":5,"z":4,"é":3,"�":2,"😀":1}');
    // U+E000 < U+1F600 by code point, although 0xE000 > 0xD83D as UTF-16 units
    expect(canon('{"😀":1,"\\ue000":2}')).toBe('{"\ue000":2,"😀":1}');
    // a key that is a prefix of another sorts first; uppercase before lowercase
    expect(canon('{"ab":1,"a":2,"B":3}')).toBe('{"B":3,"a":2,"ab":1}');
  });

  it('sorts nested objects recursively and keeps array order', () => {
    expect(canon('{"b":{"d":1,"c":[{"f":1,"e":2},3]},"a":0}')).toBe('{"a":0,"b":{"c":[{"e":2,"f":1},3],"d":1}}');
  });

  it('drops all whitespace', () => {
    expect(canon(' {\t"a" :\r\n [ 1 , 2 ] , "b" : { } }\n')).toBe('{"a":[1,2],"b":{}}');
  });
});

describe('the ferryman-signed vectors', () => {
  it('t1 order payload has the expected canonical form', () => {
    const r = parseStrictJson(readFileSync(VECTORS + 'tasks/t1/order.json'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const payload = objectGet(r.node, 'payload');
    expect(payload).toBeDefined();
    if (payload === undefined) return;
    // keys by code point: "" < "a" < "z" < "é" (E9) < "été" (E9 74 …) < "😀"
    expect(canonicalJson(payload)).toBe(
      '{"":{},"a":[100.0,1e21,1.5e-7,0.1,12345678901234567890],"z":1,"é":"naïve","été":true,"😀":null}',
    );
  });

  // The signatures are Ed25519 over docs/channel-format.md's signing strings, so they verify only if
  // D(payload) is exactly ferryman's digest. T(x) values are worked out by hand here.
  function verify(agentFile: string, message: string, signatureHex: string): boolean {
    const agent = JSON.parse(readFileSync(VECTORS + 'agents/' + agentFile, 'utf8')) as { public_key: string };
    const hex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));
    return nacl.sign.detached.verify(enc.encode(message), hex(signatureHex), hex(agent.public_key));
  }

  function loadRecord(path: string): { node: JsonNode; plain: Record<string, unknown> } {
    const r = parseStrictJson(readFileSync(VECTORS + path));
    if (!r.ok) throw new Error(r.reason);
    return { node: r.node, plain: toPlain(r.node) as Record<string, unknown> };
  }

  it("t1 order's signature verifies with our D(payload)", () => {
    const { node, plain } = loadRecord('tasks/t1/order.json');
    const payload = objectGet(node, 'payload');
    if (payload === undefined) throw new Error('no payload');
    const message = [
      'ferryman-order-v1',
      't1',
      'demo',
      'ops',
      '', // assigned_to absent
      '2026-11-20T09:00:00.123456789+00:00', // 11:00:00.123456789+02:00 in UTC, 9 fraction digits
      'false',
      payloadDigest(payload),
    ].join('\n');
    expect(verify('ops.json', message, plain.signature as string)).toBe(true);
    // sanity: a different digest does not verify
    expect(verify('ops.json', message.replace(/.$/, (c) => (c === '0' ? '1' : '0')), plain.signature as string)).toBe(
      false,
    );
  });

  it("t1 result's signature verifies (2.50 → 2.5, -0.0 stays -0.0)", () => {
    const { node, plain } = loadRecord('tasks/t1/result.fang.001.json');
    const payload = objectGet(node, 'payload');
    if (payload === undefined) throw new Error('no payload');
    expect(canonicalJson(payload)).toBe('{"count":3,"nested":{"a":-0.0,"b":[]},"ratio":2.5}');
    const message = [
      'ferryman-result-v1',
      't1',
      'fang',
      '1',
      '2026-11-20T09:30:00.500+00:00', // whole milliseconds → 3 digits
      payloadDigest(payload),
    ].join('\n');
    expect(verify('fang.json', message, plain.signature as string)).toBe(true);
  });

  it("t2 order's signature verifies (empty payload, contract/approval/depends lines)", () => {
    const { node, plain } = loadRecord('tasks/t2/order.json');
    const payload = objectGet(node, 'payload');
    if (payload === undefined) throw new Error('no payload');
    expect(payloadDigest(payload)).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    const message = [
      'ferryman-order-v1',
      't2',
      'demo',
      'ops',
      '',
      '2026-11-20T09:00:00+00:00', // zero fraction → no fraction digits
      'false',
      payloadDigest(payload),
      'contract:["summary","ratio"]',
      'approval:true',
      'depends:["t1"]',
    ].join('\n');
    expect(verify('ops.json', message, plain.signature as string)).toBe(true);
  });
});

describe('digests', () => {
  it('D({}) is the known SHA-256 of "{}"', () => {
    expect(payloadDigest(parse('{}'))).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
    expect(payloadDigest(parse(' { } '))).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });

  it('D(x) equals node:crypto SHA-256 of the hand-derived canonical string', () => {
    const node = parse('{"b": [1.50, -0, "x\\u00e9\\n"], "a": {"😀": 1e21, "z": null}}');
    const expected = '{"a":{"z":null,"😀":1e21},"b":[1.5,-0.0,"xé\\n"]}';
    expect(canonicalJson(node)).toBe(expected);
    expect(payloadDigest(node)).toBe(nodeSha(expected));
    expect(payloadDigest(node)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sha256Hex / sha256HexOfText match standard vectors', () => {
    expect(sha256Hex(new Uint8Array())).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256HexOfText('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(enc.encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256HexOfText('naïve 😀')).toBe(nodeSha('naïve 😀'));
  });
});

describe('strict parsing', () => {
  it('refuses duplicate keys, also nested, with the byte offset of the key', () => {
    expect(refusal('{"a":1,"a":2}')).toBe('duplicate key "a" at byte 7');
    // "é" is 2 bytes: the second key's quote is at byte 8 (UTF-16 index 7)
    expect(refusal('{"é":1,"é":2}')).toBe('duplicate key "é" at byte 8');
    expect(refusal('{"x":{"agent":1,"agent":1}}')).toMatch(/^duplicate key "agent" at byte \d+$/);
    expect(refusal('[{"a":1},{"b":1,"b":2}]')).toMatch(/duplicate key "b"/);
    // same key written with an escape is still a duplicate
    expect(refusal('{"é":1,"\\u00e9":2}')).toMatch(/duplicate key "é"/);
    // duplicates past the linear-scan threshold (Set path)
    const many = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',');
    expect(parseStrictJson(enc.encode(`{${many}}`)).ok).toBe(true);
    expect(refusal(`{${many},"k3":0}`)).toMatch(/duplicate key "k3"/);
    expect(refusal(`{${many},"k39":0}`)).toMatch(/duplicate key "k39"/);
  });

  it('refuses a UTF-8 BOM and invalid UTF-8', () => {
    expect(refusal(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toMatch(/byte order mark/);
    expect(refusal(new Uint8Array([0x22, 0xc3, 0x28, 0x22]))).toBe('invalid UTF-8 at byte 1');
    expect(refusal(new Uint8Array([0x22, 0xc0, 0x80, 0x22]))).toMatch(/invalid UTF-8/); // overlong NUL
    expect(refusal(new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22]))).toMatch(/invalid UTF-8/); // CESU surrogate
    expect(refusal(new Uint8Array([0x22, 0x61, 0xe2, 0x82]))).toBe('invalid UTF-8 at byte 2'); // truncated
    expect(refusal(new Uint8Array([0x22, 0xff, 0x22]))).toMatch(/invalid UTF-8 at byte 1/);
    // a BOM in the middle of a string is just U+FEFF
    expect(canonicalJson(parse('"\uFEFF"'))).toBe('"\uFEFF"');
  });

  it('refuses lone surrogate escapes', () => {
    expect(refusal('"\\ud800"')).toMatch(/lone surrogate/);
    expect(refusal('"\\udc00"')).toMatch(/lone surrogate/);
    expect(refusal('"\\ud800x"')).toMatch(/lone surrogate/);
    expect(refusal('"\\ud800\\u0041"')).toMatch(/lone surrogate/);
    expect(refusal('"\\ud800\\ud800"')).toMatch(/lone surrogate/);
    expect(refusal('"\\ude00\\ud83d"')).toMatch(/lone surrogate/); // reversed pair
    expect(refusal('{"\\udc00":1}')).toMatch(/lone surrogate/);
  });

  it('enforces serde_json depth: 127 nested containers ok, 128 refused', () => {
    expect(parseStrictJson(enc.encode('['.repeat(127) + ']'.repeat(127))).ok).toBe(true);
    expect(refusal('['.repeat(128) + ']'.repeat(128))).toBe('nesting deeper than 127 levels at byte 127');
    // counts from the top of the file: the record object is level 1
    expect(parseStrictJson(enc.encode('{"payload":' + '{"a":'.repeat(126) + '1' + '}'.repeat(127))).ok).toBe(true);
    expect(refusal('{"payload":' + '{"a":'.repeat(127) + '1' + '}'.repeat(128))).toMatch(/nesting deeper than 127/);
    // mixing arrays and objects
    expect(refusal('[{"a":'.repeat(64) + '1' + '}]'.repeat(64))).toMatch(/nesting deeper than 127/);
  });

  it('refuses 100,000 "[" cleanly without throwing', () => {
    const bytes = enc.encode('['.repeat(100_000));
    let r: ReturnType<typeof parseStrictJson> | undefined;
    expect(() => {
      r = parseStrictJson(bytes);
    }).not.toThrow();
    expect(r?.ok).toBe(false);
    expect(parseStrictJsonText('{"a":'.repeat(100_000)).ok).toBe(false);
  });

  it.each([
    ['', /unexpected end of input at byte 0/],
    ['   ', /unexpected end of input/],
    ['{} x', /trailing characters after the JSON value at byte 3/],
    ['{}{}', /trailing characters/],
    ['1 2', /trailing characters/],
    ['01', /leading zeros are not allowed at byte 0/],
    ['-01', /leading zeros/],
    ['[00]', /leading zeros/],
    ['+1', /unexpected character "\+"/],
    ['.5', /unexpected character "\."/],
    ['5.', /expected a digit after the decimal point/],
    ['1e', /expected a digit in the exponent/],
    ['1e+', /expected a digit in the exponent/],
    ['-', /invalid number/],
    ['-a', /invalid number/],
    ['NaN', /unexpected character "N"/],
    ['Infinity', /unexpected character/],
    ['-Infinity', /invalid number/],
    ['[1,]', /trailing comma at byte 2/],
    ['{"a":1,}', /trailing comma/],
    ['[,1]', /unexpected character ","/],
    ['[1 2]', /expected ',' or '\]'/],
    ['{"a" 1}', /expected ':'/],
    ['{"a":1 "b":2}', /expected ',' or '}'/],
    ['{a:1}', /expected a string key/],
    ["{'a':1}", /expected a string key/],
    ['[1] // c', /trailing characters/],
    ['/* c */ 1', /unexpected character "\/"/],
    ['tru', /invalid literal/],
    ['True', /unexpected character "T"/],
    ['nul', /invalid literal/],
    ['[', /unexpected end of input/],
    ['{"a":', /unexpected end of input/],
    ['"abc', /unterminated string/],
    ['"a\u0001b"', /unescaped control character U\+0001 in string at byte 2/],
    ['"a\tb"', /unescaped control character U\+0009/],
    ['"a\nb"', /unescaped control character U\+000A/],
    ['"\\x41"', /invalid escape/],
    ['"\\\'"', /invalid escape/],
    ['"\\u12"', /invalid \\u escape/],
    ['"\\u12g4"', /invalid \\u escape/],
    ['"\\U0041"', /invalid escape/],
    ['\f1', /unexpected character/], // form feed is not JSON whitespace
    ['\u00a01', /unexpected character/], // NBSP is not JSON whitespace
    ['\u20281', /unexpected character/],
  ])('refuses %j', (input, reason) => {
    expect(refusal(input)).toMatch(reason);
  });

  it('accepts any value at the top level and the four whitespace characters', () => {
    expect(parse(' \t\r\n1 \t\r\n')).toEqual({ t: 'num', text: '1' });
    expect(parse('"s"')).toEqual({ t: 'str', v: 's' });
    expect(parse('true')).toEqual({ t: 'bool', v: true });
    expect(parse('null')).toEqual({ t: 'null' });
  });

  it('keeps number token text and object entry order', () => {
    expect(parse('{"b":1.50,"a":1E2,"c":-0}')).toEqual({
      t: 'obj',
      entries: [
        ['b', { t: 'num', text: '1.50' }],
        ['a', { t: 'num', text: '1E2' }],
        ['c', { t: 'num', text: '-0' }],
      ],
    });
  });

  it('parseStrictJsonText applies the same rules to a string', () => {
    const r = parseStrictJsonText('{"kind":"note","prev":""}');
    expect(r.ok).toBe(true);
    expect(parseStrictJsonText('{"a":1,"a":1}')).toEqual({ ok: false, reason: 'duplicate key "a" at byte 7' });
    expect(parseStrictJsonText('\uFEFF{}').ok).toBe(false); // a decoded BOM is not whitespace
    expect(parseStrictJsonText('"\uD800"').ok).toBe(false); // raw lone surrogate: not UTF-8
    expect(parseStrictJsonText('"\uDE00\uD83D"').ok).toBe(false);
    expect(parseStrictJsonText('"\uD83D\uDE00"')).toEqual({ ok: true, node: { t: 'str', v: '😀' } });
  });

  it('never throws on arbitrary bytes', () => {
    // deterministic pseudo-random inputs built from JSON-ish fragments and raw bytes
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    const parts = ['{', '}', '[', ']', '"', ':', ',', '\\', 'u', 'd800', '1', '-', '0', '.', 'e', ' ', 'true', 'é'];
    for (let t = 0; t < 3000; t++) {
      let s = '';
      const len = rnd(20);
      for (let k = 0; k < len; k++) s += parts[rnd(parts.length)];
      const bytes = enc.encode(s);
      if (t % 3 === 0 && bytes.length > 0) bytes[rnd(bytes.length)] = rnd(256);
      expect(() => parseStrictJson(bytes)).not.toThrow();
      const r = parseStrictJson(bytes);
      if (r.ok) expect(() => canonicalJson(r.node)).not.toThrow();
    }
  });
});

describe('toPlain and objectGet', () => {
  it('keeps a "__proto__" key as an own data property that zod accepts', () => {
    const node = parse('{"__proto__":{"x":1},"a":[1,"s",true,null,2.5]}');
    const plain = toPlain(node) as Record<string, unknown>;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(Object.hasOwn(plain, '__proto__')).toBe(true);
    expect(Object.keys(plain)).toEqual(['__proto__', 'a']);
    expect(Object.getOwnPropertyDescriptor(plain, '__proto__')?.value).toEqual({ x: 1 });
    expect(plain.a).toEqual([1, 's', true, null, 2.5]);
    expect(z.object({ a: z.array(z.unknown()) }).safeParse(plain).success).toBe(true);
    expect(z.looseObject({}).safeParse(plain).success).toBe(true);
    // the prototype pollution that a naive assignment would cause did not happen
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('converts numbers with Number(text)', () => {
    expect(toPlain(parse('[1E2, -0, 12345678901234567890]'))).toEqual([100, -0, 12345678901234567000]);
  });

  it('objectGet finds an entry by key', () => {
    const node = parse('{"a":1,"b":{"c":null}}');
    expect(objectGet(node, 'a')).toEqual({ t: 'num', text: '1' });
    expect(objectGet(node, 'b')).toEqual({ t: 'obj', entries: [['c', { t: 'null' }]] });
    expect(objectGet(node, 'c')).toBeUndefined();
    expect(objectGet(parse('[1]'), '0')).toBeUndefined();
  });
});
