/**
 * Writes that cannot hurt the fleet: writeNewFile,
 * replaceOwnFile and appendLedgerLine against a folder that changes underneath them, a leftover
 * temp file from a crash, a full disk and a read-only folder. Whatever happens: never a partial
 * record at the final path, never another writer's file overwritten, never a delete, and every
 * failure a clear WriteError with the folder byte-for-byte as it was (no temp file left behind).
 *
 * The full disk is a 64 KiB tmpfs mounted for this file, the read-only folder that tmpfs
 * remounted read-only (root ignores permission bits, so chmod proves nothing). Where mounting is
 * impossible the tests say so in their names and simulate the errors instead.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { appendLedgerLine, ledgerPrevOf, replaceOwnFile, writeNewFile, WriteError } from './write';
import { ChannelBuilder } from '../../test/support/channel-builder';
import { folderSnapshot } from '../../test/support/folder';
import { deriveChannel } from '../ledger/channel';
import { nodeVerify } from '../index/disk/node-verify';
import { readChannel } from '../index/disk/read-channel';
import { deriveSubset } from './apply';

const enc = (s: string) => new TextEncoder().encode(s);

let dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  dirs = [];
});

/** A channel on disk (a claimed order, the operator's ledger), in `parent` or a new temp dir. */
function channel(parent?: string): string {
  const root = parent ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-'));
  if (!parent) dirs.push(root);
  const b = new ChannelBuilder().roster().order('t1').claim('t1', 'fang').heartbeat('t1', 'fang').ledger('ops', ['first']);
  for (const [p, e] of b.files) {
    fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true });
    fs.writeFileSync(path.join(root, p), e.bytes ?? '');
  }
  return root;
}


const tempsIn = (dir: string) => fs.readdirSync(dir).filter((n) => n.endsWith('.tmp'));

/** Runs `f`, which must throw a WriteError with `code`; returns it. */
function refused(code: WriteError['code'], f: () => void): WriteError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(WriteError);
    expect((e as WriteError).code, (e as Error).message).toBe(code);
    return e as WriteError;
  }
  throw new Error(`expected WriteError(${code}), nothing was thrown`);
}

const RELEASE = enc(JSON.stringify({ order_id: 't1', released: 'fang', releaser: 'ops', reason: 'requeued', at: '2026-11-30T12:00:00Z' }) + '\n');

