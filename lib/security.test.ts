/** The security policy (issue "reliability and security" §4). */
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, cookieValue, hasReadToken, MAX_POST_BODY_BYTES, originAllowed, refusedAtDoor, sameSecret, servedHosts } from './security';

describe('contentSecurityPolicy', () => {
  it('allows scripts only from this origin or with the nonce, never inline otherwise, and no framing', () => {
    const csp = contentSecurityPolicy('abc');
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives['script-src']).toEqual(["'self'", "'nonce-abc'", "'strict-dynamic'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(directives['object-src']).toEqual(["'none'"]);
    expect(csp).not.toContain("'unsafe-eval'");
    expect(directives['script-src']).not.toContain("'unsafe-inline'");
  });
});

describe('hasReadToken', () => {
  const h = (auth?: string) => new Headers(auth ? { authorization: auth } : {});
  it('needs nothing when no token is configured', () => {
    expect(hasReadToken('', { headers: h(), cookie: undefined, query: null })).toBe(true);
  });
  it('accepts the token as a bearer header, a cookie or a query parameter, and nothing else', () => {
    const t = 's3cret-token';
    expect(hasReadToken(t, { headers: h(`Bearer ${t}`), cookie: undefined, query: null })).toBe(true);
    expect(hasReadToken(t, { headers: h(), cookie: t, query: null })).toBe(true);
    expect(hasReadToken(t, { headers: h(), cookie: undefined, query: t })).toBe(true);
    expect(hasReadToken(t, { headers: h(), cookie: undefined, query: null })).toBe(false);
    expect(hasReadToken(t, { headers: h('Bearer s3cret-tokeN'), cookie: 's3cret', query: '' })).toBe(false);
  });
  it('compares in constant time over equal lengths', () => {
    expect(sameSecret('abc', 'abc')).toBe(true);
    expect(sameSecret('abc', 'abd')).toBe(false);
    expect(sameSecret('abc', 'abcd')).toBe(false);
  });
});

describe('cookieValue', () => {
  it('reads a cookie as Next.js does: split on ";", URI-decoded, the last repeated name wins', () => {
    expect(cookieValue('a=1; claimboard_token=s%3Dx; b=2', 'claimboard_token')).toBe('s=x');
    expect(cookieValue('claimboard_token=one;claimboard_token=two', 'claimboard_token')).toBe('two');
    expect(cookieValue('xclaimboard_token=1; claimboard_tokenx=2', 'claimboard_token')).toBeUndefined();
    expect(cookieValue('claimboard_token=%E0%A4%A; a=1', 'claimboard_token')).toBeUndefined();
    expect(cookieValue(null, 'claimboard_token')).toBeUndefined();
    expect(cookieValue('claimboard_token', 'claimboard_token')).toBe('true');
  });
});

describe('servedHosts and the door', () => {
  it('a loopback bind answers its address and localhost at its port; a wildcard bind this machine\'s addresses and name; --public-url its host', () => {
    expect(servedHosts('127.0.0.1', 3000).sort()).toEqual(['127.0.0.1:3000', '[::1]:3000', 'localhost:3000']);
    expect(servedHosts('10.0.0.5', 80).sort()).toEqual(['10.0.0.5', '10.0.0.5:80']);
    const wild = servedHosts('0.0.0.0', 3000, { interfaces: ['10.0.0.5', 'fe80::1'], hostname: 'Hub', publicUrls: ['https://board.example.org/'] });
    for (const h of ['10.0.0.5:3000', '[fe80::1]:3000', 'hub:3000', 'localhost:3000', 'board.example.org', 'board.example.org:443']) expect(wild).toContain(h);
    expect(wild).not.toContain('board.example.org:3000');
  });
  it('refuses another Host (421), a path that does not decode (400) and a declared body over the limit (413); lets the rest through', () => {
    const allowed = servedHosts('127.0.0.1', 3000);
    const h = (headers: Record<string, string>) => (n: string) => headers[n];
    expect(refusedAtDoor('GET', '/', h({ host: 'evil.example:3000' }), allowed)?.status).toBe(421);
    expect(refusedAtDoor('GET', '/', h({}), allowed)?.status).toBe(421);
    for (const p of ['/%', '/%zz', '/%c0%ae', '/orders/%E0%A4%A']) expect(refusedAtDoor('GET', p, h({ host: '127.0.0.1:3000' }), allowed)?.status).toBe(400);
    expect(refusedAtDoor('POST', '/api/actions', h({ host: 'LOCALHOST:3000', 'content-length': String(MAX_POST_BODY_BYTES + 1) }), allowed)?.status).toBe(413);
    expect(refusedAtDoor('POST', '/api/actions', h({ host: 'localhost:3000', 'content-length': '900' }), allowed)).toBeNull();
    expect(refusedAtDoor('GET', '/orders/a%20b?q=%', h({ host: '127.0.0.1:3000' }), allowed)).toBeNull();
    // No list (a dev server): not checked.
    expect(refusedAtDoor('GET', '/', h({ host: 'anything' }), [])).toBeNull();
  });
  it('an Origin must be a host the board answers to, not merely the request\'s Host', () => {
    const allowed = servedHosts('127.0.0.1', 3000);
    expect(originAllowed('http://127.0.0.1:3000', allowed, '127.0.0.1:3000')).toBe(true);
    expect(originAllowed('http://evil.example', allowed, 'evil.example')).toBe(false);
    expect(originAllowed('null', allowed, '127.0.0.1:3000')).toBe(false);
    expect(originAllowed('http://evil.example', [], 'evil.example')).toBe(true); // no list: the Host, as a dev server has it
  });
});
