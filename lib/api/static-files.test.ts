/**
 * The build's static files answered from memory (static-files.ts), through a real HTTP server on
 * 127.0.0.1: a script of 4 KB and a stylesheet of 100 bytes in a temporary static folder, a file
 * beside the folder that no request may reach. What the answerer leaves to Next.js here gets 418.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECURITY_HEADERS } from './fast-path';
import { staticFiles } from './static-files';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cb-static-'));
const dir = path.join(tmp, 'static');
const SCRIPT = Buffer.from('console.log("claimboard");\n'.repeat(150)); // 4,050 bytes
const STYLE = Buffer.from('body { color: black; }\n'.repeat(4)); // 92 bytes
let server: http.Server;
let base = '';

beforeAll(async () => {
  fs.mkdirSync(path.join(dir, 'chunks'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'css'));
  fs.writeFileSync(path.join(dir, 'chunks', 'app-1a2b.js'), SCRIPT);
  fs.writeFileSync(path.join(dir, 'css', 'site.css'), STYLE);
  fs.writeFileSync(path.join(dir, 'chunks', 'notes.xyz'), 'a kind of file the build does not write');
  fs.writeFileSync(path.join(tmp, 'secret.js'), 'beside the static folder');
  const answer = staticFiles(dir);
  server = http.createServer((req, res) => {
    if (!answer(req, res)) res.writeHead(418).end('left to Next.js');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A raw request (Node's http: no decoding of the body, no normalising of the path). */
function get(p: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${p}`, { method, headers, path: p }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (b: Buffer) => parts.push(b));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe("the build's static files, from memory", () => {
  it('answers a script immutable with the security headers, gzipped for a client that takes gzip and as it is for one that does not', async () => {
    const zipped = await get('/_next/static/chunks/app-1a2b.js?dpl=x', { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-type']).toBe('application/javascript; charset=UTF-8');
    expect(zipped.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) expect(zipped.headers[k.toLowerCase()]).toBe(v);
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    expect(gunzipSync(zipped.body).equals(SCRIPT)).toBe(true);

    const plain = await get('/_next/static/chunks/app-1a2b.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.equals(SCRIPT)).toBe(true);
    expect(plain.headers.etag).toBe(zipped.headers.etag);
  });

  it('answers a file under 1 KB as it is, and a HEAD with the headers and no body', async () => {
    const css = await get('/_next/static/css/site.css', { 'accept-encoding': 'gzip' });
    expect([css.status, css.headers['content-type'], css.headers['content-encoding'], css.body.equals(STYLE)]).toEqual([200, 'text/css; charset=UTF-8', undefined, true]);
    const head = await get('/_next/static/css/site.css', {}, 'HEAD');
    expect([head.status, head.headers['content-length'], head.body.length]).toEqual([200, String(STYLE.length), 0]);
  });

  it('answers 304 to a request that sends the entity tag back', async () => {
    const { headers } = await get('/_next/static/chunks/app-1a2b.js');
    const again = await get('/_next/static/chunks/app-1a2b.js', { 'if-none-match': `"other", ${headers.etag}` });
    expect([again.status, again.body.length]).toEqual([304, 0]);
    expect((await get('/_next/static/chunks/app-1a2b.js', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('keeps a file once read: its bytes are answered after the file is gone', async () => {
    await get('/_next/static/css/site.css');
    fs.renameSync(path.join(dir, 'css', 'site.css'), path.join(tmp, 'site.css.moved'));
    try {
      expect((await get('/_next/static/css/site.css')).body.equals(STYLE)).toBe(true);
    } finally {
      fs.renameSync(path.join(tmp, 'site.css.moved'), path.join(dir, 'css', 'site.css'));
    }
  });

  it('leaves to Next.js what is not one of its files: other methods and paths, unknown kinds, missing files, paths out of the folder', async () => {
    const left = [
      await get('/_next/static/chunks/app-1a2b.js', {}, 'POST'),
      await get('/_next/image?url=x'),
      await get('/_next/static/chunks/notes.xyz'),
      await get('/_next/static/chunks/missing.js'),
      await get('/_next/static/chunks'),
      await get('/_next/static/../secret.js'),
      await get('/_next/static/%2e%2e/secret.js'),
      await get('/_next/static/chunks/..%2f..%2fsecret.js'),
      await get('/_next/static//chunks/app-1a2b.js'),
      await get('/_next/static/chunks/%E0%A4%A.js'),
    ];
    expect(left.map((r) => r.status)).toEqual(left.map(() => 418));
  });
});
