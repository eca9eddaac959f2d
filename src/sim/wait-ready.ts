// `kwatch sim --wait`: returns once the sim that writes a kubeconfig answers, so that a script can start
// `kwatch sim … &` and use the kubeconfig on the next line (it is written only once the server listens, which
// a shell running the next command at once does not wait for). It asks the control endpoint with the token
// beside the kubeconfig: only the sim that wrote both answers 200 (a file left by an earlier run points at a
// dead port, and is re-read until the new run replaces it).
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ENDPOINT_KUBECONFIG_MARKER } from '../wire/kubeconfig-markers.js';
import { controlTokenFile, isSimKubeconfig } from './kubeconfig.js';

export class SimWaitError extends Error {}

const POLL_MS = 100;
const PROBE_TIMEOUT_MS = 2000;

/** Resolves with the sim's URL once it answers; rejects with a SimWaitError after `timeoutMs`. */
export async function waitForSim(kubeconfigFile: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no kubeconfig there yet';
  for (;;) {
    const target = readTarget(kubeconfigFile);
    if (typeof target === 'string') last = target;
    else if (await answers(target)) return target.server;
    else last = `the sim at ${target.server} does not answer`;
    if (Date.now() >= deadline) throw new SimWaitError(`no kwatch sim answered for ${kubeconfigFile} within ${timeoutMs / 1000}s (${last}): start one with kwatch sim --kubeconfig-out ${kubeconfigFile}`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

interface Target {
  server: string;
  /** The URL that answers 200 once it serves (default: the sim's control endpoint). */
  probe?: string;
  caPem?: string;
  token: string;
}

/** The server, CA and control token the kubeconfig and its token file name; a string says why there is none yet. */
function readTarget(file: string): Target | string {
  let text: string;
  let token: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return 'no kubeconfig and control token there yet';
  }
  // A `kwatch sim --mirror` writes its endpoint's kubeconfig: its own token opens its API (no control endpoint).
  if (text.includes(`name: ${ENDPOINT_KUBECONFIG_MARKER}`)) return mirrorTarget(text);
  try {
    token = readFileSync(controlTokenFile(file), 'utf8').trim();
  } catch {
    return 'no kubeconfig and control token there yet';
  }
  if (!isSimKubeconfig(text)) throw new SimWaitError(`${file} is not a kubeconfig kwatch sim wrote: name the --kubeconfig-out of a kwatch sim`);
  const server = /^ {4}server: (\S+)$/m.exec(text)?.[1];
  if (!server) return 'the kubeconfig names no server';
  const ca = /^ {4}certificate-authority-data: (\S+)$/m.exec(text)?.[1];
  return { server, token, ...(ca ? { caPem: Buffer.from(ca, 'base64').toString('utf8') } : {}) };
}

function mirrorTarget(text: string): Target | string {
  const server = /^ {4}server: (\S+)$/m.exec(text)?.[1];
  const token = /^ {4}token: (\S+)$/m.exec(text)?.[1];
  if (!server || !token) return 'the kubeconfig names no server';
  const ca = /^ {4}certificate-authority-data: (\S+)$/m.exec(text)?.[1];
  return { server, token, probe: `${server.replace(/\/$/, '')}/version`, ...(ca ? { caPem: Buffer.from(ca, 'base64').toString('utf8') } : {}) };
}

function answers(t: Target): Promise<boolean> {
  return new Promise((resolve) => {
    const url = new URL(t.probe ?? '/_kwatch/state', t.server);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { headers: { Authorization: `Bearer ${t.token}` }, timeout: PROBE_TIMEOUT_MS, agent: false, ...(t.caPem ? { ca: t.caPem } : {}) }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
