import 'server-only';
/**
 * One delivery attempt of an alert to one target: a webhook POST (fetch, a timeout per attempt)
 * or a command (a shell, the JSON on standard input, killed at the timeout). Both asynchronous:
 * nothing here blocks the event loop the indexer shares. Errors come back as values with words
 * that never hold the webhook's URL (it usually carries a secret).
 */
import { spawn } from 'node:child_process';
import type { AlertPayload } from './payload';
import { webhookBody } from './payload';

/** A target as configured (`--alert-webhook`, `--alert-command`). */
export type AlertTarget = { readonly kind: 'webhook'; readonly url: URL } | { readonly kind: 'command'; readonly command: string };

/** The outcome of one attempt: delivered, or why not and whether another attempt may help. */
export type Attempt = { readonly ok: true } | { readonly ok: false; readonly error: string; readonly retry: boolean };

/** How much of an error answer's body is kept in the error words, characters. */
const BODY_WORDS = 200;

/** Why a fetch threw, in words without the URL. */
function fetchError(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) return `no answer within ${timeoutMs / 1000} s`;
  const cause = e instanceof Error ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return `cannot connect (${cause.code})`;
  if (cause && typeof cause.message === 'string') return cause.message;
  return e instanceof Error ? e.message : String(e);
}

/**
 * POSTs the payload to a webhook. 2xx: delivered. 408, 429, 5xx, a timeout or a network error
 * may pass on another attempt; any other answer (a redirect, 4xx: a revoked or mistyped hook)
 * will not. `stop` aborts the attempt (the engine stopping): it resolves as a retryable failure.
 */
export async function postWebhook(url: URL, payload: AlertPayload, timeoutMs: number, stop: AbortSignal, userAgent: string): Promise<Attempt> {
  // Not AbortSignal.any([AbortSignal.timeout(ms), stop]): Node 20 holds the timeout signal it
  // combines only weakly, and one collected before it fired never fires (nodejs/node#57736), so
  // a webhook that never answered held its target's deliveries for ever. This timer holds the
  // controller, and is cleared once the answer (its body included) is read.
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
  const onStop = () => abort.abort(stop.reason);
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  try {
    return await post(url, payload, timeoutMs, stop, userAgent, abort.signal);
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', onStop);
  }
}

async function post(url: URL, payload: AlertPayload, timeoutMs: number, stop: AbortSignal, userAgent: string, signal: AbortSignal): Promise<Attempt> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': userAgent },
      body: webhookBody(url, payload),
      redirect: 'manual',
      signal,
    });
  } catch (e) {
    return { ok: false, error: stop.aborted ? 'stopped' : fetchError(e, timeoutMs), retry: true };
  }
  if (res.status >= 200 && res.status < 300) {
    await res.body?.cancel().catch(() => {});
    return { ok: true };
  }
  let body = '';
  try {
    body = (await res.text()).replace(/\s+/g, ' ').trim().slice(0, BODY_WORDS);
  } catch {
    /* the words are a courtesy */
  }
  const retry = res.status === 408 || res.status === 429 || res.status >= 500;
  const redirect = res.status >= 300 && res.status < 400 ? ' (a redirect: give the URL it points to)' : '';
  return { ok: false, error: `HTTP ${res.status}${redirect}${body ? `: ${body}` : ''}`, retry };
}

/**
 * Runs the command in a shell with the payload as JSON on standard input (one line). Exit 0:
 * delivered; another exit, a signal, or the timeout (the command's process group is killed)
 * may pass on another attempt. Its standard output is ignored; standard error's first line
 * goes into the error words.
 */
export function runCommand(command: string, payload: AlertPayload, timeoutMs: number, stop: AbortSignal): Promise<Attempt> {
  return new Promise((resolve) => {
    let done = false;
    let stderr = '';
    const child = spawn(command, { shell: true, stdio: ['pipe', 'ignore', 'pipe'], detached: true, env: { ...process.env, CLAIMBOARD_ALERT_EVENT: payload.event } });
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const finish = (a: Attempt) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
      resolve(a);
    };
    const timer = setTimeout(() => {
      kill();
      finish({ ok: false, error: `did not finish within ${timeoutMs / 1000} s (killed)`, retry: true });
    }, timeoutMs);
    const onStop = () => {
      kill();
      finish({ ok: false, error: 'stopped', retry: true });
    };
    stop.addEventListener('abort', onStop);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => {
      if (stderr.length < 4096) stderr += s;
    });
    child.on('error', (e) => finish({ ok: false, error: `cannot run it: ${e.message}`, retry: true }));
    child.on('close', (code, signal) => {
      if (code === 0) return finish({ ok: true });
      const line = stderr.split('\n').map((l) => l.trim()).find((l) => l.length > 0)?.slice(0, BODY_WORDS);
      finish({ ok: false, error: `${signal ? `killed by ${signal}` : `exited with ${code}`}${line ? `: ${line}` : ''}`, retry: true });
    });
    child.stdin.on('error', () => {}); // a command that does not read its input
    child.stdin.end(JSON.stringify(payload) + '\n');
  });
}

/** One attempt to `target`. */
export function attempt(target: AlertTarget, payload: AlertPayload, timeoutMs: number, stop: AbortSignal, userAgent: string): Promise<Attempt> {
  switch (target.kind) {
    case 'webhook':
      return postWebhook(target.url, payload, timeoutMs, stop, userAgent);
    case 'command':
      return runCommand(target.command, payload, timeoutMs, stop);
  }
}
