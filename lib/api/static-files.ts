import 'server-only';
/**
 * The build's static files (`/_next/static/...`: the pages' scripts and stylesheets), answered
 * by the web process (bin/web.ts) from memory, ahead of Next.js. Each is named by a hash of its
 * content or sits under the build's id, so it never changes while the build is served: Next.js
 * marks them immutable, yet reads and gzips each one again on every request (a fresh load of the
 * board, sixteen scripts and a stylesheet, cost its web process about a tenth of a CPU-second).
 * Here a file is read, and gzipped once, the first time it is asked for, and kept: what is kept
 * is at most the build's own static folder (about a megabyte), as a path that is not a file of
 * it is never remembered. Anything else (another method, a name with no type below, a path that
 * leaves the folder or names no file) goes to Next.js, which answers it as it always did.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { acceptsGzip, GZIP_MIN_BYTES, SECURITY_HEADERS } from './fast-path';

/** Where the build's static files are asked for. */
const PREFIX = '/_next/static/';

/**
 * Each kind of file the build writes there: its content type, and whether it is worth gzipping
 * (the fonts and images are compressed already).
 */
const KINDS: Readonly<Record<string, { readonly type: string; readonly compress: boolean }>> = {
  '.js': { type: 'application/javascript; charset=UTF-8', compress: true },
  '.css': { type: 'text/css; charset=UTF-8', compress: true },
  '.json': { type: 'application/json; charset=UTF-8', compress: true },
  '.map': { type: 'application/json; charset=UTF-8', compress: true },
  '.svg': { type: 'image/svg+xml', compress: true },
  '.txt': { type: 'text/plain; charset=UTF-8', compress: true },
  '.woff2': { type: 'font/woff2', compress: false },
  '.woff': { type: 'font/woff', compress: false },
  '.png': { type: 'image/png', compress: false },
  '.ico': { type: 'image/x-icon', compress: false },
};

/**
 * One static file as it is answered: its bytes, gzipped too when worth it, and its entity tag
 * (the quoted tag; the header sends it weak, `W/` before it).
 */
interface StaticFile {
  readonly type: string;
  readonly body: Buffer;
  readonly gzip: Buffer | null;
  readonly tag: string;
}

/** Answers a request for one of `dir`'s files (the build's `.next/static`): true when it did. */
export type StaticFiles = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The answerer of `dir`'s files. A file's answer: 200 with its bytes (gzip when the client takes
 * it and the file is 1 KB or more), `Cache-Control: public, max-age=31536000, immutable` as
 * Next.js gives them, the security headers of every answer, a weak entity tag (the same for the
 * gzipped bytes: a 304 to a request that sends it back), no body to a HEAD.
 */
export function staticFiles(dir: string): StaticFiles {
  const root = path.resolve(dir);
  const kept = new Map<string, StaticFile>();
  const fileOf = (rel: string): StaticFile | null => {
    const known = kept.get(rel);
    if (known) return known;
    const kind = KINDS[path.extname(rel)];
    const file = path.resolve(root, rel);
    if (kind === undefined || !file.startsWith(root + path.sep)) return null;
    let body: Buffer;
    try {
      if (!fs.lstatSync(file).isFile()) return null;
      body = fs.readFileSync(file);
    } catch {
      return null;
    }
    const gzip = kind.compress && body.length >= GZIP_MIN_BYTES ? gzipSync(body) : null;
    const f = { type: kind.type, body, gzip, tag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    kept.set(rel, f);
    return f;
  };
  return (req, res) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.url?.startsWith(PREFIX)) return false;
    const q = req.url.indexOf('?');
    let rel: string;
    try {
      rel = decodeURIComponent(req.url.slice(PREFIX.length, q === -1 ? undefined : q));
    } catch {
      return false;
    }
    if (rel.includes('\0') || rel.includes('\\') || rel.split('/').some((s) => s === '' || s === '.' || s === '..')) return false;
    const f = fileOf(rel);
    if (!f) return false;
    const headers: Record<string, string> = { ...SECURITY_HEADERS, 'Cache-Control': 'public, max-age=31536000, immutable', 'Content-Type': f.type, ETag: `W/${f.tag}` };
    if (f.gzip) headers.Vary = 'Accept-Encoding';
    if (req.headers['if-none-match']?.split(',').some((t) => t.trim().replace(/^W\//, '') === f.tag)) {
      res.writeHead(304, headers).end();
      return true;
    }
    const gzip = f.gzip !== null && acceptsGzip(req.headers['accept-encoding']) ? f.gzip : null;
    const body = gzip ?? f.body;
    if (gzip) headers['Content-Encoding'] = 'gzip';
    headers['Content-Length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  };
}
