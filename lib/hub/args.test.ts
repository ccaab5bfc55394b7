import { describe, expect, it } from 'vitest';
import { parseChannelArgs } from './args';

const CWD = '/srv/hub';

describe('parseChannelArgs', () => {
  it('names a channel after its folder (lowercase) unless given name=path, relative paths against the working folder', () => {
    expect(parseChannelArgs(['alpha', 'b=../x/beta', '/data/Gamma', 'x=./a=b'], ['parents/one', '/mnt/two/'], CWD)).toEqual({
      ok: true,
      specs: [
        { name: 'alpha', root: '/srv/hub/alpha' },
        { name: 'b', root: '/srv/x/beta' },
        { name: 'gamma', root: '/data/Gamma' },
        // Text before the first `=` holding no `/` is a name; the rest, `=` and all, the folder.
        { name: 'x', root: '/srv/hub/a=b' },
      ],
      parents: ['/srv/hub/parents/one', '/mnt/two'],
    });
  });

  it('reads a path with a "/" before its "=" as a path, named after its folder', () => {
    // `./a=b`: the folder's name `a=b` is not a channel name, which is the refusal a plain path gets.
    expect(parseChannelArgs(['./a=b'], [], CWD)).toEqual({
      ok: false,
      reasons: ['"./a=b": the folder\'s name "a=b" is not a channel name (letters, digits, ".", "-" and "_" only); give one as name=./a=b'],
    });
  });

  it('refuses every bad argument at once, each with its reason', () => {
    expect(
      parseChannelArgs(
        ['alpha', 'ALPHA=/other', 'a=/x/ch', 'b=/x/ch/', 'my chan=/x', '/srv/my chan', '/', 'x=', 'p=/p'],
        ['/p', '/q', '/q/'],
        CWD,
      ),
    ).toEqual({
      ok: false,
      reasons: [
        '"ALPHA=/other": the name "alpha" is already given to "alpha"; give one of them another as name=path',
        '"b=/x/ch/": the folder /x/ch is already given as "a=/x/ch"',
        '"my chan=/x": "my chan" is not a channel name (letters, digits, ".", "-" and "_" only)',
        '"/srv/my chan": the folder\'s name "my chan" is not a channel name (letters, digits, ".", "-" and "_" only); give one as name=/srv/my chan',
        '"/": the folder\'s name "" is not a channel name (letters, digits, ".", "-" and "_" only); give one as name=/',
        '"x=": no folder given',
        'parent "/p": the folder /p is already given as "p=/p"',
        'parent "/q/": the folder /q is already given as "parent /q"',
      ],
    });
  });

  it('takes no channel and no parent as nothing to serve (the caller decides what that means)', () => {
    expect(parseChannelArgs([], [], CWD)).toEqual({ ok: true, specs: [], parents: [] });
  });
});
