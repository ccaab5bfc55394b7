/** The header's alert status words (alerts-summary.ts). */
import { describe, expect, it } from 'vitest';
import type { AlertsResponse, AlertTargetStatus } from '@/lib/api/types';
import { alertsSummary } from './alerts-summary';

const NOW = 1_800_000_000_000;
const target = (over: Partial<AlertTargetStatus>): AlertTargetStatus => ({
  id: 'abc',
  kind: 'webhook',
  label: 'https://hooks.slack.com/…',
  last_success_ms: null,
  last_error: null,
  last_error_ms: null,
  sent: 0,
  failed: 0,
  pending: 0,
  failing: false,
  ...over,
});
const response = (targets: AlertTargetStatus[]): AlertsResponse => ({
  configured: true,
  status: targets.some((t) => t.failing) ? 'failing' : 'ok',
  now_ms: NOW,
  after_ms: 0,
  base_url: 'http://127.0.0.1:3000',
  targets,
  open: [],
  recent: [],
});

describe('alertsSummary', () => {
  it('is nothing when alerts are not configured', () => {
    expect(alertsSummary({ ...response([]), configured: false, status: 'off' })).toBeNull();
  });
  it('says ok with when each target last sent', () => {
    const s = alertsSummary(response([target({ last_success_ms: NOW - 3 * 60_000, sent: 4 })]));
    expect(s).toEqual({ tone: 'ok', label: 'alerts: ok', detail: 'https://hooks.slack.com/…: last sent 3 min ago; 4 sent, 0 failed, 0 pending' });
  });
  it("names a failing target's error, even when another target is fine", () => {
    const s = alertsSummary(
      response([
        target({ last_success_ms: NOW - 10_000, sent: 1 }),
        target({ id: 'def', kind: 'command', label: 'command: page-me', failing: true, last_error: 'exited with 1', last_error_ms: NOW - 60_000, failed: 1 }),
      ]),
    );
    expect(s?.tone).toBe('failing');
    expect(s?.label).toBe('alerts failing: exited with 1');
    expect(s?.detail.split('\n')[1]).toBe('command: page-me: nothing sent yet; failing: exited with 1 (1 min ago); 0 sent, 1 failed, 0 pending');
  });
  it('says sending while messages are owed and none failed', () => {
    expect(alertsSummary(response([target({ pending: 2 })]))?.label).toBe('alerts: sending');
  });
});
