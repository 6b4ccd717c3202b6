// Live season page: replaces the standings, progress, crosstable, latest results and
// faults sections with the server's re-rendered (escaped) HTML on every update. The
// browser's EventSource reconnects by itself; the first message of every connection
// is a full snapshot, so a reconnect (also after a server restart) catches up.
// Only a season that may still change is followed (created or running: the page has
// a #live-state badge then); the badge says "live" only while the season runs, and
// the stream is closed, the badge removed, once the season has ended.
"use strict";
(function () {
  const root = document.getElementById("season");
  const state = document.getElementById("live-state");
  if (!root || !state || !window.EventSource) { return; }
  const ended = ["finished", "failed", "cancelled"];
  const url = "/api/seasons/" + encodeURIComponent(root.dataset.seasonId) + "/events";
  const source = new EventSource(url);
  function show(connected) {
    const running = root.dataset.status === "running";
    state.textContent = !connected ? "reconnecting…" : running ? "live" : "waiting for the start";
    state.classList.toggle("connected", connected && running);
  }
  source.onopen = function () { show(true); };
  source.onerror = function () { if (source.readyState !== EventSource.CLOSED) { show(false); } };
  source.addEventListener("snapshot", function (event) {
    const update = JSON.parse(event.data);
    for (const [name, html] of Object.entries(update.sections)) {
      const section = document.getElementById("live-" + name);
      if (section) { section.innerHTML = html; }
    }
    root.dataset.version = String(update.version);
    root.dataset.status = update.status;
    if (ended.includes(update.status)) {
      source.close();
      state.remove();
    } else {
      show(true);
    }
  });
})();
