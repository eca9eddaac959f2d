// The offline HTML report: one self-contained file (styles, script and data inline; no request leaves the page),
// for a bug report or a CI artifact. The page draws the model report-model.ts computed: a lane per watch connection
// and per key, arrows write → echo → next write, the findings (each a link to its place in the lanes), the verdict
// and summary; zoom (wheel, +/-), pan (drag), filters by key, client and stage.
import { buildReportModel } from './report-model.js';
import type { TraceRow } from './trace-rows.js';
import { REPORT_SCRIPT } from './html-report-script.js';

/** JSON made safe inside a <script> element: no `</script>`, no `<!--`. */
function scriptJson(v: unknown): string {
  return JSON.stringify(v).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:13px/1.4 system-ui,-apple-system,Segoe UI,sans-serif;color:#1d2330;background:#fafbfc}
header{padding:10px 16px;border-bottom:1px solid #dde;background:#fff}h1{font-size:16px;margin:0 0 4px}
.verdict{font-weight:600}.verdict.bad{color:#b42318}.verdict.good{color:#067647}
.summary{display:flex;flex-wrap:wrap;gap:4px 16px;margin-top:6px;color:#445}.summary b{color:#1d2330}
main{display:grid;grid-template-columns:320px 1fr;height:calc(100vh - 92px)}
#findings{overflow:auto;border-right:1px solid #dde;background:#fff;padding:8px}#findings h2{font-size:13px;margin:4px 0 8px}
.finding{list-style:none;margin:0 0 6px;padding:6px 8px;border-radius:6px;background:#f4f5f8;cursor:pointer;border-left:4px solid #98a2b3}
.finding[data-kind=loop]{border-color:#f79009}.finding[data-kind=fight]{border-color:#d92d20}.finding[data-kind=stale-write]{border-color:#7a5af8}
.finding:hover,.finding.sel{background:#e8ecf6}.finding .t{font-weight:600}.finding .d{color:#475467;font-size:12px;overflow-wrap:anywhere}
#findings ul{padding:0;margin:0}
#view{display:flex;flex-direction:column;min-width:0}
#controls{display:flex;gap:8px;align-items:center;padding:6px 8px;border-bottom:1px solid #dde;background:#fff;flex-wrap:wrap}
#controls input,#controls select{font:inherit;padding:2px 4px}
#lanes{flex:1;overflow:auto;position:relative;cursor:grab}#lanes.drag{cursor:grabbing}
svg text{font:11px system-ui,sans-serif;fill:#344054}.lane-label{font-weight:600}
.arrow{fill:none;stroke-width:1.2;opacity:.75}.arrow-echo{stroke:#f79009}.arrow-trigger{stroke:#d92d20;stroke-dasharray:3 2}
.mark.hl{stroke:#000;stroke-width:2}
#aggregates{padding:8px;border-top:1px solid #dde;max-height:30%;overflow:auto;background:#fff}
#aggregates table{border-collapse:collapse}#aggregates td,#aggregates th{padding:2px 8px;text-align:right;border-bottom:1px solid #eee}
#aggregates td:first-child,#aggregates th:first-child{text-align:left}
.legend{display:flex;gap:10px;color:#475467}.legend i{display:inline-block;width:10px;height:10px;border-radius:50%;margin-right:3px;vertical-align:-1px}
#tip{position:fixed;pointer-events:none;background:#1d2330;color:#fff;padding:4px 6px;border-radius:4px;font-size:12px;display:none;max-width:480px;z-index:9}
@media (max-width:800px){main{grid-template-columns:1fr}#findings{max-height:30vh;border-right:0}}
`;

/** The report page for these rows. */
export function toHtmlReport(rows: readonly TraceRow[], title: string, dropped = 0): string {
  const model = buildReportModel(rows, title, dropped);
  const bad = model.findings.length > 0;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>kwatch trace — ${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
<header><h1>kwatch trace — ${escapeHtml(title)}</h1>
<div class="verdict ${bad ? 'bad' : 'good'}" id="verdict">${escapeHtml(model.verdict)}</div>
<div class="summary">${model.summary.map(([k, v]) => `<span>${escapeHtml(k)} <b>${escapeHtml(String(v))}</b></span>`).join('')}</div>
</header>
<main>
<section id="findings"><h2>Findings (${model.findings.length})</h2><ul id="finding-list"></ul></section>
<section id="view">
<div id="controls">
<label>key <input id="f-key" placeholder="filter" size="18"></label>
<label>client <select id="f-client"><option value="">all</option></select></label>
<label>stage <select id="f-stage"><option value="">all</option></select></label>
<button id="zoom-in" title="zoom in (wheel)">+</button><button id="zoom-out" title="zoom out">−</button><button id="zoom-reset">fit</button>
<span class="legend"><span><i style="background:#f79009"></i>own write echo</span><span><i style="background:#d92d20"></i>another client's write</span><span><i style="background:#2e90fa"></i>upstream</span><span><i style="background:#12b76a;border-radius:0"></i>write</span><span><i style="background:#7a5af8;border-radius:0"></i>409</span><span><i style="background:#b42318;border-radius:0"></i>410 / relist</span><span><i style="background:#475467;border-radius:0"></i>tombstone</span></span>
</div>
<div id="lanes"></div>
<div id="aggregates"></div>
</section>
</main>
<div id="tip"></div>
<script type="application/json" id="model">${scriptJson(model)}</script>
<script>${REPORT_SCRIPT}</script>
</body></html>
`;
}
