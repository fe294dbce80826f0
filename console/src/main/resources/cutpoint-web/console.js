// The console: views over the Admin API, actions with confirmation, live updates from the events.
'use strict';
(() => {
  const view = document.getElementById('view');
  const short = s => (s || '').replace(/^(SNAPSHOT_STATUS_|SNAPSHOT_TRIGGER_|WORKER_STATE_|EVENT_TYPE_|ACTIVITY_)/, '');
  const esc = s => String(s === undefined || s === null ? '' : s).replace(/[&<>"']/g,
    c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
  const ms = micros => (Number(micros || 0) / 1000).toFixed(1) + ' ms';
  const time = unixMs => Number(unixMs) ? new Date(Number(unixMs)).toISOString().replace('T', ' ').replace(/\.\d+Z/, 'Z') : '';
  function bytes(n) {
    n = Number(n || 0);
    if (n < 1024) return n + ' B';
    if (n < 1048576) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1048576).toFixed(1) + ' MiB';
  }
  function h(html) { const t = document.createElement('template'); t.innerHTML = html.trim(); return t.content.firstChild; }

  // ---- dialogs and messages
  function toast(text, error) {
    const t = document.getElementById('toast');
    t.textContent = text;
    t.className = error ? 'error' : '';
    t.style.display = 'block';
    clearTimeout(toast.timer);
    toast.timer = setTimeout(() => t.style.display = 'none', error ? 8000 : 4000);
  }
  function confirmAction(text) {
    const d = document.getElementById('confirm-dialog');
    document.getElementById('confirm-text').textContent = text;
    return new Promise(res => {
      d.onclose = () => res(d.returnValue === 'ok');
      d.returnValue = '';
      d.showModal();
    });
  }
  let tokenAsk = null;
  function askToken(reason) {
    if (tokenAsk) return tokenAsk;
    const d = document.getElementById('token-dialog');
    document.getElementById('token-reason').textContent = reason ? 'The coordinator says: ' + reason + '.' : '';
    const input = document.getElementById('token-input');
    input.value = '';
    tokenAsk = new Promise(res => {
      d.onclose = () => { tokenAsk = null; res(d.returnValue === 'ok' && input.value.trim() ? input.value.trim() : null); };
      d.returnValue = '';
      d.showModal();
    });
    return tokenAsk;
  }
  Api.onTokenNeeded(askToken);
  document.getElementById('token-button').onclick = async () => {
    const t = await askToken('');
    if (t) { Api.setToken(t); restartEvents(); render(); }
  };

  async function act(question, what, done) {
    if (!await confirmAction(question)) return;
    try {
      const r = await what();
      toast(done(r));
    } catch (e) {
      toast((e.status ? e.status + ' ' : '') + e.message, true);
    }
    render();
  }

  // ---- views
  async function clusterView() {
    const c = await Api.cluster();
    const workers = (c.workers || []).map(w => ({ id: w.decl.worker_id, state: w.state, w }));
    const node = h(`<section id="cluster-view"><h2>Cluster</h2>
      <div class="cards">
        <div class="card"><small>epoch</small><b id="epoch">${esc(c.epoch)}</b></div>
        <div class="card"><small>workers</small><b id="worker-count">${workers.length}</b></div>
        <div class="card"><small>latest complete</small><b>${c.latest_complete_snapshot !== '0'
          ? `<a href="#/snapshots/${esc(c.latest_complete_snapshot)}">#${esc(c.latest_complete_snapshot)}</a>` : '—'}</b></div>
        <div class="card"><small>pending</small><b>${(c.pending_snapshots || []).length}</b></div>
        <div class="card"><small>rollback</small><b>${c.rollback_in_progress ? 'in progress' : 'none'}</b></div>
      </div>
      <div id="topology-box"></div>
      <h3>Workers</h3>
      <table id="workers"><thead><tr><th>worker</th><th>state</th><th>channel address</th>
        <th>outgoing</th><th>incoming</th><th>last heartbeat</th></tr></thead><tbody></tbody></table>
    </section>`);
    node.querySelector('#topology-box').appendChild(Charts.topology(workers, c.channels || [], c.initiators));
    const tb = node.querySelector('tbody');
    for (const { id, state, w } of workers) {
      tb.appendChild(h(`<table><tr data-worker="${esc(id)}"><td>${esc(id)}</td>
        <td class="state-${esc(short(state))}">${esc(short(state))}</td><td><code>${esc(w.decl.channel_address)}</code></td>
        <td>${esc((w.decl.outgoing || []).join(', '))}</td><td>${esc((w.decl.incoming || []).join(', '))}</td>
        <td>${esc(time(w.last_heartbeat_unix_ms))}</td></tr></table>`).querySelector('tr'));
    }
    return node;
  }

  function violationsText(m) {
    if (!(m.violations || []).length) return esc(m.reason || '');
    return (m.violations || []).map(v => esc((v.channel ? v.channel.from + '->' + v.channel.to + ': ' : '')
      + (v.worker_id ? v.worker_id + ': ' : '') + v.message)).join('<br>');
  }

  async function snapshotsView() {
    const list = (await Api.snapshots(200)).snapshots || [];
    const node = h(`<section id="snapshots-view"><h2>Snapshots</h2>
      <div class="actions"><button id="trigger" class="primary">Trigger snapshot</button></div>
      <div id="chart-box"></div>
      <p class="legend">phases:<span class="ph-marker"></span>marker propagation<span class="ph-upload"></span>upload<span class="ph-commit"></span>commit</p>
      <table id="snapshots"><thead><tr><th class="num">id</th><th>status</th><th>trigger</th><th>started</th>
        <th class="num">duration</th><th>phases</th><th class="num">state</th><th class="num">in flight</th>
        <th>pinned</th><th>violations / reason</th></tr></thead><tbody></tbody></table></section>`);
    node.querySelector('#chart-box').appendChild(Charts.latency(list));
    const tb = node.querySelector('tbody');
    for (const m of list) {
      const row = h(`<table><tr class="clickable" data-id="${esc(m.snapshot_id)}" data-status="${esc(short(m.status))}">
        <td class="num">${esc(m.snapshot_id)}</td><td class="status ${esc(short(m.status))}">${esc(short(m.status))}</td>
        <td>${esc(short(m.trigger))}</td><td>${esc(time(m.started_at_unix_ms))}</td>
        <td class="num">${m.timings ? ms(m.timings.total_micros) : ''}</td><td class="ph"></td>
        <td class="num">${bytes(m.total_state_bytes)}</td>
        <td class="num">${esc(m.in_flight_messages)} (${bytes(m.total_channel_bytes)})</td>
        <td>${m.pinned ? 'pinned' : ''}</td><td class="violations">${violationsText(m)}</td></tr></table>`).querySelector('tr');
      row.querySelector('.ph').appendChild(Charts.phases(m.timings));
      row.onclick = () => location.hash = '#/snapshots/' + m.snapshot_id;
      tb.appendChild(row);
    }
    node.querySelector('#trigger').onclick = () => act('Trigger a snapshot now?', Api.trigger,
      r => 'snapshot #' + r.snapshot_id + ' ' + short(r.manifest.status).toLowerCase());
    return node;
  }

  async function snapshotView(id) {
    const m = (await Api.snapshot(id)).manifest;
    const complete = m.status === 'SNAPSHOT_STATUS_COMPLETE';
    const node = h(`<section id="snapshot-view" data-id="${esc(m.snapshot_id)}"><h2>Snapshot #${esc(m.snapshot_id)}
      <span class="status ${esc(short(m.status))}" id="snapshot-status">${esc(short(m.status))}</span></h2>
      <div class="cards">
        <div class="card"><small>trigger</small><b>${esc(short(m.trigger))}</b></div>
        <div class="card"><small>epoch</small><b>${esc(m.epoch)}</b></div>
        <div class="card"><small>duration</small><b>${m.timings ? ms(m.timings.total_micros) : ''}</b><span class="ph"></span></div>
        <div class="card"><small>state</small><b>${bytes(m.total_state_bytes)}</b></div>
        <div class="card"><small>in flight</small><b>${esc(m.in_flight_messages)}</b><small>${bytes(m.total_channel_bytes)}</small></div>
        <div class="card"><small>initiators</small><b>${esc((m.initiators || []).join(', '))}</b></div>
      </div>
      <p class="violations">${violationsText(m)}</p>
      <div class="actions">
        <button id="pin">${m.pinned ? 'Unpin' : 'Pin'}</button>
        <button id="rollback" class="danger" ${complete ? '' : 'disabled'}>Roll back to this snapshot</button>
        <button id="delete" class="danger">Delete</button>
      </div>
      <h3>Workers</h3>
      <table id="pieces"><thead><tr><th>worker</th><th class="num">state</th><th class="num">chunks</th>
        <th>sent at cut</th><th>received at cut</th><th class="num">recorded in</th><th class="num">recording</th>
        <th>activity</th></tr></thead><tbody></tbody></table>
      <h3>Space-time diagram of the cut</h3>
      <p class="muted">Click a channel to list the messages recorded on it.</p>
      <div id="spacetime-box"></div>
      <div id="channel-box"></div></section>`);
    node.querySelector('.ph').appendChild(Charts.phases(m.timings));
    const counters = l => (l || []).map(c => esc(c.peer) + ':' + esc(c.count)).join(' ');
    const tb = node.querySelector('tbody');
    for (const p of m.pieces || []) {
      const meta = p.meta || {};
      tb.appendChild(h(`<table><tr data-worker="${esc(p.worker_id)}"><td>${esc(p.worker_id)}</td>
        <td class="num">${bytes(meta.state_bytes)}</td><td class="num">${esc(p.state_chunks)}</td>
        <td>${counters(meta.sent)}</td><td>${counters(meta.received)}</td>
        <td class="num">${esc(p.in_flight_messages)} (${bytes(p.channel_bytes)})</td>
        <td class="num">${esc(meta.recording_millis)} ms</td><td>${esc(short(meta.activity))}</td></tr></table>`).querySelector('tr'));
    }
    // The listing goes to the box on the page when it is ready: a live refresh may have redrawn the view.
    node.querySelector('#spacetime-box').appendChild(SpaceTime.draw(m, (from, to) => showChannel(m.snapshot_id, from, to)));
    node.querySelector('#pin').onclick = () => act((m.pinned ? 'Unpin' : 'Pin') + ' snapshot #' + m.snapshot_id + '?',
      () => Api.pin(m.snapshot_id, !m.pinned), r => 'snapshot #' + m.snapshot_id + (r.manifest.pinned ? ' pinned' : ' unpinned'));
    node.querySelector('#delete').onclick = () => act('Delete snapshot #' + m.snapshot_id + '? This cannot be undone.',
      () => Api.remove(m.snapshot_id), () => { location.hash = '#/snapshots'; return 'snapshot #' + m.snapshot_id + ' deleted'; });
    node.querySelector('#rollback').onclick = () => act('Roll every worker back to snapshot #' + m.snapshot_id
      + '? Their current state is replaced by the cut, and the recorded messages are replayed.',
      () => Api.rollback(m.snapshot_id), r => 'rolled back to #' + r.snapshot_id + ', epoch ' + r.epoch
        + (r.completed ? ', every worker resumed' : ''));
    return node;
  }

  function payloadText(b64) {
    const raw = atob(b64 || '');
    let printable = true;
    for (let i = 0; i < raw.length; i++) { const c = raw.charCodeAt(i); if (c < 32 || c > 126) { printable = false; break; } }
    if (printable) return JSON.stringify(raw.slice(0, 64)) + (raw.length > 64 ? '…' : '');
    return Array.from(raw.slice(0, 32), ch => ch.charCodeAt(0).toString(16).padStart(2, '0')).join(' ') + (raw.length > 32 ? ' …' : '');
  }

  async function showChannel(id, from, to) {
    const box = () => document.getElementById('channel-box') || document.createElement('div');
    box().innerHTML = `<h3>Channel ${esc(from)} → ${esc(to)}</h3><p class="muted">loading…</p>`;
    try {
      const messages = [];
      let token = '', total = 0;
      do {
        const page = await Api.channel(id, from, to, token);
        total = Number(page.total_messages || 0);
        messages.push(...(page.messages || []));
        token = page.next_page_token;
      } while (token && messages.length < 10000);
      const t = h(`<div id="channel-messages" data-channel="${esc(from)}->${esc(to)}" data-total="${total}">
        <h3>Channel ${esc(from)} → ${esc(to)}: ${total} message${total === 1 ? '' : 's'} recorded in transit</h3>
        <table><thead><tr><th class="num">seq</th><th class="num">size</th><th>payload</th></tr></thead><tbody></tbody></table></div>`);
      const tb = t.querySelector('tbody');
      for (const msg of messages) {
        tb.appendChild(h(`<table><tr data-seq="${esc(msg.seq)}" data-payload="${esc(msg.payload)}">
          <td class="num">${esc(msg.seq)}</td><td class="num">${atob(msg.payload || '').length}</td>
          <td><code>${esc(payloadText(msg.payload))}</code></td></tr></table>`).querySelector('tr'));
      }
      box().replaceChildren(t);
    } catch (e) {
      box().innerHTML = `<p class="violations">${esc(e.message)}</p>`;
    }
  }

  const recent = [];
  function eventText(e) {
    return `${time(e.at_unix_ms)} ${short(e.type)}` + (Number(e.snapshot_id) ? ' #' + e.snapshot_id : '')
      + (e.worker_id ? ' ' + e.worker_id : '') + (e.message ? ' — ' + e.message : '');
  }
  function eventsView() {
    const node = h(`<section id="events-view"><h2>Events</h2><p class="muted">Live from the coordinator since this page opened.</p>
      <table id="events"><thead><tr><th>time</th><th>type</th><th>snapshot</th><th>worker</th><th>epoch</th><th>details</th></tr></thead><tbody></tbody></table></section>`);
    const tb = node.querySelector('tbody');
    for (const e of recent) {
      tb.appendChild(h(`<table><tr data-type="${esc(short(e.type))}"><td>${esc(time(e.at_unix_ms))}</td><td>${esc(short(e.type))}</td>
        <td>${Number(e.snapshot_id) ? '#' + esc(e.snapshot_id) : ''}</td><td>${esc(e.worker_id)}</td><td>${esc(e.epoch)}</td>
        <td>${esc(e.message)}</td></tr></table>`).querySelector('tr'));
    }
    return node;
  }

  // ---- routing and refresh
  let rendering = null, again = false;
  async function render() {
    if (rendering) { again = true; return rendering; }
    rendering = (async () => {
      const hash = location.hash || '#/cluster';
      document.querySelectorAll('header nav a').forEach(a => a.classList.toggle('active', hash.startsWith(a.getAttribute('href'))));
      const detail = hash.match(/^#\/snapshots\/(\d+)/);
      try {
        let node;
        if (detail) node = await snapshotView(detail[1]);
        else if (hash.startsWith('#/snapshots')) node = await snapshotsView();
        else if (hash.startsWith('#/events')) node = eventsView();
        else node = await clusterView();
        // Keep an open channel listing across live refreshes of the same snapshot.
        const oldBox = view.querySelector('#snapshot-view #channel-box');
        const newBox = node.querySelector && node.querySelector('#channel-box');
        if (oldBox && newBox && view.firstChild.dataset.id === node.dataset.id) newBox.replaceWith(oldBox);
        view.replaceChildren(node);
        view.dataset.ready = hash;
      } catch (e) {
        view.replaceChildren(h(`<section><h2>Cannot load</h2><p class="violations" id="load-error">${esc(e.message)}</p></section>`));
        view.dataset.ready = hash;
      }
    })();
    await rendering;
    rendering = null;
    if (again) { again = false; render(); }
  }
  window.addEventListener('hashchange', render);

  let refreshTimer = null;
  function onEvent(e) {
    recent.unshift(e);
    if (recent.length > 200) recent.pop();
    const log = document.getElementById('event-log');
    const li = document.createElement('li');
    li.textContent = eventText(e);
    li.dataset.type = short(e.type);
    log.prepend(li);
    while (log.children.length > 50) log.lastChild.remove();
    // Several events often come together: refresh once for all of them, at most every 300 ms.
    if (!refreshTimer) refreshTimer = setTimeout(() => { refreshTimer = null; render(); }, 300);
  }
  function onState(on) {
    const l = document.getElementById('live');
    l.textContent = on ? 'live' : 'offline';
    l.className = 'live ' + (on ? 'on' : 'off');
  }
  let stopEvents = null;
  function restartEvents() {
    if (stopEvents) stopEvents();
    stopEvents = Api.events(onEvent, onState);
  }
  restartEvents();
  render();
})();
