// The end-to-end run's own ports and folder: chosen once, in Playwright's runner process
// (playwright.config.ts), and handed to its workers and its web servers through the environment,
// so two runs on one machine never share a port or a folder.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The fixture servers, in the order of CB_E2E_PORTS. */
export const FIXTURES = ['main', 'actions', 'ferry'];

/** Chooses the ports and the folder once (the first call, in the runner process); later calls and child processes read them back. */
export function chooseRun() {
  if (!process.env.CB_E2E_PORTS || !process.env.CB_E2E_DIR) {
    // The kernel picks each port (listen on 0), all held at once so they differ, then closed again.
    const script = `const net=require('node:net');const n=${FIXTURES.length};const s=[];let done=0;
for(let i=0;i<n;i++){const v=net.createServer();s.push(v);v.listen(0,'127.0.0.1',()=>{if(++done===n){process.stdout.write(s.map(x=>x.address().port).join(','));s.forEach(x=>x.close());}});}`;
    process.env.CB_E2E_PORTS = execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }).trim();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-e2e-'));
    process.env.CB_E2E_DIR = dir;
    // The runner process exits after its web servers are stopped: the run's folder goes then.
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return e2eRun();
}

/** This run's ports by fixture name and its folder; throws when the runner did not choose them. */
export function e2eRun() {
  const ports = (process.env.CB_E2E_PORTS ?? '').split(',').map(Number);
  const dir = process.env.CB_E2E_DIR;
  if (ports.length !== FIXTURES.length || ports.some((p) => !(p > 0)) || !dir) {
    throw new Error('CB_E2E_PORTS and CB_E2E_DIR are unset: run the end-to-end tests with `npx playwright test` (playwright.config.ts chooses them)');
  }
  return { ports: Object.fromEntries(FIXTURES.map((f, i) => [f, ports[i]])), dir };
}

/** A fixture's folder (its channel, index and test clock live there). */
export function fixtureDir(name) {
  return path.join(e2eRun().dir, name);
}

/**
 * A fixture server's script stands for its child `claimboard serve`: Playwright's stop signal is
 * passed on, and this process exits with the child's code. The run's folder is removed by the
 * runner (chooseRun) once every server has stopped.
 */
export function passStop(child) {
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code) => process.exit(code ?? 1));
}
