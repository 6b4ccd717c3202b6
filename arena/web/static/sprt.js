// Live SPRT match page: while the match may still change (created or running), the
// season's event stream says when a result is stored; the page then reads itself
// again (at most one read at a time, the newest state wins) and swaps in the test's
// state, chart and counts. Once the match has ended the stream is closed.
"use strict";
(function () {
  const root = document.getElementById("sprt-live");
  const state = document.getElementById("live-state");
  if (!root || !state || !window.EventSource) { return; }
  const ended = ["finished", "failed", "cancelled"];
  const source = new EventSource(
    "/api/seasons/" + encodeURIComponent(root.dataset.seasonId) + "/events");
  let reading = false;
  let wanted = false;
  function show(connected) {
    const running = root.dataset.status === "running";
    state.textContent = !connected ? "reconnecting…" : running ? "live" : "waiting for the start";
    state.classList.toggle("connected", connected && running);
  }
  async function reread() {
    if (reading) { wanted = true; return; }
    reading = true;
    try {
      const response = await fetch(window.location.pathname, { cache: "no-store" });
      if (response.ok) {
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.getElementById("sprt-live");
        if (fresh) {
          root.replaceChildren(...fresh.childNodes);
          root.dataset.version = fresh.dataset.version;
        }
      }
    } finally {
      reading = false;
      if (wanted) { wanted = false; reread(); }
    }
  }
  source.onopen = function () { show(true); };
  source.onerror = function () { if (source.readyState !== EventSource.CLOSED) { show(false); } };
  // The first message is a snapshot, the next ones deltas; both carry the version
  // and the status, all this page reads of them.
  function follow(event) {
    const update = JSON.parse(event.data);
    const changed = String(update.version) !== root.dataset.version ||
      update.status !== root.dataset.status;
    root.dataset.status = update.status;
    if (changed) { reread(); }
    if (ended.includes(update.status)) {
      source.close();
      state.remove();
    } else {
      show(true);
    }
  }
  source.addEventListener("snapshot", follow);
  source.addEventListener("delta", follow);
})();
