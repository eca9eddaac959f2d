// The parts of undici kwatch uses, each required from its own file. undici's index loads everything it
// exports — fetch, cookies, WebSocket, the mock agents, the decompress interceptor (and with it zlib) —
// 111 modules where kwatch needs 32: a third of the import time on every run (measured, issue 29).
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

let dispatcherReady = false;

/** Dispatcher.prototype.request & co.: undici's index adds them; so must anyone who skips the index. */
function withRequestApi(): void {
  if (dispatcherReady) return;
  const Dispatcher = createRequire(import.meta.url)('undici/lib/dispatcher/dispatcher.js') as typeof Undici.Dispatcher;
  Object.assign(Dispatcher.prototype, createRequire(import.meta.url)('undici/lib/api/index.js') as object);
  dispatcherReady = true;
}

export function agentClass(): typeof Undici.Agent {
  withRequestApi();
  return createRequire(import.meta.url)('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
}

export function proxyAgentClass(): typeof Undici.ProxyAgent {
  withRequestApi();
  return createRequire(import.meta.url)('undici/lib/dispatcher/proxy-agent.js') as typeof Undici.ProxyAgent;
}

export function envHttpProxyAgentClass(): typeof Undici.EnvHttpProxyAgent {
  withRequestApi();
  return createRequire(import.meta.url)('undici/lib/dispatcher/env-http-proxy-agent.js') as typeof Undici.EnvHttpProxyAgent;
}

export function socks5ProxyAgentClass(): typeof Undici.Socks5ProxyAgent {
  withRequestApi();
  return createRequire(import.meta.url)('undici/lib/dispatcher/socks5-proxy-agent.js') as typeof Undici.Socks5ProxyAgent;
}

export function buildConnector(): typeof Undici.buildConnector {
  return createRequire(import.meta.url)('undici/lib/core/connect.js') as typeof Undici.buildConnector;
}
