import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  forgetKey,
  KEY_STORAGE_ITEM,
  hubKeyGate,
  keyGate,
  loadKey,
  nameFromKeyFileName,
  parseOperatorName,
  parseSeed,
  publicKeyOf,
  saveKey,
  storageFor,
  type KeyStores,
  type OperatorInfo,
  type StorageLike,
} from './keys';

const keys = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../conformance/vectors/keys.json'), 'utf8')) as Record<string, { public_key: string; seed: string }>;
const ops = keys.ops!;
const fang = keys.fang!;

function memoryStorage(): StorageLike & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
  };
}
const stores = () => {
  const session = memoryStorage();
  const local = memoryStorage();
  return { session, local, stores: { session, local } as KeyStores };
};

describe('parseSeed', () => {
  it('accepts 64 hex digits, trims a trailing newline, lowercases', () => {
    expect(parseSeed(`${ops.seed}\n`)).toEqual({ ok: true, value: ops.seed });
    expect(parseSeed(`  ${ops.seed.toUpperCase()}  `)).toEqual({ ok: true, value: ops.seed });
  });

  it('refuses anything else with a reason that does not repeat the text', () => {
    const cases = ['', '   ', ops.seed.slice(0, 63), ops.seed + '0', `0x${ops.seed}`, ops.seed.replace(/^./, 'g'), JSON.stringify({ seed: ops.seed }), ops.seed + ops.seed];
    for (const c of cases) {
      const r = parseSeed(c);
      expect(r.ok, c).toBe(false);
      if (!r.ok) {
        expect(r.reason).toMatch(/64 hex digits/);
        if (c.length > 10) expect(r.reason).not.toContain(c.trim());
      }
    }
    const long = parseSeed(ops.seed + ops.seed);
    expect(long.ok === false && long.reason).toMatch(/128.*seed/);
    const short = parseSeed('abc');
    expect(short.ok === false && short.reason).toMatch(/this has 3/);
  });
});

describe('names', () => {
  it('takes the operator name from <name>.key (ferryman convention), canonical', () => {
    expect(nameFromKeyFileName('ops.key')).toBe('ops');
    expect(nameFromKeyFileName('Ops.KEY')).toBe('ops');
    expect(nameFromKeyFileName('night-shift.ops_2.key')).toBe('night-shift.ops_2');
    expect(nameFromKeyFileName('C:\\keys\\ops.key')).toBe('ops');
    expect(nameFromKeyFileName('/home/me/keys/fang.key')).toBe('fang');
  });

  it('gives no name when the file is not named <name>.key (the page asks)', () => {
    expect(nameFromKeyFileName('ops.txt')).toBeNull();
    expect(nameFromKeyFileName('seed')).toBeNull();
    expect(nameFromKeyFileName('.key')).toBeNull();
    expect(nameFromKeyFileName('my key.key')).toBeNull();
    expect(nameFromKeyFileName('...key')).toBeNull();
  });

  it('parses a typed operator name', () => {
    expect(parseOperatorName(' Ops ')).toEqual({ ok: true, value: 'ops' });
    expect(parseOperatorName('').ok).toBe(false);
    expect(parseOperatorName('a/b').ok).toBe(false);
    expect(parseOperatorName('..').ok).toBe(false);
  });
});

describe('storage', () => {
  it('uses sessionStorage by default, localStorage only when remembered', () => {
    expect(storageFor(false)).toBe('session');
    expect(storageFor(true)).toBe('local');
  });

  it('keeps the key in one place at a time and loads it back', () => {
    const s = stores();
    expect(saveKey(s.stores, { name: 'ops', seed: ops.seed }, false)).toBe('session');
    expect(s.session.map.has(KEY_STORAGE_ITEM)).toBe(true);
    expect(s.local.map.has(KEY_STORAGE_ITEM)).toBe(false);
    expect(loadKey(s.stores)).toEqual({ key: { name: 'ops', seed: ops.seed }, storage: 'session' });

    expect(saveKey(s.stores, { name: 'ops', seed: ops.seed }, true)).toBe('local');
    expect(s.session.map.has(KEY_STORAGE_ITEM)).toBe(false);
    expect(s.local.map.has(KEY_STORAGE_ITEM)).toBe(true);
    expect(loadKey(s.stores)).toEqual({ key: { name: 'ops', seed: ops.seed }, storage: 'local' });
  });

  it('prefers this tab over this device, and ignores malformed entries', () => {
    const s = stores();
    s.local.setItem(KEY_STORAGE_ITEM, JSON.stringify({ name: 'ops', seed: ops.seed }));
    s.session.setItem(KEY_STORAGE_ITEM, JSON.stringify({ name: 'fang', seed: fang.seed }));
    expect(loadKey(s.stores)?.key.name).toBe('fang');
    s.session.setItem(KEY_STORAGE_ITEM, 'not json');
    expect(loadKey(s.stores)?.key.name).toBe('ops');
    s.local.setItem(KEY_STORAGE_ITEM, JSON.stringify({ name: 'ops', seed: 'short' }));
    expect(loadKey(s.stores)).toBeNull();
  });

  it('"Forget key" clears both storages at once', () => {
    const s = stores();
    s.local.setItem(KEY_STORAGE_ITEM, JSON.stringify({ name: 'ops', seed: ops.seed }));
    s.session.setItem(KEY_STORAGE_ITEM, JSON.stringify({ name: 'ops', seed: ops.seed }));
    forgetKey(s.stores);
    expect(s.local.map.size + s.session.map.size).toBe(0);
    expect(loadKey(s.stores)).toBeNull();
  });

  it('survives a storage that throws (blocked by the browser)', () => {
    const throwing: StorageLike = {
      getItem: () => {
        throw new Error('blocked');
      },
      setItem: () => {
        throw new Error('blocked');
      },
      removeItem: () => {
        throw new Error('blocked');
      },
    };
    expect(loadKey({ session: throwing, local: throwing })).toBeNull();
    expect(() => forgetKey({ session: throwing, local: throwing })).not.toThrow();
  });
});

