/**
 * The systemd units in deploy/ and what docs/deploy.md promises about them.
 *
 * `systemd-analyze verify` runs offline (systemd need not be PID 1): it parses the unit, warns
 * about unknown keys and bad values (and still exits 0 for those, so the test fails on any
 * line it prints about the unit), and fails when ExecStart's binary does not exist. The units
 * name the installed CLI (/opt/claimboard/node_modules/.bin/claimboard), which this machine
 * need not have: the test verifies copies in a temp folder whose ExecStart names a temp
 * executable instead, the template as the instance claimboard@alice.service. Where
 * systemd-analyze is missing those checks are skipped, saying so; the rest always run.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const HERE = import.meta.dirname;
const ROOT = path.resolve(HERE, '..');
const CLI = '/opt/claimboard/node_modules/.bin/claimboard';
const read = (p: string) => fs.readFileSync(path.join(ROOT, p), 'utf8');

/** A unit file as systemd reads it: continuation lines joined, comments dropped; key -> values per section. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#') || t.startsWith(';')) continue;
    const s = /^\[(.+)\]$/.exec(t);
    if (s) {
      current = new Map();
      sections.set(s[1] ?? '', current);
      continue;
    }
    const eq = t.indexOf('=');
    if (!current || eq < 0) throw new Error(`not a unit line: ${t}`);
    const key = t.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), t.slice(eq + 1).trim()]);
  }
  return sections;
}
function one(unit: Map<string, Map<string, string[]>>, section: string, key: string): string {
  const v = unit.get(section)?.get(key);
  if (!v || v.length !== 1) throw new Error(`[${section}] ${key}: expected one value, found ${JSON.stringify(v)}`);
  return v[0] ?? '';
}

const UNITS = {
  plain: { file: 'deploy/claimboard.service', text: read('deploy/claimboard.service') },
  template: { file: 'deploy/claimboard@.service', text: read('deploy/claimboard@.service') },
};
const plain = parseUnit(UNITS.plain.text);
const template = parseUnit(UNITS.template.text);
const envExample = read('deploy/claimboard.env.example');
const doc = read('docs/deploy.md');

/** The ExecStartPre check as /bin/sh receives it (systemd turns `$$` into `$`). */
function startCheckScript(unit: Map<string, Map<string, string[]>>): string {
  const m = /^\/bin\/sh -c '(.*)'$/.exec(one(unit, 'Service', 'ExecStartPre'));
  if (!m) throw new Error('ExecStartPre is not /bin/sh -c \'...\'');
  return (m[1] ?? '').replace(/\$\$/g, '$');
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'claimboard-unit-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('claimboard.service', () => {
  it('runs the installed CLI’s `claimboard serve` with the options of the env file', () => {
    expect(one(plain, 'Service', 'ExecStart')).toBe(`${CLI} serve $CLAIMBOARD_SERVE_ARGS`);
    expect(one(plain, 'Service', 'Type')).toBe('exec');
  });

  it('reads /etc/claimboard/claimboard.env and keeps the index under /var/lib/claimboard', () => {
    expect(one(plain, 'Service', 'EnvironmentFile')).toBe('/etc/claimboard/claimboard.env');
    expect(one(plain, 'Service', 'StateDirectory')).toBe('claimboard');
    expect(one(plain, 'Service', 'WorkingDirectory')).toBe('/var/lib/claimboard');
    // serve's default index is relative to the working directory (bin/serve.ts defaultDbFile).
    expect(read('bin/serve.ts')).toContain("path.resolve('.claimboard', 'index',");
  });

  it('is ordered after Syncthing without starting it, and restarts on failure but not on bad usage', () => {
    expect(one(plain, 'Unit', 'After').split(/\s+/)).toContain('syncthing.service');
    expect(plain.get('Unit')?.has('Wants')).toBe(false);
    expect(plain.get('Unit')?.has('Requires')).toBe(false);
    expect(one(plain, 'Service', 'Restart')).toBe('on-failure');
    expect(one(plain, 'Service', 'RestartPreventExitStatus')).toBe('2');
  });

  it('stops serve with SIGTERM alone and counts its exit 143 as a clean stop', () => {
    expect(one(plain, 'Service', 'KillMode')).toBe('mixed');
    expect(Number.parseInt(one(plain, 'Service', 'TimeoutStopSec'), 10)).toBeGreaterThanOrEqual(10);
    expect(one(plain, 'Service', 'SuccessExitStatus').split(/\s+/)).toContain('143');
    expect(read('bin/serve.ts')).toContain("process.once('SIGTERM', () => void shutdown(143))");
  });

  it('is hardened without what breaks Node, and its /tmp is private and writable for the nudge socket', () => {
    const s = plain.get('Service')!;
    for (const k of ['NoNewPrivileges', 'PrivateTmp', 'PrivateDevices', 'ProtectKernelTunables', 'ProtectControlGroups', 'RestrictSUIDSGID']) {
      expect(s.get(k), k).toEqual(['yes']);
    }
    expect(s.get('ProtectSystem')).toEqual(['strict']);
    expect(s.get('ProtectHome')).toEqual(['read-only']);
    expect(s.has('MemoryDenyWriteExecute')).toBe(false); // V8's JIT
    expect(s.has('ProcSubset')).toBe(false);
    expect(one(plain, 'Service', 'RestrictAddressFamilies').split(/\s+/)).toEqual(expect.arrayContaining(['AF_UNIX', 'AF_INET', 'AF_INET6']));
    // The nudge socket lives in os.tmpdir(), i.e. the private /tmp (lib/index/nudge.ts).
    expect(read('lib/index/nudge.ts')).toContain('path.join(os.tmpdir(), `claimboard-${process.pid}.sock`)');
  });
});