describe('writeNewFile', () => {
  it('writes a new file whole, with no temp file left, creating its folder', () => {
    const root = channel();
    writeNewFile(path.join(root, 'tasks/t1/release.ops.fang.json'), RELEASE);
    writeNewFile(path.join(root, 'retirements/fang.ops.json'), RELEASE);
    expect(fs.readFileSync(path.join(root, 'tasks/t1/release.ops.fang.json'))).toEqual(Buffer.from(RELEASE));
    expect(tempsIn(path.join(root, 'tasks/t1'))).toEqual([]);
    expect(tempsIn(path.join(root, 'retirements'))).toEqual([]);
  });

  it('refuses when another writer\'s file is already there: untouched, nothing written', () => {
    const root = channel();
    fs.writeFileSync(path.join(root, 'tasks/t1/release.ops.fang.json'), 'theirs');
    const before = folderSnapshot(root);
    const e = refused('exists', () => writeNewFile(path.join(root, 'tasks/t1/release.ops.fang.json'), RELEASE));
    expect(e.message).toMatch(/release\.ops\.fang\.json already exists/);
    expect(folderSnapshot(root)).toEqual(before);
  });

  it('refuses when the file appears between the check and the link (another writer wins the race)', () => {
    const root = channel();
    const target = path.join(root, 'tasks/t1/release.ops.fang.json');
    const before = folderSnapshot(root);
    const link = fs.linkSync;
    vi.spyOn(fs, 'linkSync').mockImplementation((from, to) => {
      fs.writeFileSync(target, 'theirs, arrived just now');
      link(from, to);
    });
    const e = refused('exists', () => writeNewFile(target, RELEASE));
    expect(e.message).toBe('release.ops.fang.json appeared while writing');
    expect(fs.readFileSync(target, 'utf8')).toBe('theirs, arrived just now');
    expect(folderSnapshot(root)).toEqual({ ...before, 'tasks/t1/release.ops.fang.json': folderSnapshot(root)['tasks/t1/release.ops.fang.json'] as string });
    expect(tempsIn(path.join(root, 'tasks/t1'))).toEqual([]);
  });

  it('refuses a symlink in the way (dangling or not) and never writes through it', () => {
    const root = channel();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-out-'));
    dirs.push(outside);
    fs.writeFileSync(path.join(outside, 'target.json'), 'outside');
    fs.symlinkSync(path.join(outside, 'target.json'), path.join(root, 'tasks/t1/release.ops.fang.json'));
    fs.symlinkSync(path.join(outside, 'nowhere.json'), path.join(root, 'tasks/t1/release.ops.wisp.json'));
    const before = folderSnapshot(root);
    refused('exists', () => writeNewFile(path.join(root, 'tasks/t1/release.ops.fang.json'), RELEASE));
    refused('exists', () => writeNewFile(path.join(root, 'tasks/t1/release.ops.wisp.json'), RELEASE));
    expect(folderSnapshot(root)).toEqual(before);
    expect(fs.readdirSync(outside)).toEqual(['target.json']);
    expect(fs.readFileSync(path.join(outside, 'target.json'), 'utf8')).toBe('outside');
  });

  it('a leftover temp file from a crash breaks nothing and is never read as a record', () => {
    const root = channel();
    // What a crash between the temp write and the link leaves: a dot temp file, maybe half written.
    const leftovers = {
      'tasks/t1/.release.ops.fang.json.0123456789ab.tmp': RELEASE.slice(0, 40),
      'tasks/t1/.release.ops.fang.json.ba9876543210.tmp': RELEASE,
      '.ledger.ops.jsonl.0123456789ab.tmp': enc('{"kind":'),
      'tasks/t1/.claim.wisp.json.0123456789ab.tmp': enc(JSON.stringify({ order_id: 't1', agent: 'wisp', claimed_at: '2026-11-20T08:00:00Z' })),
    };
    for (const [p, b] of Object.entries(leftovers)) fs.writeFileSync(path.join(root, p), b);
    const now = Date.now();
    const derive = () => deriveChannel(readChannel(root), { nowMs: now, verify: nodeVerify });
    const card = derive().orders[0];
    writeNewFile(path.join(root, 'tasks/t1/release.ops.fang.json'), RELEASE);
    replaceOwnFile(path.join(root, 'tasks/t1/reopen.ops.json'), RELEASE);
    appendLedgerLine(path.join(root, 'ledger.ops.jsonl'), '{"next":1}', ledgerPrevOf(path.join(root, 'ledger.ops.jsonl')).prev);
    for (const [p, b] of Object.entries(leftovers)) expect(fs.readFileSync(path.join(root, p)), p).toEqual(Buffer.from(b));
    expect(tempsIn(path.join(root, 'tasks/t1')).sort()).toEqual(Object.keys(leftovers).filter((p) => p.startsWith('tasks/t1/')).map((p) => path.basename(p)).sort());
    const s = derive();
    for (const p of Object.keys(leftovers)) {
      expect(s.problems.map((x) => x.path)).not.toContain(p);
      expect([...s.views.values()].flatMap((v) => v.files.map((f) => f.path))).not.toContain(p);
    }
    // The temp claim (wisp, earlier) would have taken the order: it is not read.
    expect(s.orders[0]?.holder).toBe(card?.holder);
  });
});

