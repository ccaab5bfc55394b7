/**
 * The channels the web process serves: in a hub (CLAIMBOARD_HUB), each channel's reader opens its
 * index with the hub's page cache budget; one channel's index is the request's own, untouched.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeWriter, openWriter, type DB } from '../index/db';
import { writeRegistry } from '../hub/registry';
import { HUB_READER_CACHE_KIB, servedChannels } from './channels';
import { removeFolder, tempFolder } from '../../test/support/hub';

let t: string;
const saved = process.env.CLAIMBOARD_HUB;

beforeAll(() => {
  t = tempFolder('cb-channels-');
  for (const name of ['alpha', 'beta']) closeWriter(openWriter(path.join(t, `${name}.sqlite`)));
  writeRegistry(
    path.join(t, 'channels.json'),
    ['alpha', 'beta'].map((name) => ({ name, root: path.join(t, name), db: path.join(t, `${name}.sqlite`), state: 'served' as const, why: null, since_ms: 0 })),
  );
});

afterAll(() => {
  if (saved === undefined) delete process.env.CLAIMBOARD_HUB;
  else process.env.CLAIMBOARD_HUB = saved;
  removeFolder(t);
});

const noDb = (): DB => {
  throw new Error('a hub reads the registry, not the request\'s index');
};

describe('servedChannels', () => {
  it("opens each hub channel's reader with a page cache of HUB_READER_CACHE_KIB (4096 KiB)", () => {
    process.env.CLAIMBOARD_HUB = path.join(t, 'channels.json');
    const { list } = servedChannels(noDb, () => null);
    expect(list.map((c) => c.name)).toEqual(['alpha', 'beta']);
    // SQLite's cache_size: a negative number is a size in KiB.
    expect(list.map((c) => c.db().pragma('cache_size', { simple: true }))).toEqual([-4096, -4096]);
    expect(HUB_READER_CACHE_KIB).toBe(4096);
  });

  it("serves one channel from the request's own index, as it was opened", () => {
    delete process.env.CLAIMBOARD_HUB;
    const db = (): DB => {
      throw new Error('not opened here');
    };
    const { list } = servedChannels(db, () => '/srv/alpha');
    expect(list).toHaveLength(1);
    const [only] = list;
    expect(only?.name).toBe('alpha');
    // The request's own index function, not a reader opened here.
    expect(() => only?.db()).toThrow('not opened here');
  });
});
