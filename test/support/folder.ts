/** Comparing a whole folder before and after (tests: "nothing written, nothing deleted"). */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Every entry under `root`, dot files included (a leftover temp file shows): directories as
 * `dir`, symlinks as `link -> <target>`, files as `file <sha256 of the bytes> <size>`.
 */
export function folderSnapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(rel ? path.join(root, rel) : root).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const abs = path.join(root, r);
      const st = fs.lstatSync(abs);
      if (st.isSymbolicLink()) out[r] = `link -> ${fs.readlinkSync(abs)}`;
      else if (st.isDirectory()) {
        out[r] = 'dir';
        walk(r);
      } else out[r] = `file ${createHash('sha256').update(fs.readFileSync(abs)).digest('hex')} ${st.size}`;
    }
  };
  walk('');
  return out;
}