describe('claimboard@.service', () => {
  it('runs as the instance user beside syncthing@<user>.service, with its own env file and state folder', () => {
    expect(one(template, 'Service', 'User')).toBe('%i');
    expect(template.get('Service')?.has('Group')).toBe(false);
    expect(one(template, 'Unit', 'After').split(/\s+/)).toContain('syncthing@%i.service');
    expect(one(template, 'Service', 'EnvironmentFile')).toBe('/etc/claimboard/%i.env');
    expect(one(template, 'Service', 'StateDirectory')).toBe('claimboard-%i');
    expect(one(template, 'Service', 'WorkingDirectory')).toBe('/var/lib/claimboard-%i');
  });

  it('is claimboard.service line for line but for the user, the ordering, the env file and the state folder', () => {
    const differ: Record<string, string[]> = { Unit: ['Description', 'After'], Service: ['User', 'Group', 'EnvironmentFile', 'StateDirectory', 'WorkingDirectory'] };
    for (const section of new Set([...plain.keys(), ...template.keys()])) {
      const a = plain.get(section) ?? new Map<string, string[]>();
      const b = template.get(section) ?? new Map<string, string[]>();
      for (const key of new Set([...a.keys(), ...b.keys()])) {
        if (differ[section]?.includes(key)) continue;
        expect(b.get(key), `[${section}] ${key}`).toEqual(a.get(key));
      }
    }
  });
});

describe('the start check (ExecStartPre)', () => {
  const script = startCheckScript(plain);
  const run = (env: Record<string, string>, as: { uid?: number; gid?: number } = {}) =>
    spawnSync('/bin/sh', ['-c', script], { env: { NODE_ENV: 'test', PATH: '/usr/bin:/bin', USER: 'tester', ...env }, encoding: 'utf8', ...as });

  it('is the same in both units', () => {
    expect(startCheckScript(template)).toBe(script);
  });

  it('passes a writable channel, no channel (the demo), and a read-only board', () => {
    const channel = fs.mkdtempSync(path.join(tmp, 'channel-'));
    expect(run({ CLAIMBOARD_CHANNEL: channel }).status).toBe(0);
    expect(run({}).status).toBe(0);
    expect(run({ CLAIMBOARD_CHANNEL: channel, CLAIMBOARD_READ_ONLY: '1' }).status).toBe(0);
  });

  it('refuses a channel that is not a folder here, saying so', () => {
    const r = run({ CLAIMBOARD_CHANNEL: path.join(tmp, 'nowhere') });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is not a folder tester can see');
  });

  it('refuses a channel it cannot write into unless the board is read-only', () => {
    const channel = fs.mkdtempSync(path.join(tmp, 'readonly-'));
    fs.chmodSync(channel, 0o555);
    // Root may write anywhere: as root the check runs as nobody, who can reach the folder but not write into it.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) fs.chmodSync(tmp, 0o755);
    const as = asRoot ? { uid: 65534, gid: 65534 } : {};
    const r = run({ CLAIMBOARD_CHANNEL: channel }, as);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('ReadWritePaths=');
    expect(run({ CLAIMBOARD_CHANNEL: channel, CLAIMBOARD_READ_ONLY: '1' }, as).status).toBe(0);
  });
});

