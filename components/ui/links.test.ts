/**
 * The link builders put `channel` in a link only when one is given (a hub's page of one
 * channel), so a serve of one channel links as it always did, and a hub's inner links never land
 * on a page that must ask which channel. The links rendered inside a ChannelScope take the
 * page's channel; a row's own channel wins over it.
 */
import { createElement, type ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { inChannel, whichChannelsOf } from '@/lib/ui/card-channel';
import { historySearch, parseHistoryParams } from '@/lib/ui/history';
import { agentHref, AgentLink, boardHref, BoardLink, orderHref, OrderLink } from './links';
import { ChannelScope } from './channel';

const html = (el: ReactElement, channel?: string) => renderToStaticMarkup(createElement(ChannelScope, { channel, children: el }));

describe('the link builders', () => {
  it('name the channel only when given', () => {
    expect([inChannel('/tuning'), inChannel('/tuning', undefined), inChannel('/tuning', null), inChannel('/tuning', '')]).toEqual(['/tuning', '/tuning', '/tuning', '/tuning']);
    expect(inChannel('/tuning', 'v12')).toBe('/tuning?channel=v12');
    expect(inChannel('/activity?order=t1', 'v12')).toBe('/activity?order=t1&channel=v12');
    expect([orderHref('t 1'), orderHref('t1', 'v09')]).toEqual(['/orders/t%201', '/orders/t1?channel=v09']);
    expect([agentHref('fang'), agentHref('fang', 'v17')]).toEqual(['/agents/fang', '/agents/fang?channel=v17']);
    // The board narrows to a channel by its query's `channel:` term.
    expect([boardHref('holder:fang lane:done'), boardHref('holder:fang lane:done', 'v12'), boardHref(''), boardHref('', 'v12')]).toEqual([
      '/?q=holder%3Afang+lane%3Adone',
      '/?q=channel%3Av12+holder%3Afang+lane%3Adone',
      '/',
      '/?q=channel%3Av12',
    ]);
  });

  it("keep a history's channel in its search, last, and none when it has none", () => {
    expect(historySearch(parseHistoryParams(new URLSearchParams('q=agent:fang&range=7d')))).toBe('range=7d&q=agent%3Afang');
    expect(historySearch(parseHistoryParams(new URLSearchParams('channel=v12&q=agent:fang&range=7d')))).toBe('range=7d&q=agent%3Afang&channel=v12');
  });

  it('read the channels to pick from only out of a which_channel refusal', () => {
    expect(whichChannelsOf({ error: 'bad_request', reason_code: 'which_channel', message: '…', channels: ['v11', 'v12'] })).toEqual(['v11', 'v12']);
    expect(whichChannelsOf({ error: 'not_found', reason_code: 'which_channel', message: 'no channel nope is served here' })).toBeNull();
    expect(whichChannelsOf({ error: 'bad_request', message: 'limit: Too big' })).toBeNull();
    expect(whichChannelsOf('text')).toBeNull();
  });
});

describe('the links', () => {
  it("take the page's channel inside a ChannelScope, and none outside one", () => {
    expect(html(createElement(OrderLink, { id: 't1' }))).toContain('href="/orders/t1"');
    expect(html(createElement(OrderLink, { id: 't1' }), 'v09')).toContain('href="/orders/t1?channel=v09"');
    expect(html(createElement(AgentLink, { name: 'fang' }))).toContain('href="/agents/fang"');
    expect(html(createElement(AgentLink, { name: 'fang' }), 'v17')).toContain('href="/agents/fang?channel=v17"');
    expect(html(createElement(BoardLink, { q: 'lane:done', children: 'done' }), 'v17')).toContain('href="/?q=channel%3Av17+lane%3Adone"');
  });

  it("a row's own channel wins over the page's (a merged list of a hub's channels)", () => {
    expect(html(createElement(AgentLink, { name: 'fang', channel: 'v11' }))).toContain('href="/agents/fang?channel=v11"');
    expect(html(createElement(OrderLink, { id: 't1', channel: 'v11' }), 'v17')).toContain('href="/orders/t1?channel=v11"');
  });
});
