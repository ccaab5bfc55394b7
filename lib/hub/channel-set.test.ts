/**
 * The hub's channel set on real folders built from the conformance vectors: what the first look
 * finds, what each rescan says changed (folders added, removed, losing their layout), names that
 * clash, one folder reached twice, and notices said once.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChannelSet } from './channel-set';
import { copyVectorChannel, tempFolders } from '../../test/support/hub';
import { REPO } from '../../test/support/soak/proc';

const temp = tempFolders();
const names = (set: ChannelSet) => Object.fromEntries([...set.channels()].map(([n, c]) => [n, c.root]));
const NOTHING = { added: [], removed: [], notices: [] };

describe('ChannelSet', () => {
  it('serves the channels named and those of each parent, says once what it does not serve, and then nothing changed', () => {
    const t = temp();
    const named = copyVectorChannel('03-claimed-fresh', path.join(t, 'solo'));
    const hub = path.join(t, 'hub');
    copyVectorChannel('01-open', path.join(hub, 'alpha'));
    copyVectorChannel('09-done', path.join(hub, 'beta'));
    fs.mkdirSync(path.join(hub, 'photos'));

    const set = new ChannelSet([{ name: 'ops', root: named }, { name: 'late', root: path.join(t, 'not-yet') }], [hub]);
    expect(set.rescan()).toEqual({
      added: [
        { name: 'ops', root: named, parent: null },
        { name: 'alpha', root: path.join(hub, 'alpha'), parent: hub },
        { name: 'beta', root: path.join(hub, 'beta'), parent: hub },
      ],
      removed: [],
      notices: [
        { root: path.join(t, 'not-yet'), name: 'late', reason: 'no such folder' },
        { root: path.join(hub, 'photos'), name: null, reason: 'no tasks/ or agents/ folder' },
      ],
    });
    expect(names(set)).toEqual({ ops: named, alpha: path.join(hub, 'alpha'), beta: path.join(hub, 'beta') });
    expect(set.rescan()).toEqual(NOTHING);

    // The named folder appears: served under its name, and its notice is not said again.
    copyVectorChannel('02-offered', path.join(t, 'not-yet'));
    expect(set.rescan()).toEqual({ added: [{ name: 'late', root: path.join(t, 'not-yet'), parent: null }], removed: [], notices: [] });
  });

  it('adds a folder that appears in a parent and removes it, with why, when it goes; nothing else moves', () => {
    const t = temp();
    const hub = path.join(t, 'hub');
    copyVectorChannel('01-open', path.join(hub, 'alpha'));
    const set = new ChannelSet([], [hub]);
    expect(set.rescan().added.map((c) => c.name)).toEqual(['alpha']);

    const delta = copyVectorChannel('14-double-run', path.join(hub, 'delta'));
    expect(set.rescan()).toEqual({ added: [{ name: 'delta', root: delta, parent: hub }], removed: [], notices: [] });

    // Syncthing stops sharing it: the folder is gone (the test removes it; the set never does).
    fs.rmSync(delta, { recursive: true });
    expect(set.rescan()).toEqual({ added: [], removed: [{ channel: { name: 'delta', root: delta, parent: hub }, kind: 'gone', why: 'folder gone' }], notices: [] });
    expect(names(set)).toEqual({ alpha: path.join(hub, 'alpha') });
    expect(set.rescan()).toEqual(NOTHING);
  });

  it('removes a channel that loses its layout, says so once, and serves it again when the layout is back', () => {
    const t = temp();
    const hub = path.join(t, 'hub');
    const alpha = copyVectorChannel('01-open', path.join(hub, 'alpha'));
    const set = new ChannelSet([], [hub]);
    set.rescan();

    fs.renameSync(path.join(alpha, 'tasks'), path.join(t, 'tasks-aside'));
    fs.renameSync(path.join(alpha, 'agents'), path.join(t, 'agents-aside'));
    expect(set.rescan()).toEqual({
      added: [],
      removed: [{ channel: { name: 'alpha', root: alpha, parent: hub }, kind: 'not_channel', why: 'no longer a channel (no tasks/ or agents/ folder)' }],
      notices: [],
    });
    // Said by its removal: no notice for the same folder on the next look.
    expect(set.rescan()).toEqual(NOTHING);

    fs.renameSync(path.join(t, 'tasks-aside'), path.join(alpha, 'tasks'));
    expect(set.rescan()).toEqual({ added: [{ name: 'alpha', root: alpha, parent: hub }], removed: [], notices: [] });
  });

  it('refuses a second folder of a name, and a parent child of a name given on the command line, with how to name it', () => {
    const t = temp();
    const one = path.join(t, 'one');
    const two = path.join(t, 'two');
    const named = copyVectorChannel('09-done', path.join(t, 'elsewhere'));
    const twoAlpha = copyVectorChannel('01-open', path.join(two, 'alpha'));
    copyVectorChannel('09-done', path.join(two, 'ops'));
    fs.mkdirSync(one);

    const set = new ChannelSet([{ name: 'ops', root: named }], [one, two]);
    expect(set.rescan()).toEqual({
      added: [
        { name: 'ops', root: named, parent: null },
        { name: 'alpha', root: twoAlpha, parent: two },
      ],
      removed: [],
      notices: [
        {
          root: path.join(two, 'ops'),
          name: 'ops',
          reason: `the name "ops" is given to ${named} on the command line: serve this one as <name>=${path.join(two, 'ops')}`,
        },
      ],
    });

    // The first parent's `alpha` appears later: the one served keeps its name for the run.
    const oneAlpha = copyVectorChannel('02-offered', path.join(one, 'ALPHA'));
    expect(set.rescan()).toEqual({
      added: [],
      removed: [],
      notices: [{ root: oneAlpha, name: 'alpha', reason: `the name "alpha" is taken by ${twoAlpha}: serve this one as <name>=${oneAlpha}` }],
    });
    expect(set.rescan()).toEqual(NOTHING);

    // The holder goes: the other folder is served under the name in the same look.
    fs.rmSync(twoAlpha, { recursive: true });
    expect(set.rescan()).toEqual({
      added: [{ name: 'alpha', root: oneAlpha, parent: one }],
      removed: [{ channel: { name: 'alpha', root: twoAlpha, parent: two }, kind: 'gone', why: 'folder gone' }],
      notices: [],
    });
  });

  it('serves one folder once, however it is reached', () => {
    const t = temp();
    const real = copyVectorChannel('01-open', path.join(t, 'real'));
    fs.symlinkSync(real, path.join(t, 'link'));
    const set = new ChannelSet(
      [
        { name: 'a', root: real },
        { name: 'b', root: path.join(t, 'link') },
      ],
      [],
    );
    expect(set.rescan()).toEqual({
      added: [{ name: 'a', root: real, parent: null }],
      removed: [],
      notices: [{ root: path.join(t, 'link'), name: 'b', reason: 'the same folder as channel "a"' }],
    });
  });

  it('says a parent that is gone once, and serves its channels when it appears', () => {
    const t = temp();
    const hub = path.join(t, 'hub');
    const set = new ChannelSet([], [hub]);
    expect(set.rescan()).toEqual({ added: [], removed: [], notices: [{ root: hub, name: null, reason: 'parent folder: no such folder' }] });
    expect(set.rescan()).toEqual(NOTHING);
    const alpha = copyVectorChannel('01-open', path.join(hub, 'alpha'));
    expect(set.rescan()).toEqual({ added: [{ name: 'alpha', root: alpha, parent: hub }], removed: [], notices: [] });
    fs.rmSync(hub, { recursive: true });
    expect(set.rescan()).toEqual({
      added: [],
      removed: [{ channel: { name: 'alpha', root: alpha, parent: hub }, kind: 'gone', why: 'folder gone' }],
      notices: [{ root: hub, name: null, reason: 'parent folder: no such folder' }],
    });
  });
});

/**
 * Runs the set through `steps` in a process the folders' modes apply to: as root (who reads any
 * folder) through setpriv without any capability (still uid 0, the owner, so it may chmod its
 * folders, but a mode without read holds), otherwise as this user.
 */