describe('replaceOwnFile and appendLedgerLine', () => {
  it('replace the operator\'s own file whole; refuse a symlink without writing through it', () => {
    const root = channel();
    const own = path.join(root, 'tasks/t1/reopen.ops.json');
    replaceOwnFile(own, enc('one'));
    replaceOwnFile(own, enc('two'));
    expect(fs.readFileSync(own, 'utf8')).toBe('two');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-out-'));
    dirs.push(outside);
    fs.writeFileSync(path.join(outside, 'x'), 'outside');
    fs.symlinkSync(path.join(outside, 'x'), path.join(root, 'tasks/t1/ack.ops.json'));
    fs.symlinkSync(path.join(outside, 'x'), path.join(root, 'ledger.wisp.jsonl'));
    const before = folderSnapshot(root);
    refused('exists', () => replaceOwnFile(path.join(root, 'tasks/t1/ack.ops.json'), enc('mine')));
    refused('exists', () => appendLedgerLine(path.join(root, 'ledger.wisp.jsonl'), '{}', ''));
    expect(folderSnapshot(root)).toEqual(before);
    expect(fs.readFileSync(path.join(outside, 'x'), 'utf8')).toBe('outside');
  });

  it('appendLedgerLine refuses when a line was added since the action was signed', () => {
    const root = channel();
    const ledger = path.join(root, 'ledger.ops.jsonl');
    const stale = ledgerPrevOf(ledger).prev;
    appendLedgerLine(ledger, '{"n":1}', stale);
    const before = folderSnapshot(root);
    const e = refused('moved_on', () => appendLedgerLine(ledger, '{"n":2}', stale));
    expect(e.message).toMatch(/new line since this action was signed/);
    expect(folderSnapshot(root)).toEqual(before);
  });

  it('appendLedgerLine refuses when another process appends between its read and its rename: no line is lost', () => {
    const root = channel();
    const ledger = path.join(root, 'ledger.ops.jsonl');
    const prev = ledgerPrevOf(ledger).prev;
    // The other process appends while this one writes its temp file.
    const fsync = fs.fsyncSync;
    let once = true;
    vi.spyOn(fs, 'fsyncSync').mockImplementation((fd) => {
      if (once) fs.appendFileSync(ledger, '{"other":"process"}\n');
      once = false;
      fsync(fd);
    });
    const e = refused('moved_on', () => appendLedgerLine(ledger, '{"mine":1}', prev));
    expect(e.message).toMatch(/changed while writing/);
    vi.restoreAllMocks();
    expect(fs.readFileSync(ledger, 'utf8')).toMatch(/\{"other":"process"\}\n$/);
    expect(tempsIn(root)).toEqual([]);
  });
});

describe('never out of the channel through a symlinked folder', () => {
  it('with the channel root given, a write refuses a symlinked folder below it and writes nothing anywhere', () => {
    const root = channel();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-out-'));
    dirs.push(outside);
    fs.mkdirSync(path.join(outside, 'order'));
    fs.symlinkSync(outside, path.join(root, 'retirements'));
    fs.symlinkSync(path.join(outside, 'order'), path.join(root, 'tasks/evil'));
    const before = folderSnapshot(root);
    const e = refused('exists', () => writeNewFile(path.join(root, 'retirements/fang.ops.json'), RELEASE, root));
    expect(e.message).toMatch(/^retirements is a symlink; nothing is written through it/);
    refused('exists', () => replaceOwnFile(path.join(root, 'tasks/evil/reopen.ops.json'), RELEASE, root));
    refused('exists', () => writeNewFile(path.join(root, 'tasks/evil/release.ops.fang.json'), RELEASE, root));
    refused('io', () => writeNewFile(path.join(root, '../elsewhere.json'), RELEASE, root));
    expect(folderSnapshot(root)).toEqual(before);
    expect(fs.readdirSync(outside)).toEqual(['order']);
    expect(fs.readdirSync(path.join(outside, 'order'))).toEqual([]);
  });

  it("an action's fresh derivation never reads a symlinked order folder (it would show the outside order as a card)", () => {
    const root = channel();
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-out-'));
    dirs.push(outside);
    const b = new ChannelBuilder().roster().order('evil').claim('evil', 'fang');
    for (const p of ['tasks/evil/order.json', 'tasks/evil/claim.fang.json']) fs.writeFileSync(path.join(outside, path.basename(p)), b.files.get(p)?.bytes ?? '');
    fs.symlinkSync(outside, path.join(root, 'tasks/evil'));
    const s = deriveSubset({ root, nowMs: Date.now(), staleAfterMs: 300_000, operators: [], verify: nodeVerify }, ['evil', 't1']);
    expect(s.orders.map((c) => c.order_id)).toEqual(['t1']);
    expect(s.problems.map((p) => [p.path, p.problem])).toEqual([['tasks/evil', 'symlink']]);
  });
});

// ---- a full disk, a read-only folder -----------------------------------------------------------

/** Whether this machine lets the test mount a tmpfs (root, in a container that allows it). */
function canMount(): string | null {
  if (process.env.CLAIMBOARD_TEST_NO_MOUNT) return 'CLAIMBOARD_TEST_NO_MOUNT is set';
  const probe = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe], { stdio: 'pipe' });
    return null;
  } catch (e) {
    return (e as { stderr?: Buffer }).stderr?.toString().trim() || String(e);
  } finally {
    fs.rmSync(probe, { recursive: true, force: true });
  }
}
const mountProblem = canMount();
const HOW = mountProblem === null ? '(a 64 KiB tmpfs)' : `(mount impossible here: ${mountProblem.split('\n')[0]}; errors simulated)`;

