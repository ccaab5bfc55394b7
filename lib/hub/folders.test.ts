/** Which folders are channels, on real folders built from the conformance vectors. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isChannelFolder, scanParent, whyNotChannel } from './folders';
import { copyVectorChannel, tempFolders } from '../../test/support/hub';

const temp = tempFolders();

describe('whyNotChannel', () => {
  it('takes a folder with tasks/ or agents/ as a channel, and says why anything else is not one', () => {
    const t = temp();
    const full = copyVectorChannel('01-open', path.join(t, 'full'));
    fs.mkdirSync(path.join(t, 'agents-only', 'agents'), { recursive: true });
    fs.mkdirSync(path.join(t, 'tasks-only', 'tasks'), { recursive: true });
    fs.mkdirSync(path.join(t, 'empty'));
    fs.mkdirSync(path.join(t, 'tasks-file'));
    fs.writeFileSync(path.join(t, 'tasks-file', 'tasks'), 'not a folder');
    fs.mkdirSync(path.join(t, 'tasks-link'));
    fs.symlinkSync(path.join(full, 'tasks'), path.join(t, 'tasks-link', 'tasks'));
    fs.writeFileSync(path.join(t, 'a-file'), 'x');
    fs.symlinkSync(full, path.join(t, 'link-to-full'));

    const verdicts = Object.fromEntries(
      ['full', 'agents-only', 'tasks-only', 'empty', 'tasks-file', 'tasks-link', 'a-file', 'missing', 'link-to-full'].map((n) => [n, whyNotChannel(path.join(t, n))]),
    );
    expect(verdicts).toEqual({
      full: null,
      'agents-only': null,
      'tasks-only': null,
      empty: { kind: 'not_channel', reason: 'no tasks/ or agents/ folder' },
      'tasks-file': { kind: 'not_channel', reason: 'no tasks/ or agents/ folder' },
      // The layout's folders are never followed through a link, as the reader never follows one.
      'tasks-link': { kind: 'not_channel', reason: 'no tasks/ or agents/ folder' },
      'a-file': { kind: 'not_folder', reason: 'not a folder' },
      missing: { kind: 'gone', reason: 'no such folder' },
      // A channel named on the command line may be a link to its folder.
      'link-to-full': null,
    });
    expect(isChannelFolder(full)).toBe(true);
    expect(isChannelFolder(path.join(t, 'empty'))).toBe(false);
  });
});

describe('scanParent', () => {
  it('lists the child folders that are channels by name, and every other entry with why, dot names passed over', () => {
    const p = temp();
    copyVectorChannel('01-open', path.join(p, 'alpha'));
    copyVectorChannel('09-done', path.join(p, 'Beta'));
    copyVectorChannel('22-ledger', path.join(p, 'bad name'));
    fs.mkdirSync(path.join(p, 'photos'));
    fs.writeFileSync(path.join(p, 'photos', 'cat.jpg'), 'x');
    fs.writeFileSync(path.join(p, 'notes.txt'), 'x');
    fs.mkdirSync(path.join(p, '.stfolder'));
    fs.mkdirSync(path.join(p, '.hidden-channel', 'tasks'), { recursive: true });
    fs.symlinkSync(path.join(p, 'alpha'), path.join(p, 'link'));

    expect(scanParent(p)).toEqual({
      parent: p,
      channels: [
        { name: 'beta', root: path.join(p, 'Beta') },
        { name: 'alpha', root: path.join(p, 'alpha') },
      ],
      ignored: [
        {
          root: path.join(p, 'bad name'),
          reason: `a channel, but "bad name" is not a channel name (letters, digits, ".", "-" and "_" only): serve it as name=${path.join(p, 'bad name')}`,
        },
        { root: path.join(p, 'link'), reason: 'a symbolic link, not followed (name the folder it points to on the command line to serve it)' },
        { root: path.join(p, 'notes.txt'), reason: 'not a folder' },
        { root: path.join(p, 'photos'), reason: 'no tasks/ or agents/ folder' },
      ],
      problem: null,
    });
  });

  it('says why a parent cannot be looked through, and finds nothing in it', () => {
    const t = temp();
    fs.writeFileSync(path.join(t, 'file'), 'x');
    expect(scanParent(path.join(t, 'missing'))).toEqual({ parent: path.join(t, 'missing'), channels: [], ignored: [], problem: { kind: 'gone', reason: 'no such folder' } });
    expect(scanParent(path.join(t, 'file'))).toEqual({ parent: path.join(t, 'file'), channels: [], ignored: [], problem: { kind: 'not_folder', reason: 'not a folder' } });
  });

  it('finds nothing in an empty parent', () => {
    const p = temp();
    expect(scanParent(p)).toEqual({ parent: p, channels: [], ignored: [], problem: null });
  });
});
