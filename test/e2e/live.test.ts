// `kwatch events --live` in a real terminal: the built CLI runs inside a tmux session of its own
// (a private tmux server, -L), keys go in with send-keys and the screen comes back with capture-pane.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, kwatch } from './events-helpers.js';

const TMUX = ['/usr/bin/tmux', '/usr/local/bin/tmux'].find((p) => existsSync(p));
const SOCKET = `kwatch-live-${process.pid}-${Date.now()}`;
const SESSION = 'live';

function tmux(...args: string[]): string {
  const env = { ...process.env };
  delete env.CI;
  delete env.CONTINUOUS_INTEGRATION;
  delete env.TMUX;
  return execFileSync(TMUX!, ['-L', SOCKET, '-f', '/dev/null', ...args], { env, encoding: 'utf8' });
}

const pane = (session: string) => () => tmux('capture-pane', '-p', '-t', session);
const screen = pane(SESSION);

/**
 * Polls a screen until `test` holds (bounded); returns the last screen either way. One capture per poll, every
 * 250 ms: each capture starts a tmux client from this worker (CPU on a 2-core host, where the dashboard under test
 * draws 10 frames a second), and a condition met a quarter second late changes nothing here.
 */
async function waitForScreen(test: (s: string) => boolean, ms = 15_000, capture: () => string = screen): Promise<string> {
  const deadline = Date.now() + ms;
  let s = capture();
  while (!test(s) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    s = capture();
  }
  return s;
}

/** The pipeline row's totals, by stage name: the line of stage names, then rate, total and depth lines below it. */
function totals(s: string): Record<string, number> {
  const lines = s.split('\n');
  const i = lines.findIndex((l) => /^http\s+reflector\s+watch\s+fifo/.test(l));
  if (i < 0) return {};
  const names = lines[i].trim().split(/\s+/);
  const values = [...lines[i + 2].matchAll(/total (\d+)/g)].map((m) => Number(m[1]));
  return Object.fromEntries(names.map((n, j) => [n, values[j]]));
}

/** The pipeline row's rates (events/s over the last 5 s), by stage name. */
function rates(s: string): Record<string, string> {
  const lines = s.split('\n');
  const i = lines.findIndex((l) => /^http\s+reflector\s+watch\s+fifo/.test(l));
  if (i < 0) return {};
  const names = lines[i].trim().split(/\s+/);
  const values = [...lines[i + 1].matchAll(/([\d.]+)\/s/g)].map((m) => m[1]);
  return Object.fromEntries(names.map((n, j) => [n, values[j]]));
}

const ACTIVITY = /^\d\d:\d\d:\d\d\.\d{3} /;
const activityLines = (s: string) => s.split('\n').filter((l) => ACTIVITY.test(l));

