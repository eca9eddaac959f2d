// The HTML report's script, inline in the page: draws the model's lanes as one SVG (only the marks inside the time
// window in view), arrows between marks, the findings list, the per-key aggregates; zoom, pan and filters. Plain
// browser JavaScript, no library: the page must work offline and from a file.
export const REPORT_SCRIPT = String.raw`
(function () {
  'use strict';
  var M = JSON.parse(document.getElementById('model').textContent);
  var LABEL_W = 260, LANE_H = 30, PAD = 20;
  var lanesEl = document.getElementById('lanes');
  var tip = document.getElementById('tip');
  var span = Math.max(1, M.end - M.start);
  var view = { t0: M.start - span * 0.01, t1: M.end + span * 0.01 };
  var filter = { key: '', client: '', stage: '' };
  var highlighted = {};
  var byId = {};
  M.lanes.forEach(function (l) { l.marks.forEach(function (m) { byId[m.id] = { m: m, lane: l }; }); });
  var COLORS = { 'event-own': '#f79009', 'event-other': '#d92d20', 'event-upstream': '#2e90fa', write: '#12b76a', 'write-failed': '#98a2b3', conflict: '#7a5af8', gone: '#b42318', relist: '#b42318', reconcile: '#d0d5dd', 'watch-start': '#344054', 'watch-close': '#667085', list: '#0ba5ec', fault: '#b42318', bookmark: '#98a2b3', tombstone: '#475467' };

  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; }); }
  function options(sel, values) { var el = document.getElementById(sel); values.forEach(function (v) { var o = document.createElement('option'); o.value = v; o.textContent = v; el.appendChild(o); }); }
  var clients = {}, stages = {};
  M.lanes.forEach(function (l) { l.marks.forEach(function (m) { if (m.client) clients[m.client] = 1; stages[m.stage] = 1; }); });
  options('f-client', Object.keys(clients).sort());
  options('f-stage', Object.keys(stages).sort());

  function visibleLanes() {
    return M.lanes.filter(function (l) { return !filter.key || l.label.toLowerCase().indexOf(filter.key.toLowerCase()) >= 0; });
  }
  function markShown(m) { return (!filter.client || m.client === filter.client) && (!filter.stage || m.stage === filter.stage); }

  function draw() {
    var width = Math.max(400, lanesEl.clientWidth - 4);
    var plotW = width - LABEL_W - PAD;
    var lanes = visibleLanes();
    var x = function (t) { return LABEL_W + ((t - view.t0) / (view.t1 - view.t0)) * plotW; };
    var pos = {};
    var out = [];
    var height = lanes.length * LANE_H + 30;
    out.push('<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" id="plot">');
    // time axis
    var ticks = 8;
    for (var i = 0; i <= ticks; i++) {
      var t = view.t0 + (view.t1 - view.t0) * i / ticks;
      var tx = x(t);
      out.push('<line x1="' + tx + '" x2="' + tx + '" y1="14" y2="' + height + '" stroke="#eaecf0"/>');
      out.push('<text x="' + (tx + 2) + '" y="11">' + ((t - M.start) / 1000).toFixed(2) + 's</text>');
    }
    lanes.forEach(function (l, li) {
      var y = 20 + li * LANE_H + LANE_H / 2;
      out.push('<g class="lane" data-lane-kind="' + l.kind + '" data-key="' + esc(l.id) + '">');
      out.push('<rect x="0" y="' + (y - LANE_H / 2) + '" width="' + width + '" height="' + LANE_H + '" fill="' + (li % 2 ? '#fff' : '#f9fafb') + '"/>');
      out.push('<text class="lane-label" x="6" y="' + (y + 4) + '">' + esc(l.label.length > 40 ? '…' + l.label.slice(-39) : l.label) + '</text>');
      out.push('<line x1="' + LABEL_W + '" x2="' + (width - PAD) + '" y1="' + y + '" y2="' + y + '" stroke="#d0d5dd"/>');
      l.marks.forEach(function (m) {
        if (m.t < view.t0 || m.t > view.t1 || !markShown(m)) return;
        var mx = x(m.t);
        pos[m.id] = { x: mx, y: y };
        var c = COLORS[m.kind] || '#667085';
        var hl = highlighted[m.id] ? ' hl' : '';
        var attrs = ' class="mark' + hl + '" data-id="' + m.id + '" data-kind="' + m.kind + '" fill="' + c + '"';
        var title = '<title>#' + m.id + ' ' + esc(m.label) + (m.client ? ' · ' + esc(m.client) : '') + (m.detail ? ' — ' + esc(m.detail) : '') + '</title>';
        if (m.kind.indexOf('event') === 0) out.push('<circle cx="' + mx + '" cy="' + y + '" r="5"' + attrs + '>' + title + '</circle>');
        else if (m.kind === 'reconcile') out.push('<rect x="' + (mx - 1.5) + '" y="' + (y - 9) + '" width="3" height="18"' + attrs + '>' + title + '</rect>');
        else if (m.kind === 'write' || m.kind === 'write-failed' || m.kind === 'conflict') out.push('<rect x="' + (mx - 5) + '" y="' + (y - 5) + '" width="10" height="10"' + attrs + '>' + title + '</rect>');
        else out.push('<path d="M' + mx + ' ' + (y - 7) + 'l6 12h-12z"' + attrs + '>' + title + '</path>');
      });
      out.push('</g>');
    });
    M.arrows.forEach(function (a) {
      var p = pos[a.from], q = pos[a.to];
      if (!p || !q) return;
      var mid = (p.x + q.x) / 2;
      var bend = p.y === q.y ? -12 : 0;
      out.push('<path class="arrow arrow-' + a.kind + '" data-from="' + a.from + '" data-to="' + a.to + '" d="M' + p.x + ' ' + p.y + ' Q' + mid + ' ' + (Math.min(p.y, q.y) + bend) + ' ' + q.x + ' ' + q.y + '"/>');
    });
    out.push('</svg>');
    lanesEl.innerHTML = out.join('');
  }

  function findingsList() {
    var ul = document.getElementById('finding-list');
    if (!M.findings.length) { ul.innerHTML = '<li class="finding" data-kind="none"><span class="t">nothing found</span><div class="d">no loop, fight, periodic writer, stale write, relist storm, stall or expired resourceVersion watched again</div></li>'; return; }
    ul.innerHTML = M.findings.map(function (f, i) {
      return '<li class="finding" data-kind="' + f.kind + '" data-index="' + i + '"><a href="#r' + f.ids[0] + '" class="t">' + esc(f.title) + '</a><div class="d">' + esc(f.detail) + '</div></li>';
    }).join('');
    ul.addEventListener('click', function (e) {
      var li = e.target.closest('.finding');
      if (!li || li.dataset.index === undefined) return;
      e.preventDefault();
      Array.prototype.forEach.call(ul.children, function (c) { c.classList.remove('sel'); });
      li.classList.add('sel');
      focusIds(M.findings[Number(li.dataset.index)].ids);
    });
  }

  function focusIds(ids) {
    highlighted = {};
    var ts = [], lane;
    ids.forEach(function (id) { highlighted[id] = 1; var e = byId[id]; if (e) { ts.push(e.m.t); lane = lane || e.lane; } });
    if (ts.length) {
      var lo = Math.min.apply(null, ts), hi = Math.max.apply(null, ts), pad = Math.max(50, (hi - lo) * 0.1);
      view = { t0: lo - pad, t1: hi + pad };
    }
    filter.key = ''; document.getElementById('f-key').value = '';
    draw();
    if (lane) {
      var idx = visibleLanes().indexOf(lane);
      lanesEl.scrollTop = Math.max(0, idx * LANE_H - 40);
    }
    if (ids.length) history.replaceState(null, '', '#r' + ids[0]);
  }

  function aggregates() {
    var el = document.getElementById('aggregates');
    var rows = M.aggregates.slice(0, 2000);
    el.innerHTML = (M.truncated ? '<p>' + esc(M.truncated) + '</p>' : '') + '<table><tr><th>key</th><th>events</th><th>reconciles</th><th>writes</th><th>409</th><th>writers</th></tr>' +
      rows.map(function (a) { return '<tr><td>' + esc(a.key) + '</td><td>' + a.events + '</td><td>' + a.reconciles + '</td><td>' + a.writes + '</td><td>' + a.conflicts + '</td><td>' + esc(a.writers.join(', ')) + '</td></tr>'; }).join('') +
      '</table>' + (M.aggregates.length > rows.length ? '<p>… and ' + (M.aggregates.length - rows.length) + ' more keys</p>' : '');
  }

  function zoom(factor, at) {
    var c = at === undefined ? (view.t0 + view.t1) / 2 : at;
    if ((view.t1 - view.t0) * factor < 1) return;
    view = { t0: c - (c - view.t0) * factor, t1: c + (view.t1 - c) * factor };
    draw();
  }
  function timeAt(clientX) {
    var r = lanesEl.getBoundingClientRect();
    var plotW = Math.max(400, lanesEl.clientWidth - 4) - LABEL_W - PAD;
    return view.t0 + ((clientX - r.left - LABEL_W) / plotW) * (view.t1 - view.t0);
  }
  // Ctrl/Alt + wheel (or a pinch) zooms around the pointer; a plain wheel scrolls the lanes.
  lanesEl.addEventListener('wheel', function (e) { if (!e.ctrlKey && !e.metaKey && !e.altKey) return; e.preventDefault(); zoom(e.deltaY > 0 ? 1.25 : 0.8, timeAt(e.clientX)); }, { passive: false });
  var drag;
  lanesEl.addEventListener('mousedown', function (e) { drag = { x: e.clientX, t0: view.t0, t1: view.t1 }; lanesEl.classList.add('drag'); });
  window.addEventListener('mouseup', function () { drag = undefined; lanesEl.classList.remove('drag'); });
  window.addEventListener('mousemove', function (e) {
    if (drag) {
      var plotW = Math.max(400, lanesEl.clientWidth - 4) - LABEL_W - PAD;
      var dt = ((e.clientX - drag.x) / plotW) * (drag.t1 - drag.t0);
      view = { t0: drag.t0 - dt, t1: drag.t1 - dt };
      draw();
      return;
    }
    var t = e.target;
    if (t && t.classList && t.classList.contains('mark')) {
      var title = t.querySelector('title');
      tip.textContent = title ? title.textContent : '';
      tip.style.display = 'block'; tip.style.left = (e.clientX + 12) + 'px'; tip.style.top = (e.clientY + 12) + 'px';
    } else tip.style.display = 'none';
  });
  document.getElementById('zoom-in').onclick = function () { zoom(0.5); };
  document.getElementById('zoom-out').onclick = function () { zoom(2); };
  document.getElementById('zoom-reset').onclick = function () { view = { t0: M.start - span * 0.01, t1: M.end + span * 0.01 }; highlighted = {}; draw(); };
  document.getElementById('f-key').oninput = function (e) { filter.key = e.target.value; draw(); };
  document.getElementById('f-client').onchange = function (e) { filter.client = e.target.value; draw(); };
  document.getElementById('f-stage').onchange = function (e) { filter.stage = e.target.value; draw(); };
  window.addEventListener('resize', draw);
  findingsList();
  aggregates();
  draw();
  var m = /^#r(\d+)$/.exec(location.hash);
  if (m) focusIds([Number(m[1])]);
  document.body.dataset.ready = 'true';
})();
`;