function stepsAsUser(specs: readonly { name: string; root: string }[], parents: readonly string[], steps: readonly (readonly unknown[])[]): unknown {
  const cli = [process.execPath, '--conditions=react-server', '--import', 'tsx', path.join(REPO, 'test', 'support', 'hub-steps.ts'), JSON.stringify({ specs, parents, steps })];
  const [cmd, ...args] = process.getuid?.() === 0 ? ['setpriv', '--bounding-set=-all', '--inh-caps=-all', '--ambient-caps=-all', '--', ...cli] : cli;
  const r = spawnSync(cmd as string, args, { cwd: REPO, encoding: 'utf8', timeout: 120_000 });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as unknown;
}

describe('ChannelSet on folders it cannot read', () => {
  it('keeps the channels of a parent it cannot list, removes one it cannot list itself, and serves it again once readable', () => {
    const t = temp();
    const hub = path.join(t, 'hub');
    const alpha = copyVectorChannel('01-open', path.join(hub, 'alpha'));
    const beta = copyVectorChannel('09-done', path.join(hub, 'beta'));
    const cannotList = 'cannot list it: EACCES; nothing in it is read';
    expect(
      stepsAsUser([], [hub], [
        ['rescan'],
        ['chmod', hub, 0o311],
        ['rescan'],
        ['rescan'],
        ['chmod', beta, 0o000],
        ['rescan'],
        ['chmod', beta, 0o755],
        ['chmod', hub, 0o755],
        ['rescan'],
      ]),
    ).toEqual([
      {
        added: [
          { name: 'alpha', root: alpha, parent: hub },
          { name: 'beta', root: beta, parent: hub },
        ],
        removed: [],
        notices: [],
      },
      // The parent cannot be listed: said once; its channels are looked at one by one and stay.
      { added: [], removed: [], notices: [{ root: hub, name: null, reason: `parent folder: ${cannotList}` }] },
      NOTHING,
      { added: [], removed: [{ channel: { name: 'beta', root: beta, parent: hub }, kind: 'unreadable', why: `unreadable (${cannotList})` }], notices: [] },
      { added: [{ name: 'beta', root: beta, parent: hub }], removed: [], notices: [] },
    ]);
  });
});
