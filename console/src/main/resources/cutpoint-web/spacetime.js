// The space-time diagram of a recorded cut: one line per worker (time to the right), its state
// capture, the marker arrows, and on each channel the messages the cut recorded in transit
// (sent before the sender's capture, received after the receiver's). Positions are logical: a
// worker's capture is placed by its marker distance from the initiators, as the algorithm orders them.
'use strict';
const SpaceTime = (() => {
  const el = Charts.el;

  function counter(list, peer) {
    const c = (list || []).find(x => x.peer === peer);
    return c ? Number(c.count) : 0;
  }

  // The channels of a manifest's topology, with the number of messages the cut recorded on each.
  function channels(manifest) {
    const decls = (manifest.topology && manifest.topology.workers) || [];
    const meta = {};
    for (const p of manifest.pieces || []) meta[p.worker_id] = p.meta || {};
    const out = [];
    for (const d of decls) {
      for (const to of d.outgoing || []) {
        const sent = counter((meta[d.worker_id] || {}).sent, to);
        const received = counter((meta[to] || {}).received, d.worker_id);
        out.push({ from: d.worker_id, to, sent, received, inFlight: Math.max(0, sent - received) });
      }
    }
    return out;
  }

  function levels(manifest) {
    const decls = (manifest.topology && manifest.topology.workers) || [];
    const level = {};
    const queue = [];
    for (const i of manifest.initiators || []) { level[i] = 0; queue.push(i); }
    if (!queue.length && decls.length) { level[decls[0].worker_id] = 0; queue.push(decls[0].worker_id); }
    const byId = {};
    decls.forEach(d => byId[d.worker_id] = d);
    while (queue.length) {
      const w = queue.shift();
      for (const to of (byId[w] && byId[w].outgoing) || []) {
        if (level[to] === undefined) { level[to] = level[w] + 1; queue.push(to); }
      }
    }
    decls.forEach(d => { if (level[d.worker_id] === undefined) level[d.worker_id] = 0; });
    return level;
  }

  // Draws the diagram; onChannel(from, to) is called when a channel is clicked.
  function draw(manifest, onChannel) {
    const decls = ((manifest.topology && manifest.topology.workers) || []).slice()
      .sort((a, b) => a.worker_id.localeCompare(b.worker_id));
    const level = levels(manifest);
    const maxLevel = Math.max(0, ...Object.values(level));
    const rowH = 56, left = 90, step = 120, top = 30;
    const w = left + step * (maxLevel + 2) + 60, h = top + rowH * decls.length + 10;
    const svg = el('svg', { id: 'spacetime', width: w, height: h, viewBox: `0 0 ${w} ${h}` });
    Charts.arrowHead(svg, 'st-marker', '#dc2626');
    Charts.arrowHead(svg, 'st-msg', '#2563eb');
    const y = {};
    decls.forEach((d, i) => y[d.worker_id] = top + i * rowH + rowH / 2);
    const xCap = id => left + step * (0.5 + level[id]);
    svg.appendChild(el('text', { x: left, y: 16 }, 'time →   red: markers, blue: messages recorded in transit, ● state capture'));

    const pieces = {};
    for (const p of manifest.pieces || []) pieces[p.worker_id] = p;
    for (const d of decls) {
      const id = d.worker_id;
      const g = el('g', { 'data-worker': id, class: 'worker-line' });
      g.appendChild(el('text', { x: 8, y: y[id] + 4 }, id));
      g.appendChild(el('line', { x1: left - 20, y1: y[id], x2: w - 20, y2: y[id], stroke: '#334155', 'stroke-width': 1.5 }));
      const p = pieces[id];
      const dot = el('circle', { cx: xCap(id), cy: y[id], r: 6, fill: p ? '#111827' : '#fff', stroke: '#111827',
        'data-capture': id });
      const bytes = p && p.meta ? p.meta.state_bytes : 0;
      dot.appendChild(el('title', {}, id + ': state captured' + (p ? ' (' + bytes + ' bytes)' : ' — no piece')));
      g.appendChild(dot);
      svg.appendChild(g);
    }

    const pairIndex = {};
    for (const c of channels(manifest)) {
      if (y[c.from] === undefined || y[c.to] === undefined) continue;
      const g = el('g', { class: 'channel-link', 'data-channel': c.from + '->' + c.to,
        'data-in-flight': c.inFlight });
      const x1 = xCap(c.from), y1 = y[c.from], y2 = y[c.to];
      const x2 = x1 + step;
      const key = [c.from, c.to].sort().join('|');
      const k = pairIndex[key] = (pairIndex[key] || 0) + 1;
      const bend = (k === 1 ? 0 : 14);
      g.appendChild(el('path', { d: `M${x1},${y1} Q${(x1 + x2) / 2 + bend},${(y1 + y2) / 2} ${x2},${y2}`,
        fill: 'none', stroke: '#dc2626', 'stroke-width': 1.5, 'stroke-dasharray': '5 3',
        'marker-end': 'url(#st-marker)' }));
      const shown = Math.min(c.inFlight, 5);
      const xq = xCap(c.to);
      for (let i = 0; i < shown; i++) {
        const sx = x1 - 12 - i * 10;
        const rx = Math.min(x2 - 6, Math.max(xq + 8, xq + (x2 - xq) * (i + 1) / (shown + 1)));
        g.appendChild(el('line', { x1: sx, y1, x2: rx, y2, stroke: '#2563eb', 'stroke-width': 1.2,
          'marker-end': 'url(#st-msg)', class: 'recorded-message' }));
      }
      const label = el('text', { x: x2 + 4, y: y2 + (y2 > y1 ? -6 : 14), fill: '#2563eb' },
        c.from + '→' + c.to + ': ' + c.inFlight);
      g.appendChild(label);
      g.appendChild(el('title', {}, c.from + ' → ' + c.to + ': ' + c.inFlight
        + ' recorded message(s); click to list them'));
      g.addEventListener('click', () => onChannel(c.from, c.to));
      svg.appendChild(g);
    }
    return svg;
  }

  return { draw, channels };
})();