describe.runIf(TMUX)('kwatch events --live in tmux', () => {
  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // already gone
    }
  });

  it('shows the header, moving stage rates and totals and the sparklines, filters the activity with /, follows a key with ↑ Enter, and q restores the screen and prints the summary', async () => {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} events pods --sim --sim-churn 50 --live; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-x', '160', '-y', '45', '-s', SESSION, `sh -c '${cmd}'`);

    let s = await waitForScreen((x) => x.includes('resource pods') && /watching since \d\d:\d\d:\d\d/.test(x) && totals(x).watch > 0);
    expect(s).toContain('resource pods');
    expect(s).toMatch(/watching since \d\d:\d\d:\d\d/);
    expect(s).toMatch(/server http:\/\/127\.0\.0\.1:\d+/);
    const before = totals(s).watch;
    expect(before).toBeGreaterThan(0);
    s = await waitForScreen((x) => totals(x).watch > before);
    expect(totals(s).watch).toBeGreaterThan(before);
    expect(s).toMatch(/^\S+\s+\S+\s+[\d.]+\/s/m); // a rate line under the stage names
    // the watch rate moves (events/s over the last 5 s: it changes as events come and the window slides)
    const firstRate = rates(s).watch;
    s = await waitForScreen((x) => rates(x).watch !== undefined && rates(x).watch !== firstRate);
    expect(rates(s).watch).not.toBe(firstRate);
    expect(Number(rates(s).watch) + Number(firstRate)).toBeGreaterThan(0);
    expect(s).toMatch(/^watch events\/s +[▁▂▃▄▅▆▇█]{60} {2}last [\d.]+\/s/m);
    expect(s).toMatch(/^workqueue depth +[▁▂▃▄▅▆▇█]{60}/m);

    // `/` + a key: only that key's lines remain
    s = await waitForScreen((x) => new Set(activityLines(x).map((l) => l.split(/\s+/)[3])).size > 1);
    const keys = new Set(activityLines(s).map((l) => l.split(/\s+/)[3]).filter((k) => k?.startsWith('default/')));
    expect(keys.size).toBeGreaterThan(1);
    const key = [...keys][0];
    tmux('send-keys', '-t', SESSION, '-l', `/${key}`);
    tmux('send-keys', '-t', SESSION, 'Enter');
    s = await waitForScreen((x) => x.includes(`filter: ${key}`) && activityLines(x).length > 0 && activityLines(x).every((l) => l.includes(key)));
    expect(s).toContain(`filter: ${key}`);
    expect(activityLines(s).length).toBeGreaterThan(0);
    for (const line of activityLines(s)) expect(line).toContain(key);

    // ↑ selects the newest line of the (filtered) pane, Enter follows its key: every stage's record of it
    tmux('send-keys', '-t', SESSION, 'Up');
    s = await waitForScreen((x) => x.includes('SELECT (Enter follows the key'));
    expect(s).toContain('SELECT (Enter follows the key, Esc resumes)');
    tmux('send-keys', '-t', SESSION, 'Enter');
    s = await waitForScreen((x) => x.includes(`following ${key}:`) && /^\d\d:\d\d:\d\d\.\d{3}\s+handler\s+On(Add|Update)/m.test(x));
    expect(s).toContain(`following ${key}:`);
    expect(s).toMatch(/^\d\d:\d\d:\d\d\.\d{3}\s+(watch|fifo)\s+/m);
    expect(s).toMatch(/^\d\d:\d\d:\d\d\.\d{3}\s+workqueue\s+add\s+\d*\s+.*reason=/m);
    expect(s).toMatch(/^\d\d:\d\d:\d\d\.\d{3}\s+handler\s+On(Add|Update)/m);
    tmux('send-keys', '-t', SESSION, 'Escape');
    s = await waitForScreen((x) => !x.includes('following ') && x.includes('SELECT'));
    expect(s).not.toContain(`following ${key}:`);
    tmux('send-keys', '-t', SESSION, 'Escape');
    s = await waitForScreen((x) => !x.includes('SELECT'));
    expect(s).not.toContain('SELECT');

    // space freezes the activity pane while the counting goes on; ? shows the keys, any key closes it
    tmux('send-keys', '-t', SESSION, '-l', ' ');
    s = await waitForScreen((x) => x.includes('PAUSED'));
    expect(s).toContain('PAUSED (space resumes)');
    tmux('send-keys', '-t', SESSION, '-l', '?');
    s = await waitForScreen((x) => x.includes('this help'));
    expect(s).toMatch(/^q, Ctrl-C +quit/m);
    tmux('send-keys', '-t', SESSION, '-l', 'x');
    s = await waitForScreen((x) => !x.includes('this help'));
    expect(s).not.toContain('this help');

    tmux('send-keys', '-t', SESSION, '-l', 'q');
    s = await waitForScreen((x) => x.includes('EXIT='));
    expect(s).toContain('EXIT=0');
    // the dashboard is gone (alternate screen left), the exit summary is on the restored screen
    expect(s).not.toContain('resource pods');
    expect(s).toMatch(/^│ watch +│ +\d+ │ +\d+ │ .*MODIFIED=\d+/m);
    expect(s).toMatch(/reconnects=0 relists=0 expired=0/);
  }, 60_000);

  // Ctrl-C is the way out here (q is in the tests around it): one run shows both.
  it('events --live: the informer metrics panel (client-go 1.36 names), with the values the line after the summary prints; Ctrl-C quits too, the summary on the restored screen', async () => {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} events pods --sim --sim-churn 0 --live; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-x', '160', '-y', '45', '-s', 'metrics', `sh -c '${cmd}'`);
    const at = pane('metrics');
    const deadline = Date.now() + 20_000;
    const ROW = /^pods\s+(\d+)\s+(\d+)\s+(p50 .*?sampled pops\)|no samples)\s+(\d+)\s*$/m;
    let s = await waitForScreen((x) => ROW.test(x) && totals(x).handler > 0, deadline - Date.now(), at);
    expect(s).toMatch(/^informer metrics \(client-go 1\.36: informer_queued_items, informer_processing_latency_seconds, informer_store_resource_version\)/m);
    expect(s).toMatch(/^INFORMER\s+QUEUED\s+PEAK\s+PROCESSING LATENCY\s+STORE RV\s*$/m);
    const [, , peak, latency, rv] = ROW.exec(s)!;
    // No churn: once synced nothing changes, so the panel and the exit line must agree exactly.
    s = await waitForScreen((x) => ROW.exec(x)?.[1] === '0', deadline + 10_000 - Date.now(), at);
    tmux('send-keys', '-t', 'metrics', 'C-c');
    await waitForScreen((x) => x.includes('EXIT='), deadline + 20_000 - Date.now(), at);
    const shown = ROW.exec(s)!;
    const after = tmux('capture-pane', '-p', '-J', '-t', 'metrics'); // -J: the metrics line is wider than the window
    expect(after).toContain('EXIT=0');
    expect(after).not.toMatch(/^INFORMER\s+QUEUED/m);
    expect(after).not.toContain('watching since');
    expect(after).toMatch(/reconnects=0 relists=0 expired=0/);
    expect(after).toContain(`informer pods: informer_queued_items 0 (peak ${shown[2]}), informer_processing_latency_seconds ${shown[3]}, informer_store_resource_version ${shown[4]}`);
    expect(Number(peak)).toBeGreaterThan(0);
    expect(latency).toBeTruthy();
    expect(rv).toBe(shown[4]);
  }, 60_000);

  it('index --live: the pipeline and the index panel (values, counts, change since start); q restores the screen and prints the table', async () => {
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} index pods --by nodeName --sim --sim-churn 50 --live; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-x', '160', '-y', '45', '-s', 'index', `sh -c '${cmd}'`);
    const at = pane('index');
    const deadline = Date.now() + 20_000;
    const ready = (x: string) => /pods by nodeName: \d+ objects at resourceVersion \d+/.test(x) && /^VALUE\s+COUNT\s+CHANGE/m.test(x) && totals(x).indexer > 0;
    let s = await waitForScreen(ready, deadline - Date.now(), at);
    expect(s).toMatch(/pods by nodeName: \d+ objects at resourceVersion \d+/);
    expect(s).toMatch(/^VALUE\s+COUNT\s+CHANGE/m);
    expect(s).toMatch(/^node-\d+\s+\d+/m);
    expect(s).toMatch(/watching since \d\d:\d\d:\d\d/);
    // the counts are sorted, largest first
    const counts = s.split('\n').filter((l) => /^node-\d+\s+\d+/.test(l)).map((l) => Number(l.split(/\s+/)[1]));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    // churn moves pods between nodes: a CHANGE since the start appears
    expect(await waitForScreen((x) => /^node-\d+\s+\d+\s+[+-]\d+/m.test(x), deadline + 20_000 - Date.now(), at)).toMatch(/^node-\d+\s+\d+\s+[+-]\d+/m);
    tmux('send-keys', '-t', 'index', '-l', 'q');
    s = await waitForScreen((x) => x.includes('EXIT='), deadline + 30_000 - Date.now(), at);
    expect(s).toContain('EXIT=0');
    expect(s).not.toContain('pods by nodeName');
    expect(s).toMatch(/^│ VALUE\s+│ COUNT\s+│ KEYS\s+│$/m);
    expect(s).toMatch(/reconnects=0 relists=0 expired=0/);
  }, 60_000);

  it('reconcile --live --key: the reconcile panel with the loop warning, and the key followed from the start with each write\'s diff', async () => {
    const mod = join(dirname(BIN), '..', 'examples', 'reconcilers', 'status-stamper.mjs');
    const cmd = `env -u CI -u CONTINUOUS_INTEGRATION NO_COLOR=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} reconcile --with ${JSON.stringify(mod)} -n default --sim --writes overlay --loop-threshold 3 --live --key default/cart-api; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-x', '160', '-y', '50', '-s', 'reconcile', `sh -c '${cmd}'`);
    const at = pane('reconcile');
    const deadline = Date.now() + 20_000;
    const ready = (x: string) => x.includes('loop: status-stamper default/cart-api') && /^\d\d:\d\d:\d\d\.\d{3}\s+reconcile\s+write/m.test(x);
    let s = await waitForScreen(ready, deadline - Date.now(), at);
    expect(s).toContain('reconcile: status-stamper (writes overlay)');
    expect(s).toMatch(/^running \d+ {2}held \d+ {2}queued \d+ {3}runs \d+ {2}errors 0 {2}requeues \d+ {3}p50 [\d.]+m?s {2}p99 [\d.]+m?s$/m);
    expect(s).toContain('loop: status-stamper default/cart-api re-triggered itself with its own writes');
    expect(s).toContain('following default/cart-api:');
    expect(s).toMatch(/^\d\d:\d\d:\d\d\.\d{3}\s+reconcile\s+write\s+\S+\s+.*verb=update-status/m);
    expect(s).toMatch(/^ {6}status\.conditions.*: .* → /m); // the diff of the write, under it
    // Under the reconcile panel, the informers' metrics as events --live draws them.
    expect(s).toMatch(/^informer metrics \(client-go 1\.36: informer_queued_items/m);
    expect(s).toMatch(/^deployments\.apps\s+\d+\s+\d+\s+(no samples|p50 )/m);
    tmux('send-keys', '-t', 'reconcile', '-l', 'q');
    s = await waitForScreen((x) => x.includes('EXIT='), deadline + 15_000 - Date.now(), at);
    expect(s).toContain('EXIT=0');
    expect(s).not.toContain('following default/cart-api');
    expect(s).toMatch(/^│ reconcile\s+│\s+\d+ │\s+\d+ │ start=\d+ success=\d+ write=\d+ loop=1/m);
    expect(s).toMatch(/^informer deployments\.apps: informer_queued_items \d+ \(peak \d+\)/m);
  }, 60_000);

  // TERM=dumb takes the same way out with another reason: that line is checked in process (canDrawLive in
  // test/render/live-dashboard.test.ts), without a CLI run and a sim of its own.
  it('in a terminal with CI set, says so in one line and prints the plain trace', async () => {
    const cmd = `env CI=1 ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} events pods --sim --live --until-synced; echo EXIT=$?; sleep 60`;
    tmux('new-session', '-d', '-x', '200', '-y', '60', '-s', 'fallback', `sh -c '${cmd}'`);
    const at = () => tmux('capture-pane', '-p', '-S', '-200', '-t', 'fallback');
    const s = await waitForScreen((x) => x.includes('EXIT='), 20_000, at);
    expect(s).toContain('EXIT=0');
    expect(s).toContain('--live needs a terminal (CI is set): showing the plain trace');
    expect(s.match(/^TIME\s+STAGE\s+OP\s+KEY/gm)).toHaveLength(1);
  }, 30_000);
});

// Without tmux the terminal test shows as skipped, with the reason in its name and a warning in the log.
if (!TMUX) console.warn('test/e2e/live.test.ts: tmux not found, the --live terminal test is skipped (apt-get install tmux)');
if (!TMUX) {
  describe('kwatch events --live in tmux', () => {
    it.skip('needs tmux (not found at /usr/bin/tmux or /usr/local/bin/tmux; the CI script installs it with apt-get install tmux)', () => {});
  });
}

describe('kwatch events --live without a terminal', () => {
  it('says so in one line and prints the plain trace', async () => {
    const r = await kwatch(['events', 'pods', '--sim', '--live', '--until-synced'], {});
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.includes('--live'))).toEqual(['--live needs a terminal (not a terminal): showing the plain trace']);
    expect(r.stdout).toMatch(/^TIME\s+STAGE\s+OP\s+KEY\s+RV\s+DETAIL/);
    expect(r.stdout).toContain('OnAdd');
    expect(r.stderr).toMatch(/reconnects=0/);
  });

  it('refuses --key or --snapshot-dir without --live, and a --snapshot-dir that is not a folder, with one line', async () => {
    const key = await kwatch(['events', 'pods', '--sim', '--key', 'default/web-0'], {});
    expect(key.code).not.toBe(0);
    expect(key.stderr.trim().split('\n')).toEqual([expect.stringContaining('--key follows a key in the live dashboard: add --live')]);
    const dir = await kwatch(['events', 'pods', '--sim', '--live', '--snapshot-dir', '/nonexistent/kwatch-snaps'], {});
    expect(dir.code).not.toBe(0);
    expect(dir.stderr.trim().split('\n')).toEqual([expect.stringContaining('--snapshot-dir /nonexistent/kwatch-snaps: no such folder')]);
    const index = await kwatch(['index', 'pods', '--by', 'nodeName', '--sim', '--live', '-o', 'ndjson'], {});
    expect(index.code).not.toBe(0);
    expect(index.stderr).toContain('--live draws its own screen: it cannot be combined with -o ndjson');
  });

  it('refuses a machine output or --raw with one line', async () => {
    const r = await kwatch(['events', 'pods', '--sim', '--live', '-o', 'ndjson'], {});
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('--live draws its own screen: it cannot be combined with -o ndjson');
    const raw = await kwatch(['events', 'pods', '--sim', '--live', '--raw'], {});
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toContain('--live shows the informer pipeline: it cannot be combined with --raw');
  });
});
