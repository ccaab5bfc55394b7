import { describe, expect, it } from 'vitest';
import { ClaimboardError, codeOfStatus, ERROR_CODES, HTTP_STATUS, isErrorCode } from './errors';

describe('error codes', () => {
  it('each code has the status the design of "HTTP" and the action endpoints answer it with', () => {
    expect(HTTP_STATUS).toEqual({
      bad_request: 400,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      too_large: 413,
      unsupported_media_type: 415,
      refused: 422,
      too_many_requests: 429,
      index_unavailable: 503,
    });
    expect(Object.keys(HTTP_STATUS).sort()).toEqual([...ERROR_CODES].sort());
  });

  it('a status reads back as its code; a status no code has (201, 500) reads as null', () => {
    for (const c of ERROR_CODES) expect(codeOfStatus(HTTP_STATUS[c])).toBe(c);
    expect([codeOfStatus(201), codeOfStatus(500)]).toEqual([null, null]);
  });

  it('isErrorCode accepts the listed codes only', () => {
    expect(['conflict', 'unsupported_media_type', 'error', '', 409, null].map(isErrorCode)).toEqual([true, true, false, false, false, false]);
  });

  it('a ClaimboardError keeps its code, message, detail and wait', () => {
    const e = new ClaimboardError('too_many_requests', 'too many actions by ops: wait 12 s', { retryAfterS: 12 });
    expect([e instanceof Error, e.name, e.code, e.message, e.detail, e.retryAfterS]).toEqual([true, 'ClaimboardError', 'too_many_requests', 'too many actions by ops: wait 12 s', {}, 12]);
    const c = new ClaimboardError('conflict', 'g1 is now closed', { detail: { card: { order_id: 'g1' } } });
    expect([c.detail, c.retryAfterS]).toEqual([{ card: { order_id: 'g1' } }, undefined]);
  });
});
