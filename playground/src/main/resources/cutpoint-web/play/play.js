'use strict';
// The playground's page: draws what the compiled simulation (engine.js, the production
// SnapshotEngine and CutVerifier under TeaVM) reports, and passes the controls to it. No logic of
// the protocol lives here.
(function () {
  const $ = id => document.getElementById(id);
  const WINDOW = 10000; // simulated ms shown in the space-time diagram
  const W = 460, H = 360;
  let state = null;
  let running = true;
  let carry = 0;
  let last = performance.now();
  let layout = [];       // node positions, by process index
  let links = [];        // [a, b] pairs of process indexes
  let selectedNode = -1;
  let selectedSnap = null;
  let selectedEdge = null;
  let tableKey = '';
  let cutKey = '';

  function esc(s) {
    return String(s).replace(/[&<>"]/g, c => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  }

  function say(message, error) {
    const s = $('status');
    s.textContent = message;
    s.className = error ? 'error' : '';
  }

  /** Runs a command of the engine; a refusal shows and returns false. */
  function cmd(result) {
    if (result) {
      say(result, true);
      return false;
    }
    return true;
  }

  function circle(n) {
    const out = [];
    for (let i = 0; i < n; i++) {
      const a = -Math.PI / 2 + 2 * Math.PI * i / n;
      out.push({x: W / 2 + 140 * Math.cos(a), y: H / 2 + 140 * Math.sin(a)});
    }
    return out;
  }

  function linksFromState() {
    const out = [];
    for (const c of state.channels) {
      const a = +c.from.slice(1) - 1, b = +c.to.slice(1) - 1;
      if (a < b) out.push([a, b]);
    }
    return out;
  }

  // ------------------------------------------------------------------ the system

  function reset(drawnNodes, drawnLinks) {
    const topology = $('topology').value;
    const seed = Math.max(0, Math.floor(+$('seed').value || 0));
    const drawn = topology === 'drawn';
    const nodes = drawn ? drawnNodes || layout : null;
    const size = drawn ? nodes.length : Math.floor(+$('size').value);
    const linkText = drawn ? (drawnLinks || links).map(l => (l[0] + 1) + '-' + (l[1] + 1)).join(',') : '';
    const refused = cpReset(topology, size, linkText, seed, +$('delay').value, +$('rate').value,
        $('fifo').checked ? 1 : 0);
    if (refused) {
      say(refused, true);
      return false;
    }
    state = JSON.parse(cpState(WINDOW));
    layout = drawn ? nodes.slice() : circle(size);
    links = linksFromState();
    $('size').value = size;
    selectedSnap = null;
    selectedEdge = null;
    selectedNode = -1;
    $('channel-editor').hidden = true;
    buildGraph();
    fillInitiators();
    tableKey = cutKey = '';
    render();
    say('a new system: ' + size + ' processes, ' + topology + ', seed ' + seed
        + (drawn ? ' (click empty space to add a process, two processes to link or unlink them)' : ''));
    return true;
  }

  function fillInitiators() {
    $('initiator').innerHTML = state.processes.map(p => '<option>' + esc(p.id) + '</option>').join('');
  }

  // ------------------------------------------------------------------ the graph

  const SVG = 'http://www.w3.org/2000/svg';

  function el(name, attrs, parent) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }

  function buildGraph() {
    const g = $('graph');
    g.innerHTML = '';
    const edges = el('g', {id: 'g-edges'}, g);
    for (const [a, b] of links) {
      el('line', {class: 'edge', x1: layout[a].x, y1: layout[a].y, x2: layout[b].x, y2: layout[b].y,
        'data-a': a, 'data-b': b}, edges);
    }
    el('g', {id: 'g-transit'}, g);
    const nodes = el('g', {id: 'g-nodes'}, g);
    layout.forEach((p, i) => {
      const n = el('g', {class: 'node', 'data-node': i, transform: 'translate(' + p.x + ',' + p.y + ')'}, nodes);
      el('circle', {r: 22}, n);
      el('text', {y: -3}, n).textContent = 'p' + (i + 1);
      el('text', {y: 11, class: 'balance'}, n).textContent = '';
    });
  }

  function renderGraph() {
    const nodes = $('g-nodes').children;
    state.processes.forEach((p, i) => {
      const n = nodes[i];
      n.querySelector('.balance').textContent = '$' + p.balance;
      n.setAttribute('class', 'node' + (p.recording > 0 ? ' recording' : '') + (i === selectedNode ? ' selected' : ''));
    });
    const parts = [];
    for (const t of state.transit) {
      const a = layout[+t.from.slice(1) - 1], b = layout[+t.to.slice(1) - 1];
      const f = Math.max(0, Math.min(1, (state.now - t.sent) / Math.max(1, t.arrive - t.sent)));
      const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
      const x = a.x + dx * f - dy / len * 5, y = a.y + dy * f + dx / len * 5;
      if (t.marker) {
        parts.push('<rect class="marker" x="' + (x - 5) + '" y="' + (y - 5) + '" width="10" height="10" fill="#ea580c">'
            + '<title>marker of snapshot ' + t.snap + ' ' + t.from + '→' + t.to + '</title></rect>');
      } else {
        parts.push('<circle class="' + (t.replay ? 'replay' : 'data') + '" cx="' + x + '" cy="' + y + '" r="4" fill="'
            + (t.replay ? '#16a34a' : '#2563eb') + '"><title>#' + t.seq + ' $' + t.amount + ' ' + t.from + '→' + t.to
            + '</title></circle>');
      }
    }
    $('g-transit').innerHTML = parts.join('');
  }

  function graphClick(ev) {
    const node = ev.target.closest('[data-node]');
    const edge = ev.target.closest('.edge');
    const drawn = $('topology').value === 'drawn';
    if (node) {
      const i = +node.getAttribute('data-node');
      if (drawn && selectedNode >= 0 && selectedNode !== i) {
        const a = Math.min(i, selectedNode), b = Math.max(i, selectedNode);
        const kept = links.filter(l => !(l[0] === a && l[1] === b));
        reset(layout, kept.length === links.length ? links.concat([[a, b]]) : kept);
        return;
      }
      selectedNode = i;
      $('initiator').value = 'p' + (i + 1);
      return;
    }
    if (edge) {
      const a = +edge.getAttribute('data-a'), b = +edge.getAttribute('data-b');
      document.querySelectorAll('.edge.selected').forEach(e => e.classList.remove('selected'));
      edge.classList.add('selected');
      selectedEdge = [a, b];
      const name = $('channel-name');
      name.innerHTML = '<select id="channel-dir"><option>p' + (a + 1) + '→p' + (b + 1) + '</option><option>p'
          + (b + 1) + '→p' + (a + 1) + '</option></select>';
      showChannelDelay();
      $('channel-dir').addEventListener('change', showChannelDelay);
      $('channel-editor').hidden = false;
      return;
    }
    if (drawn && layout.length < 12) {
      const pt = $('graph').createSVGPoint();
      pt.x = ev.clientX;
      pt.y = ev.clientY;
      const p = pt.matrixTransform($('graph').getScreenCTM().inverse());
      const attach = selectedNode >= 0 ? selectedNode : layout.length - 1;
      reset(layout.concat([{x: p.x, y: p.y}]), links.concat([[attach, layout.length]]));
    }
  }

  function channelDir() {
    const [from, to] = $('channel-dir').value.split('→');
    return {from, to};
  }

  function showChannelDelay() {
    const {from, to} = channelDir();
    const c = state.channels.find(c => c.from === from && c.to === to);
    $('channel-delay').value = c ? c.delay : '';
  }

  // ------------------------------------------------------------------ the space-time diagram

  function renderSpacetime() {
    const n = state.processes.length;
    const x0 = 40, x1 = 750, y0 = 16, y1 = 284;
    const start = state.now - WINDOW;
    const X = t => x0 + (t - start) / WINDOW * (x1 - x0);
    const Y = p => y0 + (+p.slice(1) - 1) * (n > 1 ? (y1 - y0) / (n - 1) : 0);
    const parts = [];
    for (const p of state.processes) {
      parts.push('<line class="st-line" x1="' + x0 + '" x2="' + x1 + '" y1="' + Y(p.id) + '" y2="' + Y(p.id) + '"/>'
          + '<text class="st-label" x="4" y="' + (Y(p.id) + 4) + '">' + esc(p.id) + '</text>');
    }
    for (const r of state.rollbacks) {
      if (r.at >= start) {
        parts.push('<line class="st-rollback" x1="' + X(r.at) + '" x2="' + X(r.at) + '" y1="' + (y0 - 10) + '" y2="' + y1 + '"/>'
            + '<text class="st-rollback-label" x="' + (X(r.at) + 3) + '" y="' + (y0 - 4) + '">rollback to #' + r.snap + '</text>');
      }
    }
    const arrow = (t, endAt, endY) => {
      const cls = t.marker ? 'st-marker' : t.replay ? 'st-replay' : 'st-data';
      parts.push('<line class="' + cls + '" x1="' + X(Math.max(t.sent, start)) + '" y1="' + Y(t.from) + '" x2="' + X(endAt)
          + '" y2="' + endY + '"/>');
    };
    for (const t of state.arrivals) arrow(t, t.arrive, Y(t.to));
    for (const t of state.transit) {
      const f = Math.max(0, Math.min(1, (state.now - t.sent) / Math.max(1, t.arrive - t.sent)));
      arrow(t, state.now, Y(t.from) + (Y(t.to) - Y(t.from)) * f);
    }
    const cut = [];
    for (const c of state.captures) {
      parts.push('<circle class="st-capture" cx="' + X(c.at) + '" cy="' + Y(c.p) + '" r="3.5"><title>' + esc(c.p)
          + ' records its state for snapshot ' + c.snap + '</title></circle>');
      if (c.snap === selectedSnap) cut.push(c);
    }
    if (cut.length > 1) {
      cut.sort((a, b) => Y(a.p) - Y(b.p));
      parts.push('<polyline class="st-cut" points="' + cut.map(c => X(c.at) + ',' + Y(c.p)).join(' ') + '"/>');
    }
    $('spacetime').innerHTML = parts.join('');
  }

  // ------------------------------------------------------------------ snapshots and the cut

  function renderSnapshots() {
    $('counts').textContent = state.consistent + ' consistent, ' + state.inconsistent + ' flagged, '
        + state.failed + ' failed';
    const key = state.snapshots.map(s => s.id + s.status).join() + '|' + selectedSnap;
    if (key === tableKey) return;
    tableKey = key;
    $('snapshots').tBodies[0].innerHTML = state.snapshots.map(s =>
      '<tr data-snap="' + s.id + '" data-status="' + s.status + '"' + (s.id === selectedSnap ? ' class="selected"' : '') + '>'
      + '<td>#' + s.id + '</td><td>' + esc(s.initiators.join(', ')) + '</td><td class="' + s.status + '">'
      + s.status.toLowerCase() + '</td><td class="num">' + (s.finished >= 0 ? s.finished - s.started : '') + '</td>'
      + '<td class="num">' + (s.status === 'RECORDING' ? '' : '$' + s.moneyInCut) + '</td></tr>').join('');
  }

  function renderCut() {
    const s = state.snapshots.find(x => x.id === selectedSnap);
    const key = s ? s.id + s.status + s.pieces.length : 'none' + selectedSnap;
    if (key === cutKey) return;
    cutKey = key;
    if (!s) {
      $('cut-title').textContent = selectedSnap == null ? 'click a snapshot' : 'snapshot #' + selectedSnap + ' is no longer listed';
      $('cut').innerHTML = '';
      return;
    }
    $('cut-title').textContent = 'snapshot #' + s.id + ' from ' + s.initiators.join(', ');
    let verdict;
    if (s.status === 'RECORDING') {
      verdict = '<div class="verdict" id="verdict" data-verdict="recording">Recording: ' + s.pieces.length + ' of '
          + state.processes.length + ' processes have reported.</div>';
    } else if (s.status === 'CONSISTENT') {
      verdict = '<div class="verdict ok" id="verdict" data-verdict="consistent">The verifier accepts this cut. Bank: the balances '
          + 'captured plus the transfers recorded in transit hold $' + s.moneyInCut + ', all the money in the system ($'
          + state.money + ').</div>';
    } else {
      verdict = '<div class="verdict bad" id="verdict" data-verdict="' + s.status.toLowerCase() + '">'
          + (s.status === 'INCONSISTENT' ? 'The verifier flags this cut' : 'This snapshot did not complete') + ':<ul>'
          + s.violations.map(v => '<li>' + esc(v) + '</li>').join('') + '</ul>'
          + (s.status === 'INCONSISTENT' && !state.fifo ? 'A message overtook a marker (or a marker overtook a message): '
             + 'without FIFO channels the recorded state and the channel contents disagree.' : '') + '</div>';
    }
    const rows = s.pieces.map(p => '<tr><td>' + esc(p.p) + '</td><td class="num">$' + p.balance + '</td><td>'
        + (p.first ? 'marker from ' + esc(p.first) : 'initiator') + '</td><td>'
        + p.recorded.map(m => esc(m.from) + '→' + esc(p.p) + ' #' + m.seq + ' $' + m.amount).join(', ') + '</td></tr>').join('');
    $('cut').innerHTML = verdict + '<table><thead><tr><th>process</th><th class="num">balance</th><th>recorded</th>'
        + '<th>in transit (recorded on its incoming channels)</th></tr></thead><tbody>' + rows + '</tbody></table>'
        + '<p><button id="rollback" type="button" class="danger"' + (s.status === 'CONSISTENT' ? '' : ' disabled')
        + '>Roll back to this cut</button></p>';
  }

  function render() {
    renderGraph();
    renderSpacetime();
    renderSnapshots();
    renderCut();
    $('clock').textContent = 't = ' + state.now + ' ms' + (running ? '' : ' (paused)');
    if (state.error) say('the engine refused: ' + state.error, true);
  }

  function refresh() {
    state = JSON.parse(cpState(WINDOW));
    render();
  }

  function frame(t) {
    const dt = Math.min(250, t - last);
    last = t;
    if (running) {
      carry += dt * +$('speed').value;
      const ms = Math.floor(carry);
      if (ms > 0) {
        carry -= ms;
        cmd(cpAdvance(ms));
      }
    }
    refresh();
    requestAnimationFrame(frame);
  }

  // ------------------------------------------------------------------ controls

  function snapshot(initiators) {
    const id = cpSnapshot(initiators.join(','));
    if (id.startsWith('error: ')) {
      say(id.slice(7), true);
      return null;
    }
    selectedSnap = +id;
    say('snapshot #' + id + ' started at ' + initiators.join(', '));
    return +id;
  }

  function wire() {
    $('reset').addEventListener('click', () => reset());
    $('topology').addEventListener('change', () => {
      if ($('topology').value === 'drawn') reset(layout, links);
    });
    $('delay').addEventListener('input', () => {
      $('delay-out').textContent = $('delay').value + ' ms';
      cmd(cpSetDelay('', '', +$('delay').value));
    });
    $('rate').addEventListener('input', () => {
      $('rate-out').textContent = $('rate').value + ' /s';
      cmd(cpSetRate(+$('rate').value));
    });
    $('speed').addEventListener('input', () => $('speed-out').textContent = $('speed').value + '×');
    $('fifo').addEventListener('change', () => {
      cmd(cpSetFifo($('fifo').checked ? 1 : 0));
      say($('fifo').checked ? 'FIFO on: every message and marker arrives in the order it was sent'
          : 'FIFO off: markers travel on their own, messages may overtake them');
    });
    $('pause').addEventListener('click', () => {
      running = !running;
      $('pause').textContent = running ? 'Pause' : 'Resume';
    });
    $('step').addEventListener('click', () => {
      running = false;
      $('pause').textContent = 'Resume';
      cmd(cpStep());
    });
    $('snap').addEventListener('click', () => snapshot([$('initiator').value]));
    $('snap-all').addEventListener('click', () => snapshot(state.processes.map(p => p.id)));
    $('snap-three').addEventListener('click', () => {
      const ids = state.processes.map(p => p.id);
      for (let k = 0; k < 3; k++) snapshot([ids[Math.floor(Math.random() * ids.length)]]);
    });
    $('batch').addEventListener('click', () => {
      const count = Math.max(1, Math.min(1000, Math.floor(+$('batch-count').value)));
      const out = $('batch-result');
      const ok = cpBatch(count, Math.max(10, Math.round(+$('delay').value / 4)));
      out.textContent = ok + ' of ' + count + ' consistent';
      out.dataset.ok = ok;
      out.dataset.count = count;
      selectedSnap = state.snapshots.length ? null : selectedSnap;
      refresh();
    });
    $('snapshots').addEventListener('click', ev => {
      const row = ev.target.closest('tr[data-snap]');
      if (row) {
        selectedSnap = +row.dataset.snap;
        render();
      }
    });
    $('cut').addEventListener('click', ev => {
      if (ev.target.id === 'rollback' && cmd(cpRollback(selectedSnap))) {
        say('rolled back to snapshot #' + selectedSnap + ': balances and counters from the cut, the channels emptied, '
            + 'the recorded messages replayed (green)');
        cutKey = '';
      }
    });
    $('graph').addEventListener('click', graphClick);
    $('channel-apply').addEventListener('click', () => {
      const {from, to} = channelDir();
      if (cmd(cpSetDelay(from, to, Math.floor(+$('channel-delay').value)))) say('delay of ' + from + '→' + to + ' set');
    });
  }

  wire();
  reset();
  document.body.dataset.ready = 'true';
  requestAnimationFrame(frame);
})();
