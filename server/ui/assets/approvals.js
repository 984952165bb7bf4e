// The approvals page's behaviour: live lists over Server-Sent Events, Allow (after the typed
// confirmation a dangerous request asks for) / Deny with a reason, errors shown where the human is
// looking. Served from /ui/assets (no inline code: the page's CSP allows only this script). Items
// arrive rendered by the server; this script never builds request markup itself, it only places the
// server's fragments by id.
/* global document, window, EventSource */
'use strict';

const csrf = document.querySelector('meta[name="csrf-token"]').getAttribute('content');
const statusLine = document.getElementById('status');
const connection = document.getElementById('connection');
const lists = { pending: document.getElementById('pending'), history: document.getElementById('history') };

function announce(text) {
  statusLine.textContent = text;
}

// An item is left alone while the human is working in it (focus inside, deny form open).
function busy(li) {
  return li.contains(document.activeElement) || li.classList.contains('denying');
}

function place(list, items) {
  const existing = new Map([...list.children].map((li) => [li.dataset.id, li]));
  const wanted = new Set(items.map((item) => item.id));
  for (const [id, li] of existing) {
    if (wanted.has(id)) continue;
    // This page's own decision is in flight: decide() removes the item and says what happened when
    // the server answers (the live stream's snapshot can arrive first on a busy server).
    if (li.dataset.deciding === 'true') continue;
    // Decided elsewhere (another approver, the CLI) or expired: say so if the human was on it.
    if (li.contains(document.activeElement)) {
      document.getElementById('pending-heading').focus();
      announce(`${id} was decided elsewhere or expired; it is no longer pending.`);
    }
    li.remove();
  }
  let previous = null;
  for (const item of items) {
    let li = existing.get(item.id);
    if (!li) {
      li = document.createElement('li');
      li.dataset.id = item.id;
      li.tabIndex = -1;
    }
    li.dataset.cluster = item.cluster;
    if (li.dataset.hash !== item.hash && !busy(li)) {
      li.innerHTML = item.html;
      li.dataset.hash = item.hash;
    }
    const after = previous ? previous.nextSibling : list.firstChild;
    if (li !== after) list.insertBefore(li, after);
    previous = li;
  }
}

function countPending() {
  const count = [...lists.pending.children].filter((li) => !li.hidden).length;
  document.getElementById('pending-count').textContent = `(${count})`;
  document.getElementById('pending-empty').hidden = count > 0;
}

// Times in the viewer's own zone (the UTC value stays on hover), and live countdowns to expiry.
function localTimes(root) {
  for (const time of root.querySelectorAll('time[datetime]')) {
    if (time.dataset.local === time.dateTime) continue;
    const date = new Date(time.dateTime);
    if (Number.isNaN(date.getTime())) continue;
    time.textContent = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
    time.dataset.local = time.dateTime;
  }
}

function countdowns() {
  for (const span of document.querySelectorAll('[data-countdown]')) {
    const left = Math.round((Date.parse(span.dataset.countdown) - Date.now()) / 1000);
    const text =
      left <= 0 ? '(expired)' : `(in ${Math.floor(left / 60)} min ${String(left % 60).padStart(2, '0')} s)`;
    if (span.textContent !== text) span.textContent = text;
  }
}

// Filtering by cluster: the select lists every cluster seen; items of other clusters are hidden
// (the count and the empty note speak about what is shown).
const clusterFilter = document.getElementById('cluster-filter');

function syncClusters(snapshot) {
  const known = new Set([...clusterFilter.options].map((option) => option.value));
  const seen = [...snapshot.pending, ...snapshot.history].map((item) => item.cluster);
  for (const cluster of [...new Set(seen)].sort()) {
    if (known.has(cluster)) continue;
    const option = document.createElement('option');
    option.value = cluster;
    option.textContent = cluster === '' ? 'no cluster' : cluster;
    clusterFilter.append(option);
  }
}

function applyFilter() {
  const wanted = clusterFilter.value;
  for (const li of document.querySelectorAll('.approvals > li')) {
    li.hidden = wanted !== '*' && li.dataset.cluster !== wanted;
  }
}
clusterFilter.addEventListener('change', () => {
  applyFilter();
  countPending();
  const shown =
    clusterFilter.value === '*' ? 'all clusters' : `cluster ${clusterFilter.selectedOptions[0].text}`;
  announce(`Showing ${shown}.`);
});

// What changed on each pending request's target since its preview, and the freeze: a visible
// warning (approving stays possible; the gate re-checks at execution and never runs a stale call).
// Re-read at most every 20 s per request (each check is a read-only dry run on the server).
const CHECK_EVERY_MS = 20_000;
const checks = new Map();

function showCheck(li, warnings) {
  li.querySelector('.stale-warning')?.remove();
  if (!warnings || warnings.length === 0) return;
  const slot = document.createElement('div');
  slot.className = 'stale-warning';
  slot.setAttribute('role', 'alert');
  for (const warning of warnings) {
    const line = document.createElement('p');
    line.textContent = `Warning: ${warning}`;
    slot.append(line);
  }
  li.prepend(slot);
}

