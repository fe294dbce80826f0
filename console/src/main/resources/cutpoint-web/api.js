// The console's access to the coordinator: /api/v1 (JSON) and /api/v1/events (Server-Sent Events,
// read with fetch so that the Authorization header can be sent).
'use strict';
const Api = (() => {
  const TOKEN_KEY = 'cutpoint.token';
  let askToken = null; // set by the console: (reason) => Promise<string|null>

  function token() { return sessionStorage.getItem(TOKEN_KEY); }
  function setToken(t) { if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY); }

  function headers(extra) {
    const h = Object.assign({}, extra || {});
    const t = token();
    if (t) h['Authorization'] = 'Bearer ' + t;
    return h;
  }

  class ApiError extends Error {
    constructor(status, code, message) { super(message); this.status = status; this.code = code; }
  }

  async function call(method, path, body, retried) {
    const sent = token();
    const opts = { method, headers: headers(body ? { 'Content-Type': 'application/json' } : {}) };
    if (body) opts.body = JSON.stringify(body);
    const r = await fetch('api/v1' + path, opts);
    let json = null;
    try { json = await r.json(); } catch (e) { json = null; }
    // A token given while this request was on its way: try it before asking again.
    if (r.status === 401 && token() && token() !== sent) return call(method, path, body, retried);
    if (r.status === 401 && !retried && askToken) {
      const t = await askToken(json && json.message || 'admin token required');
      if (t) { setToken(t); return call(method, path, body, true); }
    }
    if (!r.ok) {
      throw new ApiError(r.status, json && json.code || 'HTTP_' + r.status,
        json && json.message || ('HTTP ' + r.status));
    }
    return json;
  }

  // Reads the event stream; calls onEvent(event) per event and onState(true/false) as it connects or
  // drops; reconnects after a pause. Returns a function that stops it.
  function events(onEvent, onState) {
    let stopped = false;
    let controller = null;
    async function run() {
      while (!stopped) {
        controller = new AbortController();
        const sent = token();
        try {
          const r = await fetch('api/v1/events', { headers: headers({ 'Accept': 'text/event-stream' }),
            signal: controller.signal });
          if (r.status === 401 && token() && token() !== sent) continue;
          if (r.status === 401 && askToken) {
            onState(false);
            const t = await askToken('live events need the admin token');
            if (t) { setToken(t); continue; }
            return;
          }
          if (!r.ok) throw new Error('HTTP ' + r.status);
          onState(true);
          const reader = r.body.getReader();
          const decoder = new TextDecoder();
          let buf = '', name = 'message', data = [];
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            buf += decoder.decode(value, { stream: true });
            let nl;
            while ((nl = buf.indexOf('\n')) >= 0) {
              const line = buf.slice(0, nl).replace(/\r$/, '');
              buf = buf.slice(nl + 1);
              if (line === '') {
                if (data.length && name === 'event') onEvent(JSON.parse(data.join('\n')));
                name = 'message'; data = [];
              } else if (line.startsWith('event:')) name = line.slice(6).trim();
              else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
            }
          }
        } catch (e) {
          if (stopped) return;
        }
        onState(false);
        if (!stopped) await new Promise(res => setTimeout(res, 2000));
      }
    }
    run();
    return () => { stopped = true; if (controller) controller.abort(); };
  }

  return {
    ApiError, token, setToken, events,
    onTokenNeeded(fn) { askToken = fn; },
    cluster: () => call('GET', '/cluster'),
    snapshots: (pageSize) => call('GET', '/snapshots?page_size=' + (pageSize || 200)),
    snapshot: (id) => call('GET', '/snapshots/' + id),
    analysis: (id) => call('GET', '/snapshots/' + id + '/analysis'),
    channel: (id, from, to, pageToken) => call('GET', '/snapshots/' + id + '/channels/'
      + encodeURIComponent(from) + '/' + encodeURIComponent(to) + '?page_size=1000'
      + (pageToken ? '&page_token=' + encodeURIComponent(pageToken) : '')),
    trigger: () => call('POST', '/snapshots', { wait: true }),
    pin: (id, pinned) => call('POST', '/snapshots/' + id + (pinned ? '/pin' : '/unpin')),
    remove: (id) => call('DELETE', '/snapshots/' + id),
    rollback: (id) => call('POST', '/snapshots/' + id + '/rollback', { wait: true }),
  };
})();
