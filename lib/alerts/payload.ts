/**
 * The alert payload: one JSON object per message, with a `text` line
 * Slack and Mattermost incoming webhooks post as it is; and how targets are shown without their
 * secrets. Pure.
 */
import type { AttentionFlag, Lane, OrderState } from '../ledger/derive';
import type { AlertEvent, AlertKind } from './items';

/** What a webhook receives (POST, application/json) and a command reads on its standard input. */
export interface AlertPayload {
  readonly event: AlertEvent;
  /** The channel's folder name (the last component of its path on this machine). */
  readonly channel: string;
  readonly order_id?: string;
  /** The order's lane now (for `resolved`: the lane it is in after leaving). */
  readonly lane?: Lane;
  readonly state?: OrderState;
  /** The card's attention flags now. */
  readonly flags?: readonly AttentionFlag[];
  /** A problem's code and file (`problem`, and `resolved` of a problem). */
  readonly problem?: string;
  readonly path?: string;
  /** What a `resolved` message resolves. */
  readonly resolves?: AlertKind;
  /** The codes this message is about: flags, the stale reason, or the problem code. */
  readonly reasons: readonly string[];
  /** Why, in the board's words. */
  readonly reason: string;
  /** When this machine first saw it (for `resolved`: saw it gone), RFC 3339 on this machine's clock. */
  readonly since: string;
  /** The order's page (or the problems page) on this board. */
  readonly url: string;
  /** One line for a chat: Slack's and Mattermost's incoming webhooks post it. */
  readonly text: string;
}

/** The longest `reason` kept in a payload, characters (a give-up's reason is the agent's own text). */
export const MAX_REASON = 2000;
/** The longest reason shown in `text`, characters. */
const MAX_TEXT_REASON = 500;

const cut = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/**
 * Text an agent wrote, made inert in a chat: `&`, `<`, `>` as entities (Slack reads `<!channel>`
 * and `<url|label>` as commands; both render the entities as the characters) and a zero-width
 * space after each `@` (Mattermost notifies `@channel`, `@all`, `@name`).
 */
export function inertChatText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/@/g, '@\u200b');
}

const EMOJI: Record<AlertEvent, string> = {
  attention: ':rotating_light:',
  stale: ':hourglass:',
  problem: ':warning:',
  resolved: ':white_check_mark:',
};

/**
 * The chat line, e.g. ":rotating_light: claimboard (alpha): order a-17 needs attention — fang
 * gave up: tests hang http://127.0.0.1:3000/orders/a-17".
 */
export function chatText(p: Omit<AlertPayload, 'text'>): string {
  const what = p.order_id !== undefined ? `order ${p.order_id}` : 'channel problem';
  let verb: string;
  switch (p.event) {
    case 'attention':
      verb = `${what} needs attention`;
      break;
    case 'stale':
      verb = `${what} is stale`;
      break;
    case 'problem':
      verb = `${what}`;
      break;
    case 'resolved':
      verb = `${what} resolved`;
      break;
  }
  return `${EMOJI[p.event]} claimboard (${inertChatText(p.channel)}): ${verb} — ${inertChatText(cut(p.reason, MAX_TEXT_REASON))} ${p.url}`;
}

/** Builds a payload: `reason` cut to MAX_REASON, `text` from the rest. */
export function makePayload(p: Omit<AlertPayload, 'text'>): AlertPayload {
  const body = { ...p, reason: cut(p.reason, MAX_REASON) };
  return { ...body, text: chatText(body) };
}

/**
 * Whether a webhook URL is Slack's or Mattermost's incoming webhook (hooks.slack.com, or a path
 * `/hooks/<key>`): both read a top-level `channel` as the chat channel to post in (Mattermost
 * even posts to another channel by that name), so such a URL gets the payload with `channel`
 * renamed `claimboard_channel` (webhookBody).
 */
export function isChatWebhook(url: URL): boolean {
  return url.hostname === 'hooks.slack.com' || /^\/hooks\/[^/]+\/?$/.test(url.pathname);
}

/** The body POSTed to `url`: the payload, with `channel` renamed for a chat webhook (isChatWebhook). */
export function webhookBody(url: URL, p: AlertPayload): string {
  if (!isChatWebhook(url)) return JSON.stringify(p);
  const { channel, ...rest } = p;
  return JSON.stringify({ ...rest, claimboard_channel: channel });
}

/**
 * A webhook URL as shown in logs, the index and GET /api/alerts: scheme, host and port only.
 * Webhook URLs usually carry their secret in the path (Slack `/services/T…/B…/<secret>`,
 * Mattermost `/hooks/<key>`) or the query, and sometimes user:password: all of that is dropped.
 */
export function redactUrl(url: URL): string {
  const rest = url.pathname !== '/' || url.search !== '' ? '/…' : '';
  return `${url.protocol}//${url.host}${rest}`;
}

/** A command as shown: its first word only (the rest may hold a token). */
export function redactCommand(cmd: string): string {
  const first = cmd.trim().split(/\s+/)[0] ?? '';
  return first === cmd.trim() ? first : `${first} …`;
}
