/// <reference lib="dom" />
// The HTML report in a real browser (Debian's chromium, headless, driven by puppeteer-core): no console error, no
// network request, one lane per key, the loop's arrows and finding for a self-triggering controller, the fight
// finding for two writers, and a 10,000+ record trace drawn within its budget of marks.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlSim } from '../sim/sim-helpers.js';
import { tempDir } from '../temp-dir.js';
import { KUBECTL, kwatch } from './events-helpers.js';
import { toHtmlReport } from '../../src/trace-export/html-report.js';
import { MAX_MARKS } from '../../src/trace-export/report-model.js';
import type { TraceRow } from '../../src/trace-export/trace-rows.js';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');
const k = kubectlSim({ seed: 3, nodes: 1, pods: 2, churn: 0 }, 'kwatch-e2e-report-');
const dir = tempDir('kwatch-report-');

let browser: Browser;
beforeAll(async () => {
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
});
afterAll(() => browser?.close());

interface Opened {
  page: Page;
  errors: string[];
  requests: string[];
}

/** Opens a report file; every console error and every request other than the file itself is kept. */
async function open(file: string): Promise<Opened> {
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push(`failed: ${r.url()}`));
  page.on('request', (r) => {
    if (r.url() !== `file://${file}`) requests.push(r.url());
  });
  await page.goto(`file://${file}`);
  await page.waitForSelector('body[data-ready=true]', { timeout: 20_000 });
  return { page, errors, requests };
}

describe('the HTML report in chromium', () => {
  it('a self-triggering controller: a lane per key, arrows write → echo → next write, the loop finding linking to its lane', async () => {
    const html = join(dir, 'loop.html');
    // --once, not --for 1s: it stops at --max-reconciles (10 runs a key, past the loop threshold), however slow the
    // machine; at load 35 a 1 s run wrote 6 trace records, before any loop, and the test failed.
    const r = await kwatch(['reconcile', 'deployments.apps', '--with', join(EXAMPLES, 'reconcilers', 'status-stamper.mjs'), '--sim', '-A', '--writes', 'overlay', '--once', '--trace-out', html], {});
    expect(r.stderr).toMatch(/wrote \d+ trace records to .*loop\.html \(html\)/);
    const { page, errors, requests } = await open(html);
    const keys = await page.$$eval('g.lane[data-lane-kind=key]', (gs) => gs.map((g) => g.getAttribute('data-key')));
    // The sim's deployments: one lane each, none twice.
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('default/cart-api');
    expect(await page.$$eval('path.arrow-echo', (p) => p.length)).toBeGreaterThan(5);
    expect(await page.$$eval('path.arrow-trigger', (p) => p.length)).toBeGreaterThan(5);
    const loops = await page.$$eval('.finding[data-kind=loop] .t', (ts) => ts.map((t) => t.textContent));
    expect(loops).toContain('loop: status-stamper on default/cart-api');
    // A finding is a link to its place: clicking it highlights its marks in its lane.
    await page.click('.finding[data-kind=loop]');
    const highlighted = await page.$$eval('.mark.hl', (ms) => ms.map((m) => m.closest('g.lane')?.getAttribute('data-key')));
    expect(highlighted.length).toBeGreaterThan(2);
    expect(new Set(highlighted).size).toBe(1);
    // The key filter keeps the lanes that match.
    await page.type('#f-key', 'cart-api');
    expect(await page.$$eval('g.lane[data-lane-kind=key]', (gs) => gs.map((g) => g.getAttribute('data-key')))).toEqual(['default/cart-api']);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  }, 60_000);

  it('two controller processes fighting over an annotation: the fight finding names both writers', async () => {
    const html = join(dir, 'fight.html');
    const fighter = join(EXAMPLES, 'controllers', 'annotation-fighter.mjs');
    const script = `kubectl create configmap report-fight --from-literal=a=b >/dev/null && (MAX_ROUNDS=6 ${process.execPath} ${fighter} report-fight alice & MAX_ROUNDS=6 ${process.execPath} ${fighter} report-fight bob & wait)`;
    // The run ends when both fighters have made their MAX_ROUNDS writes and exited. --quiet is only a backstop: at 3 s,
    // a loaded machine that started the second fighter 3 s after the first's write ended the run before the fight.
    const r = await kwatch(['reconcile', '--exec', '-n', 'default', '--writes', 'overlay', '--once', '--quiet', '20s', '--max-wait', '45s', '--trace-out', html, '--', 'sh', '-c', script.replaceAll('kubectl', KUBECTL)], { KUBECONFIG: k.kubeconfig, KUBECACHEDIR: `${k.dir}/cache` });
    expect(r.stderr).toMatch(/\(html\)/);
    const { page, errors, requests } = await open(html);
    expect(await page.$$eval('.finding[data-kind=fight] .t', (ts) => ts.map((t) => t.textContent))).toContainEqual(expect.stringMatching(/^fight: annotation-fighter\.mjs\[\d+\] and annotation-fighter\.mjs\[\d+\] on default\/report-fight$/));
    expect(await page.$$eval('g.lane[data-key="default/report-fight"]', (gs) => gs.length)).toBe(1);
    // Events that echo another client's write are drawn as such.
    expect(await page.$$eval('g.lane[data-key="default/report-fight"] [data-kind=event-other]', (m) => m.length)).toBeGreaterThan(2);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  }, 60_000);

  // Over 30 s on a busy host (35-48 s at load 20-30; 11 s in a quieter full run): chromium lays out a report of 30,000
  // records (20,000 marks), which a trace must be to pass the 10,000-mark budget (MAX_MARKS) this checks.
  it('a trace of 30,000 records draws at most its budget of marks and lists every key in the aggregates', async () => {
    const rows: TraceRow[] = [];
    let id = 1;
    for (let i = 0; i < 10_000; i++) {
      const key = `ns/obj-${i % 500}`;
      rows.push({ id: id++, time: 1_700_000_000_000 + i * 10, stage: 'watch', op: 'MODIFIED', type: 'MODIFIED', key, rv: String(i + 10) });
      rows.push({ id: id++, time: 1_700_000_000_000 + i * 10 + 1, stage: 'reconcile', op: 'start', key, controller: 'c', cause: [id - 2] });
      rows.push({ id: id++, time: 1_700_000_000_000 + i * 10 + 2, stage: 'reconcile', op: 'success', key, controller: 'c', cause: [id - 2] });
    }
    const html = join(dir, 'big.html');
    writeFileSync(html, toHtmlReport(rows, 'big'));
    const { page, errors, requests } = await open(html);
    const marks = await page.$$eval('.mark', (m) => m.length);
    expect(marks).toBeGreaterThan(1000);
    expect(marks).toBeLessThanOrEqual(MAX_MARKS);
    expect(await page.$$eval('#aggregates tr', (trs) => trs.length)).toBe(501);
    expect(await page.$eval('#aggregates', (el) => el.textContent)).toMatch(/20000 marks: the lanes show \d+ of 500/);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await page.close();
  }, 60_000);
});