describe(`a full disk and a read-only folder ${HOW}`, () => {
  let mnt = '';
  let mounted = false;
  beforeAll(() => {
    mnt = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-write-mnt-'));
    if (mountProblem === null) {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', mnt], { stdio: 'pipe' });
      mounted = true;
    }
  });
  afterAll(() => {
    if (mounted) {
      try {
        execFileSync('mount', ['-o', 'remount,rw', mnt], { stdio: 'pipe' });
      } catch {
        /* already rw */
      }
      execFileSync('umount', [mnt], { stdio: 'pipe' });
    }
    fs.rmSync(mnt, { recursive: true, force: true });
  });
  afterEach(() => {
    if (mounted) {
      try {
        execFileSync('mount', ['-o', 'remount,rw', mnt], { stdio: 'pipe' });
      } catch {
        /* already rw */
      }
    }
    for (const n of fs.readdirSync(mnt)) fs.rmSync(path.join(mnt, n), { recursive: true, force: true });
  });

  /** Fills the disk (or, with no mount, makes every write fail with ENOSPC). */
  function fill(): void {
    if (!mounted) {
      const write = fs.writeSync;
      vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, ...rest: unknown[]) => {
        if (fd > 2) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        return (write as (...a: unknown[]) => number)(fd, ...rest);
      }));
      return;
    }
    const fd = fs.openSync(path.join(mnt, 'filler'), 'w');
    const chunk = Buffer.alloc(4096, 0x2e);
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch (e) {
      expect((e as NodeJS.ErrnoException).code).toBe('ENOSPC');
    } finally {
      fs.closeSync(fd);
    }
  }

  /** Makes the folder read-only (or, with no mount, makes every create fail with EROFS). */
  function readOnly(): void {
    if (!mounted) {
      const open = fs.openSync;
      vi.spyOn(fs, 'openSync').mockImplementation(((p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
        if (typeof flags === 'number' && flags & fs.constants.O_CREAT) throw Object.assign(new Error('EROFS: read-only file system, open'), { code: 'EROFS' });
        return open(p, flags ?? 'r', mode);
      }) as typeof fs.openSync);
      const mkdir = fs.mkdirSync;
      vi.spyOn(fs, 'mkdirSync').mockImplementation(((p: fs.PathLike, o?: fs.MakeDirectoryOptions) => {
        if (!fs.existsSync(p)) throw Object.assign(new Error('EROFS: read-only file system, mkdir'), { code: 'EROFS' });
        return mkdir(p, o);
      }) as typeof fs.mkdirSync);
      return;
    }
    execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'pipe' });
  }

  for (const [what, spoil, errno] of [
    ['the disk is full', fill, 'ENOSPC'],
    ['the folder is read-only', readOnly, 'EROFS'],
  ] as const) {
    it(`${what}: each write is a WriteError('io') naming ${errno}, and the folder is byte-for-byte unchanged`, () => {
      const root = path.join(mnt, 'channel');
      fs.mkdirSync(root);
      channel(root);
      fs.writeFileSync(path.join(root, 'tasks/t1/reopen.ops.json'), 'my earlier reopen');
      spoil();
      const before = folderSnapshot(mnt);
      const attempts: [string, () => void][] = [
        ['new file', () => writeNewFile(path.join(root, 'tasks/t1/release.ops.fang.json'), RELEASE)],
        ['new file in a new folder', () => writeNewFile(path.join(root, 'retirements/fang.ops.json'), RELEASE)],
        ['new file two folders down', () => writeNewFile(path.join(root, 'tasks/t9/reopen.ops.json'), RELEASE)],
        ['own file replaced', () => replaceOwnFile(path.join(root, 'tasks/t1/reopen.ops.json'), RELEASE)],
        ['own file created', () => replaceOwnFile(path.join(root, 'tasks/t1/ack.ops.json'), RELEASE)],
        ['ledger line', () => appendLedgerLine(path.join(root, 'ledger.ops.jsonl'), '{"n":1}', ledgerPrevOf(path.join(root, 'ledger.ops.jsonl')).prev)],
        ['first ledger line', () => appendLedgerLine(path.join(root, 'ledger.wisp.jsonl'), '{"n":1}', '')],
      ];
      for (const [name, attempt] of attempts) {
        const e = refused('io', attempt);
        expect(e.message, name).toMatch(new RegExp(`^cannot (write|create|place) .*${errno}`));
        expect(folderSnapshot(mnt), name).toEqual(before);
      }
    });
  }
});