describe('keyGate', () => {
  const info = (over: Partial<OperatorInfo> = {}): OperatorInfo => ({
    name: 'ops',
    in_roster: true,
    is_operator: true,
    public_key: ops.public_key,
    ledger_prev: '',
    actions_enabled: true,
    demo_key_available: false,
    ...over,
  });
  const opsKey = { name: 'ops', seed: ops.seed };

  it('derives the public key from the seed', () => {
    expect(publicKeyOf(ops.seed)).toBe(ops.public_key);
    expect(publicKeyOf(fang.seed)).toBe(fang.public_key);
    expect(publicKeyOf('nope')).toBeNull();
  });

  it('offers actions to an operator whose key is its pinned key', () => {
    const g = keyGate(opsKey, publicKeyOf(ops.seed), info());
    expect(g).toEqual({ ok: true, code: 'ok', message: 'signed in as ops — operator of this channel ✓' });
  });

  it('says why not, in words', () => {
    expect(keyGate(null, null, null).code).toBe('no_key');
    expect(keyGate(opsKey, publicKeyOf(ops.seed), null).code).toBe('checking');
    expect(keyGate(opsKey, publicKeyOf(ops.seed), 'error').code).toBe('unreachable');
    expect(keyGate(opsKey, publicKeyOf(ops.seed), info({ actions_enabled: false })).message).toBe('read-only dashboard: this server accepts no operator actions');
    expect(keyGate({ name: 'zed', seed: ops.seed }, publicKeyOf(ops.seed), info({ name: 'zed', in_roster: false, is_operator: false, public_key: null })).message).toBe(
      'zed is not in the roster of this channel',
    );
    const fangGate = keyGate({ name: 'fang', seed: fang.seed }, publicKeyOf(fang.seed), info({ name: 'fang', is_operator: false, public_key: fang.public_key }));
    expect(fangGate).toMatchObject({ ok: false, code: 'not_operator', message: 'fang is not an operator of this channel' });
    const wrong = keyGate({ name: 'ops', seed: fang.seed }, publicKeyOf(fang.seed), info());
    expect(wrong).toMatchObject({ ok: false, code: 'key_mismatch', message: "this key is not ops's pinned key: the server would refuse its signatures" });
    expect(keyGate(opsKey, publicKeyOf(ops.seed), info({ public_key: null })).code).toBe('no_pinned_key');
  });

  it("says in a hub which channels the key is an operator of, and why not in each when none", () => {
    const each = (a: OperatorInfo | null | 'error', b: OperatorInfo | null | 'error') => [
      { channel: 'alpha', info: a },
      { channel: 'v01', info: b },
    ];
    const notIn = info({ in_roster: false, is_operator: false, public_key: null });
    expect(hubKeyGate(opsKey, publicKeyOf(ops.seed), each(info(), notIn))).toEqual({ ok: true, code: 'ok', message: 'signed in as ops — operator of alpha ✓; not of v01' });
    expect(hubKeyGate(opsKey, publicKeyOf(ops.seed), each(info(), info()))).toEqual({ ok: true, code: 'ok', message: 'signed in as ops — operator of alpha, v01 ✓' });
    expect(hubKeyGate(opsKey, publicKeyOf(ops.seed), each(info(), null)).code).toBe('checking');
    expect(hubKeyGate(opsKey, publicKeyOf(ops.seed), each(notIn, 'error'))).toEqual({
      ok: false,
      code: 'not_in_roster',
      message: 'ops is an operator of none of the 2 channels served here (alpha: ops is not in the roster of this channel; v01: could not ask the server about ops: actions are not offered until it answers)',
    });
    expect(hubKeyGate(null, null, each(info(), info())).code).toBe('no_key');
  });

  it('compares pinned keys case-insensitively', () => {
    expect(keyGate(opsKey, publicKeyOf(ops.seed), info({ public_key: ops.public_key.toUpperCase() })).ok).toBe(true);
  });
});
