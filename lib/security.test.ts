/** The security policy (issue "reliability and security" §4). */
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, cookieValue, hasReadToken, sameSecret } from './security';

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
