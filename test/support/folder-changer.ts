/**
 * Changes a generated channel (bench/generate.ts) the way a fleet does, one change per call:
 * new orders, claims, heartbeats, releases, bad files, deletions of files and folders, sync
 * conflicts. Deterministic for a seeded Rng. Test support (crash and scale tests).
 */
import fs from 'node:fs';
import path from 'node:path';
import { benchSigner, OPS, WORKERS } from '../../bench/generate';
import { signFields } from '../../lib/ledger/sign';
import type { Rng } from '../fuzz/mutate';

/** A changer of the channel at `root`: each call makes one change and returns the path it touched (null: none). */
export function folderChanger(root: string, rng: Rng): () => string | null {
  const ops = benchSigner(OPS);
  let n = 0;
  const orders = () => fs.readdirSync(path.join(root, 'tasks')).filter((d) => !d.startsWith('.'));
  const write = (rel: string, text: string) => {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    // As ferryman and Syncthing write: a temp file renamed into place.
    const tmpFile = path.join(path.dirname(abs), `.${path.basename(abs)}.${n}.tmp`);
    fs.writeFileSync(tmpFile, text);
    fs.renameSync(tmpFile, abs);
  };
  const ts = () => new Date(Date.UTC(2026, 10, 29, 0, 0, n)).toISOString().replace('.000Z', 'Z');
  return () => {
    n++;
    let touched: string | null = null;
    const list = orders();
    const id = rng.pick(list);
    const agent = rng.pick(WORKERS);
    try {
      switch (rng.int(8)) {
        case 0: {
          const nid = `new-${n}`;
          write((touched = `tasks/${nid}/order.json`), JSON.stringify(signFields('order', { id: nid, project_id: 'crash', issued_by: OPS, created_at: ts(), payload: { n } }, OPS, ops)));
          break;
        }
        case 1:
          write((touched = `tasks/${id}/claim.${agent}.json`), JSON.stringify({ order_id: id, agent, claimed_at: ts() }));
          break;
        case 2:
          write((touched = `tasks/${id}/heartbeat.${agent}.json`), JSON.stringify({ order_id: id, agent, run: `r${n}`, pid: n, at: ts() }));
          break;
        case 3:
          write((touched = `tasks/${id}/release.${OPS}.${agent}.json`), JSON.stringify(signFields('release', { order_id: id, released: agent, releaser: OPS, reason: 'requeued: crash test', at: ts() }, OPS, ops)));
          break;
        case 4:
          write((touched = `tasks/${id}/claim.bad-${n}.json`), '{"order_id": "');
          break;
        case 5: {
          const files = fs.readdirSync(path.join(root, 'tasks', id)).filter((f) => f.startsWith('claim.') || f.startsWith('heartbeat.'));
          if (files.length) {
            const f = rng.pick(files);
            fs.rmSync(path.join(root, 'tasks', id, f));
            touched = `tasks/${id}/${f}`;
          }
          break;
        }
        case 6:
          if (rng.chance(0.3)) {
            fs.rmSync(path.join(root, 'tasks', id), { recursive: true, force: true });
            touched = `tasks/${id}`;
          }
          break;
        default:
          write((touched = `tasks/${id}/claim.${agent}.sync-conflict-20261130-101010-ABCDEFG.json`), '{}');
      }
    } catch {
      /* a folder removed a moment ago */
    }
    return touched;
  };
}