async function checkPending() {
  for (const li of lists.pending.querySelectorAll('li[data-id]')) {
    const id = li.dataset.id;
    const known = checks.get(id);
    if (known) showCheck(li, known.warnings);
    if (known && Date.now() - known.at < CHECK_EVERY_MS) continue;
    checks.set(id, { at: Date.now(), warnings: known ? known.warnings : [] });
    try {
      const response = await fetch(`/ui/api/approvals/${encodeURIComponent(id)}/check`, {
        credentials: 'same-origin',
      });
      if (!response.ok) continue;
      const check = await response.json();
      checks.set(id, { at: Date.now(), warnings: check.warnings || [] });
      showCheck(li, check.warnings);
    } catch {
      checks.delete(id); // unreachable now: the next snapshot checks again
    }
  }
}

function render(snapshot) {
  place(lists.pending, snapshot.pending);
  checkPending();
  place(lists.history, snapshot.history);
  syncClusters(snapshot);
  applyFilter();
  countPending();
  localTimes(document);
  countdowns();
}
setInterval(countdowns, 1000);

function showError(li, message) {
  const slot = li.querySelector('.error');
  slot.textContent = message;
  slot.hidden = false;
}

// After a decision, focus the next pending request (or the heading) so the keyboard user goes on.
function focusNext(li) {
  const next = li.nextElementSibling || li.previousElementSibling;
  const target = next
    ? next.querySelector('button.allow') || next
    : document.getElementById('pending-heading');
  target.focus();
}

async function decide(li, action, body) {
  const id = li.dataset.id;
  const buttons = li.querySelectorAll('button');
  buttons.forEach((button) => (button.disabled = true));
  li.dataset.deciding = 'true';
  try {
    const response = await fetch(`/ui/api/approvals/${encodeURIComponent(id)}/${action}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify(body),
      credentials: 'same-origin',
    });
    const answer = await response.json().catch(() => ({}));
    if (response.status === 401) {
      window.location.assign('/ui/login');
      return;
    }
    if (!response.ok) {
      const message = (answer.error && answer.error.message) || `The server answered ${response.status}.`;
      showError(li, message);
      announce(`Not decided: ${message}`);
      return;
    }
    li.classList.remove('denying');
    focusNext(li);
    li.remove();
    countPending();
    announce(`${id} ${answer.status}.`);
  } catch {
    showError(li, 'The server could not be reached; nothing was decided. Try again.');
  } finally {
    delete li.dataset.deciding;
    buttons.forEach((button) => (button.disabled = false));
  }
}

function openDeny(li, open) {
  const form = li.querySelector('.deny-form');
  const toggle = li.querySelector('button.deny');
  form.hidden = !open;
  toggle.setAttribute('aria-expanded', String(open));
  li.classList.toggle('denying', open);
  (open ? form.querySelector('textarea') : toggle).focus();
}

// Allow: a dangerous request first needs its Deployment name typed (the server checks it again).
function allow(li) {
  const select = li.querySelector('select[name="validity"]');
  const value = select ? select.value : 'once';
  const body = value === 'once' ? {} : { validity: { window: value } };
  const confirm = li.querySelector('input[name="confirm"]');
  if (confirm) {
    const typed = confirm.value.trim();
    if (typed !== confirm.dataset.expected) {
      const message = `Type ${confirm.dataset.expected} to confirm before allowing.`;
      showError(li, message);
      announce(`Not decided: ${message}`);
      confirm.focus();
      return;
    }
    body.confirm = typed;
  }
  decide(li, 'approve', body);
}

lists.pending.addEventListener('click', (event) => {
  const button = event.target.closest('button[data-action]');
  if (!button) return;
  const li = button.closest('li');
  const action = button.dataset.action;
  if (action === 'allow') {
    allow(li);
  } else if (action === 'deny') {
    openDeny(li, true);
  } else if (action === 'cancel') {
    openDeny(li, false);
  }
});

lists.pending.addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  const li = form.closest('li');
  const reason = form.querySelector('textarea').value.trim();
  if (reason === '') {
    showError(li, 'A reason is required to deny: the requester is told why.');
    form.querySelector('textarea').focus();
    return;
  }
  decide(li, 'deny', { reason });
});

lists.pending.addEventListener('keydown', (event) => {
  // Enter in the confirmation field means Allow, as in a form.
  if (event.key === 'Enter' && event.target.matches('input[name="confirm"]')) {
    event.preventDefault();
    allow(event.target.closest('li'));
    return;
  }
  if (event.key !== 'Escape') return;
  const li = event.target.closest('li.denying');
  if (li) openDeny(li, false);
});

// Signing out here ends this page's own stream too; following its `logout` event would cancel the
// sign-out navigation before its response clears the cookie.
let signingOut = false;
document.querySelector('form.signout').addEventListener('submit', () => (signingOut = true));

function connect() {
  const source = new EventSource('/ui/events');
  source.addEventListener('open', () => (connection.textContent = 'Live updates: connected.'));
  source.addEventListener('snapshot', (event) => render(JSON.parse(event.data)));
  source.addEventListener('failure', (event) => announce(JSON.parse(event.data).message));
  source.addEventListener('logout', () => {
    source.close();
    if (!signingOut) window.location.assign('/ui/login');
  });
  source.addEventListener('error', () => {
    connection.textContent = 'Live updates: reconnecting…';
  });
}

localTimes(document);
countdowns();
connect();