describe('the env example and docs/deploy.md', () => {
  /** Every VAR the example sets or shows commented out. */
  const exampleVars = [...envExample.matchAll(/^#?([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);
  /** Every VAR in the first column of the doc's environment table (rows "| `VAR` | ..."). */
  const docVars = [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]);

  it('lists the same variables as the table in the doc', () => {
    expect(exampleVars.length).toBeGreaterThanOrEqual(5);
    expect([...new Set(exampleVars)].sort()).toEqual([...new Set(docVars)].sort());
    for (const v of ['CLAIMBOARD_CHANNEL', 'PORT', 'CLAIMBOARD_OPERATORS', 'CLAIMBOARD_READ_TOKEN']) expect(exampleVars).toContain(v);
  });

  it('lists only variables claimboard or the unit reads', () => {
    const sources = ['bin/cli.ts', 'bin/serve.ts', 'lib/config.ts', 'lib/index/channel-state.ts', 'lib/api/endpoint.ts', 'proxy.ts'].map(read).join('\n');
    for (const v of exampleVars) {
      const used = sources.includes(`process.env.${v}`) || sources.includes(`env.${v}`) || UNITS.plain.text.includes(`$${v}`);
      expect(used, v).toBe(true);
    }
  });

  it('leaves nothing set to an empty value', () => {
    expect(envExample).not.toMatch(/^[A-Z][A-Z0-9_]*=\s*$/m);
  });

  it('names the paths and commands the units use', () => {
    for (const s of [
      CLI,
      '/etc/claimboard/claimboard.env',
      '/etc/claimboard/<user>.env',
      '/var/lib/claimboard/.claimboard/index/',
      'deploy/claimboard.service',
      'deploy/claimboard@.service',
      'deploy/claimboard.env.example',
      'journalctl -u claimboard',
      'systemctl restart claimboard',
      'ReadWritePaths=',
      'CLAIMBOARD_SERVE_ARGS',
      'npm i --prefix /opt/claimboard',
    ]) {
      expect(doc, s).toContain(s);
    }
  });
});

/** A systemd-analyze that runs here (on PATH or in /usr/bin), or null. */
function systemdAnalyze(): string | null {
  for (const p of ['systemd-analyze', '/usr/bin/systemd-analyze', '/bin/systemd-analyze']) {
    const r = spawnSync(p, ['--version'], { encoding: 'utf8' });
    if (r.status === 0 && /systemd \d+/.test(r.stdout)) return p;
  }
  return null;
}
const analyze = systemdAnalyze();
if (!analyze) console.warn('deploy/claimboard-service.test.ts: no working systemd-analyze here: skipping `systemd-analyze verify` of the units (the other checks run)');

describe.skipIf(!analyze)('systemd-analyze verify', () => {
  // A stand-in for the installed CLI: verify only checks that ExecStart's binary is executable.
  const fakeCli = path.join(tmp, 'bin', 'claimboard');
  fs.mkdirSync(path.dirname(fakeCli), { recursive: true });
  fs.writeFileSync(fakeCli, '#!/bin/sh\nexit 0\n', { mode: 0o755 });

  /** Writes `text` as `name` in a fresh folder, with the installed CLI's path replaced by the stand-in. */
  function copyUnit(name: string, text: string): string {
    expect(text).toContain(CLI);
    const dir = fs.mkdtempSync(path.join(tmp, 'units-'));
    const file = path.join(dir, name);
    fs.writeFileSync(file, text.replaceAll(CLI, fakeCli));
    return file;
  }
  /** Runs verify; returns its exit status and the lines it printed about the unit. */
  function verify(file: string): { status: number | null; about: string[]; output: string } {
    const r = spawnSync(analyze!, ['verify', file], { encoding: 'utf8', env: { ...process.env, SYSTEMD_LOG_COLOR: '0', SYSTEMD_PAGER: '' } });
    const output = `${r.stdout}${r.stderr}`;
    const name = path.basename(file);
    return { status: r.status, output, about: output.split('\n').filter((l) => l.includes(name) || l.includes(file)) };
  }

  it('passes claimboard.service with no warning', () => {
    const r = verify(copyUnit('claimboard.service', UNITS.plain.text));
    expect(r.about, r.output).toEqual([]);
    expect(r.status, r.output).toBe(0);
  });

  it('passes claimboard@.service (as claimboard@alice.service) with no warning', () => {
    const r = verify(copyUnit('claimboard@alice.service', UNITS.template.text));
    expect(r.about, r.output).toEqual([]);
    expect(r.status, r.output).toBe(0);
  });

  it('would catch a broken unit: an unknown key, a bad value, a missing binary', () => {
    // So that a systemd-analyze that printed nothing could not pass the checks above vacuously.
    const typo = verify(copyUnit('claimboard.service', UNITS.plain.text.replace('KillMode=mixed', 'KillMode=mixd\nProtectSystm=strict')));
    expect(typo.about.join('\n')).toMatch(/kill mode/i);
    expect(typo.about.join('\n')).toContain('ProtectSystm');
    const file = copyUnit('claimboard.service', UNITS.plain.text);
    fs.rmSync(fakeCli);
    try {
      const missing = verify(file);
      expect(missing.status).not.toBe(0);
      expect(missing.about.join('\n')).toContain('not executable');
    } finally {
      fs.writeFileSync(fakeCli, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    }
  });
});
