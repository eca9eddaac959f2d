// kubectl's request log (-v 6..9) on stderr, in klog's line format and with the same file:line tags as
// kubectl 1.32, so that what people grep a kubectl log for works on kwatch's too:
//   -v 6  one line per request: verb, URL, status, milliseconds
//   -v 7  + the request line and headers, then "Response Status"
//   -v 8  + response headers, request and response bodies (first 1 KB; Secret values masked)
//   -v 9  the request as a curl line instead of the request headers; bodies up to 10 KB
// Authorization values are always `<scheme> <masked>`. kwatch adds one line when a watch stream closes.
import { createRequire } from 'node:module';
import { maskSecretResourceBody, maskSecrets } from '../render/secrets.js';
import type { WireCall, WireLog, WireRequest } from '../kube/http/wire-log.js';

/** Bodies up to this size are parsed to mask Secret values before the first bytes are shown. */
const MASKABLE_BYTES = 4 << 20;

export function requestLog(verbosity: number, out: NodeJS.WritableStream = process.stderr, now: () => number = () => performance.timeOrigin + performance.now()): WireLog | undefined {
  if (verbosity < 6) return undefined;
  // node:http (and net, streams under it) only for the reason phrases, and only when the log is on: every command
  // imports this module, and a run that fails on its flags connects to nothing (~10 ms of CPU on Node 20).
  const { STATUS_CODES } = createRequire(import.meta.url)('node:http') as typeof import('node:http');
  const shownBodyChars = verbosity >= 9 ? 10_240 : 1024;
  const line = (tag: string, text: string) => out.write(`${klogHeader(now(), tag)}${text}\n`);
  const headerLines = (title: [string, string], tag: string, headers: Record<string, string | string[] | undefined>) => {
    line(title[0], title[1]);
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      for (const v of Array.isArray(value) ? value : [value]) line(tag, `    ${canonicalName(name)}: ${maskHeader(name, v)}`);
    }
  };
  return {
    bodyBytes: verbosity >= 8 ? MASKABLE_BYTES : 0,
    begin(req: WireRequest): WireCall {
      const secrets = isSecretsRequest(req.url);
      if (verbosity >= 8) {
        const body = req.body ?? '';
        line('helper.go:113', `"Request Body" body=${quoteBody(maskedBody(body, Buffer.byteLength(body), secrets), body.length, shownBodyChars)}`);
      }
      if (verbosity >= 9) line('round_trippers.go:473', curlLine(req));
      else if (verbosity >= 7) {
        line('round_trippers.go:470', `${req.method} ${req.url}`);
        headerLines(['round_trippers.go:476', 'Request Headers:'], 'round_trippers.go:480', req.headers);
      }
      const summary = (status: string, ms: number) => `${req.method} ${req.url} ${status} in ${Math.round(ms)} milliseconds`;
      return {
        response({ status, headers, ms }) {
          const statusText = `${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
          if (verbosity === 7 || verbosity === 8) line('round_trippers.go:581', `Response Status: ${statusText} in ${Math.round(ms)} milliseconds`);
          else line('round_trippers.go:560', summary(statusText, ms));
          if (verbosity >= 8) headerLines(['round_trippers.go:584', 'Response Headers:'], 'round_trippers.go:587', headers);
        },
        failed({ ms }) {
          if (verbosity === 7 || verbosity === 8) line('round_trippers.go:581', `Response Status:  in ${Math.round(ms)} milliseconds`);
          else line('round_trippers.go:560', summary('', ms));
        },
        body(text, totalBytes) {
          if (verbosity >= 8) line('helper.go:113', `"Response Body" body=${quoteBody(maskedBody(text, totalBytes, secrets), totalBytes, shownBodyChars)}`);
        },
        closed({ ms, bytes, error }) {
          line('watch.go:100', `"Watch closed" url=${JSON.stringify(req.url)} after="${(ms / 1000).toFixed(1)}s" bytes=${bytes}${error ? ` err=${JSON.stringify(error)}` : ''}`);
        },
      };
    },
  };
}

/** klog's prefix: `I1126 08:30:22.169123   12345 file.go:553] ` (local time, microseconds, pid padded to 7). */
export function klogHeader(epochMs: number, tag: string): string {
  const t = new Date(Math.floor(epochMs));
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const micros = p(Math.floor(epochMs * 1000) % 1_000_000, 6);
  return `I${p(t.getMonth() + 1)}${p(t.getDate())} ${p(t.getHours())}:${p(t.getMinutes())}:${p(t.getSeconds())}.${micros} ${String(process.pid).padStart(7)} ${tag}] `;
}

/** Go's canonical header spelling (content-type → Content-Type), as kubectl prints them. */
function canonicalName(name: string): string {
  return name.split('-').map((w) => (w ? w[0].toUpperCase() + w.slice(1).toLowerCase() : w)).join('-');
}

/** Credentials never appear: an Authorization value keeps its scheme only (`Bearer <masked>`), as kubectl masks it. */
export function maskHeader(name: string, value: string): string {
  if (!/^(proxy-)?authorization$/i.test(name)) return value;
  const scheme = /^(\S+)\s/.exec(value.trim());
  return scheme ? `${scheme[1]} <masked>` : '<masked>';
}

/** kubectl's -v 9 curl line: `curl -v -XGET  -H "Name: value" 'URL'` (two spaces: each header starts with one). */
function curlLine(req: WireRequest): string {
  const headers = Object.entries(req.headers).map(([k, v]) => ` -H ${JSON.stringify(`${k}: ${maskHeader(k, v)}`)}`).join('');
  return `curl -v -X${req.method} ${headers} '${req.url}'`;
}

/** The body as klog quotes it, cut after `max` characters like client-go: `… [truncated N chars]`. */
function quoteBody(text: string, total: number, max: number): string {
  if (text.length <= max && total <= max) return JSON.stringify(text);
  return JSON.stringify(`${text.slice(0, max)} [truncated ${Math.max(0, total - max)} chars]`);
}

/**
 * Whether a request reaches the `secrets` resource (`/api/v1/secrets`, `/api/v1/namespaces/NS/secrets[/NAME]`,
 * the same under `/apis/GROUP/VERSION`): its bodies are Secrets even where they do not say so.
 */
export function isSecretsRequest(url: string): boolean {
  let path: string;
  try {
    path = new URL(url, 'http://x').pathname;
  } catch {
    return true; // a URL we cannot read: assume the worst
  }
  const parts = path.split('/').filter(Boolean).map((p) => decodeURIComponent(p));
  const api = parts.findIndex((p, i) => (p === 'api' && i + 1 < parts.length) || (p === 'apis' && i + 2 < parts.length));
  if (api < 0) return false;
  let i = api + (parts[api] === 'api' ? 2 : 3);
  if (parts[i] === 'namespaces' && parts.length > i + 2) i += 2;
  return parts[i] === 'secrets';
}

/**
 * A body with Secret values masked; one too large to parse that may hold a Secret is not shown at all.
 * A body of the secrets resource is always parsed and masked as a Secret; other bodies only when they
 * name a Secret or carry data.
 */
function maskedBody(text: string, totalBytes: number, secretsResource: boolean): string {
  if (text === '') return text;
  const mayHoldSecret = secretsResource || /"kind"\s*:\s*"Secret/.test(text) || /"(data|stringData)"\s*:/.test(text);
  if (!mayHoldSecret) return text;
  if (Buffer.byteLength(text) < totalBytes) return '<not shown: a body too large to mask its Secret values>';
  try {
    const parsed: unknown = JSON.parse(text);
    const masked = secretsResource ? maskSecretResourceBody(parsed) : maskSecrets(parsed);
    return masked === parsed ? text : JSON.stringify(masked);
  } catch {
    return '<not shown: a body that may hold Secret values and is not JSON>';
  }
}
