/**
 * The payload's chat line, made inert where an agent wrote the words; the body chat webhooks
 * get (no top-level `channel`, which Slack and Mattermost read as where to post); targets shown
 * without their secrets.
 */
import { describe, expect, it } from 'vitest';
import { chatText, inertChatText, isChatWebhook, makePayload, MAX_REASON, redactCommand, redactUrl, webhookBody } from './payload';

const base = { channel: 'alpha', reasons: ['gave_up'], since: '2026-11-30T12:00:00Z', url: 'http://127.0.0.1:3000/orders/a-17' };

describe('alert payload', () => {
  it('says the order, the event and the reason in one chat line ending with the link', () => {
    expect(chatText({ ...base, event: 'attention', order_id: 'a-17', reason: 'fang gave up: tests hang' })).toBe(
      ':rotating_light: claimboard (alpha): order a-17 needs attention — fang gave up: tests hang http://127.0.0.1:3000/orders/a-17',
    );
    expect(chatText({ ...base, event: 'resolved', order_id: 'a-17', reason: 'no longer stale: now in Queue (open)' })).toBe(
      ':white_check_mark: claimboard (alpha): order a-17 resolved — no longer stale: now in Queue (open) http://127.0.0.1:3000/orders/a-17',
    );
    expect(chatText({ ...base, event: 'problem', url: 'http://h/problems', reason: 'x' })).toBe(':warning: claimboard (alpha): channel problem — x http://h/problems');
  });

  it("makes an agent's words inert: no Slack command, no Mattermost mention", () => {
    expect(inertChatText('<!channel> & @all, see <http://evil|here>')).toBe('&lt;!channel&gt; &amp; @\u200ball, see &lt;http://evil|here&gt;');
    const p = makePayload({ ...base, event: 'attention', order_id: 'a', reason: '@channel <!here>' });
    expect(p.text).not.toMatch(/@channel|<!here>/);
    // The JSON's own reason keeps the words as written.
    expect(p.reason).toBe('@channel <!here>');
  });

  it('cuts a long reason: the whole payload at MAX_REASON, the chat line shorter', () => {
    const p = makePayload({ ...base, event: 'attention', order_id: 'a', reason: 'x'.repeat(5000) });
    expect(p.reason.length).toBe(MAX_REASON);
    expect(p.reason.endsWith('…')).toBe(true);
    expect(p.text.length).toBeLessThan(700);
  });

  it("renames `channel` for Slack's and Mattermost's hooks only", () => {
    const p = makePayload({ ...base, event: 'stale', order_id: 'a', reason: 'r' });
    const slack = new URL('https://hooks.slack.com/services/T0/B0/secret');
    const mm = new URL('https://chat.example.org/hooks/abc123');
    const plain = new URL('http://127.0.0.1:9999/claimboard');
    expect([isChatWebhook(slack), isChatWebhook(mm), isChatWebhook(plain)]).toEqual([true, true, false]);
    const body = JSON.parse(webhookBody(mm, p)) as Record<string, unknown>;
    expect(body.channel).toBeUndefined();
    expect(body.claimboard_channel).toBe('alpha');
    expect(body.text).toBe(p.text);
    expect((JSON.parse(webhookBody(plain, p)) as Record<string, unknown>).channel).toBe('alpha');
  });

  it('shows targets without their secrets', () => {
    expect(redactUrl(new URL('https://hooks.slack.com/services/T0/B0/secret'))).toBe('https://hooks.slack.com/…');
    expect(redactUrl(new URL('https://user:pw@example.org:8443/hook?token=s'))).toBe('https://example.org:8443/…');
    expect(redactUrl(new URL('http://127.0.0.1:9000'))).toBe('http://127.0.0.1:9000');
    expect(redactCommand('curl -H "Authorization: Bearer s" https://x')).toBe('curl …');
    expect(redactCommand('/usr/local/bin/page-me')).toBe('/usr/local/bin/page-me');
  });
});
