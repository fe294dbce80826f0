// Small SVG drawings: the topology graph, the latency chart and the phases bar.
'use strict';
const Charts = (() => {
  const NS = 'http://www.w3.org/2000/svg';

  function el(name, attrs, text) {
    const e = document.createElementNS(NS, name);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function arrowHead(svg, id, colour) {
    let defs = svg.querySelector('defs');
    if (!defs) { defs = el('defs'); svg.appendChild(defs); }
    const m = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7,
      orient: 'auto-start-reverse' });
    m.appendChild(el('path', { d: 'M0,0 L10,5 L0,10 z', fill: colour }));
    defs.appendChild(m);
  }

  // Workers on a circle, one arrow per channel. workers: [{id, state}], channels: [{from, to}].
  function topology(workers, channels, initiators) {
    const w = 420, h = 320, r = 22, cx = w / 2, cy = h / 2, R = Math.min(w, h) / 2 - 40;
    const svg = el('svg', { id: 'topology', width: w, height: h, viewBox: `0 0 ${w} ${h}` });
    arrowHead(svg, 'topo-arrow', '#64748b');
    const pos = {};
    workers.forEach((wk, i) => {
      const a = -Math.PI / 2 + 2 * Math.PI * i / Math.max(1, workers.length);
      pos[wk.id] = { x: cx + R * Math.cos(a), y: cy + R * Math.sin(a) };
    });
    for (const c of channels) {
      const a = pos[c.from], b = pos[c.to];
      if (!a || !b) continue;
      const dx = b.x - a.x, dy = b.y - a.y, d = Math.hypot(dx, dy) || 1;
      // Offset both directions of a pair a little so that they do not overlap.
      const ox = -dy / d * 5, oy = dx / d * 5;
      svg.appendChild(el('line', { x1: a.x + dx / d * r + ox, y1: a.y + dy / d * r + oy,
        x2: b.x - dx / d * (r + 2) + ox, y2: b.y - dy / d * (r + 2) + oy, stroke: '#64748b',
        'stroke-width': 1.5, 'marker-end': 'url(#topo-arrow)', 'data-channel': c.from + '->' + c.to }));
    }
    for (const wk of workers) {
      const p = pos[wk.id];
      const g = el('g', { 'data-worker': wk.id });
      const colour = { WORKER_STATE_RUNNING: '#dcfce7', WORKER_STATE_LOST: '#fee2e2' }[wk.state] || '#fef3c7';
      g.appendChild(el('circle', { cx: p.x, cy: p.y, r, fill: colour,
        stroke: (initiators || []).includes(wk.id) ? '#2563eb' : '#334155', 'stroke-width': 2 }));
      g.appendChild(el('text', { x: p.x, y: p.y + 4, 'text-anchor': 'middle' }, wk.id));
      svg.appendChild(g);
    }
    return svg;
  }

  // Total duration of each finished snapshot, oldest left; a dot per snapshot coloured by status.
  function latency(snapshots) {
    const w = 640, h = 180, pad = 36;
    const svg = el('svg', { id: 'latency-chart', width: w, height: h, viewBox: `0 0 ${w} ${h}` });
    const pts = snapshots.filter(s => s.status !== 'SNAPSHOT_STATUS_PENDING').slice().reverse();
    const ms = s => Number((s.timings && s.timings.total_micros) || 0) / 1000;
    const max = Math.max(1, ...pts.map(ms));
    svg.appendChild(el('text', { x: 4, y: 14 }, 'snapshot duration (ms), max ' + max.toFixed(1)));
    svg.appendChild(el('line', { x1: pad, y1: h - pad, x2: w - 8, y2: h - pad, stroke: '#cbd5e1' }));
    svg.appendChild(el('line', { x1: pad, y1: 20, x2: pad, y2: h - pad, stroke: '#cbd5e1' }));
    svg.appendChild(el('text', { x: 4, y: 26 }, max.toFixed(0)));
    svg.appendChild(el('text', { x: 4, y: h - pad }, '0'));
    if (!pts.length) return svg;
    const x = i => pad + (pts.length === 1 ? 0.5 : i / (pts.length - 1)) * (w - pad - 16);
    const y = v => h - pad - v / max * (h - pad - 24);
    svg.appendChild(el('polyline', { points: pts.map((s, i) => x(i) + ',' + y(ms(s))).join(' '),
      fill: 'none', stroke: '#2563eb', 'stroke-width': 1.5 }));
    const colours = { SNAPSHOT_STATUS_COMPLETE: '#15803d', SNAPSHOT_STATUS_FAILED: '#b91c1c',
      SNAPSHOT_STATUS_ABORTED: '#b45309' };
    pts.forEach((s, i) => {
      const c = el('circle', { cx: x(i), cy: y(ms(s)), r: 3, fill: colours[s.status] || '#7c3aed',
        'data-id': s.snapshot_id });
      c.appendChild(el('title', {}, '#' + s.snapshot_id + ': ' + ms(s).toFixed(1) + ' ms'));
      svg.appendChild(c);
    });
    svg.appendChild(el('text', { x: pad, y: h - 12 }, '#' + pts[0].snapshot_id));
    svg.appendChild(el('text', { x: w - 60, y: h - 12 }, '#' + pts[pts.length - 1].snapshot_id));
    return svg;
  }

  // Marker propagation, upload and commit as parts of one bar.
  function phases(timings) {
    const t = timings || {};
    const m = Number(t.marker_propagation_micros || 0), u = Number(t.upload_micros || 0),
      c = Number(t.commit_micros || 0), total = Math.max(1, m + u + c);
    const bar = document.createElement('div');
    bar.className = 'phases';
    bar.title = `markers ${(m / 1000).toFixed(1)} ms, upload ${(u / 1000).toFixed(1)} ms, commit ${(c / 1000).toFixed(1)} ms`;
    for (const [cls, v] of [['ph-marker', m], ['ph-upload', u], ['ph-commit', c]]) {
      const s = document.createElement('span');
      s.className = cls;
      s.style.width = (100 * v / total) + '%';
      bar.appendChild(s);
    }
    return bar;
  }

  return { el, arrowHead, topology, latency, phases };
})();
