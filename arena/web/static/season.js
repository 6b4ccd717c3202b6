// Live season page: replaces the standings, progress, crosstable, latest results and
// faults sections with the server's re-rendered (escaped) HTML on every update. The
// browser's EventSource reconnects by itself; the first message of every connection
// is a full snapshot, so a reconnect (also after a server restart) catches up.
"use strict";
(function () {
  const root = document.getElementById("season");
  if (!root || !window.EventSource) { return; }
  const state = document.getElementById("live-state");
  const url = "/api/seasons/" + encodeURIComponent(root.dataset.seasonId) + "/events";
  const source = new EventSource(url);
  source.onopen = function () { state.textContent = "live"; state.classList.add("connected"); };
  source.onerror = function () { state.textContent = "reconnecting…"; state.classList.remove("connected"); };
  source.addEventListener("snapshot", function (event) {
    const update = JSON.parse(event.data);
    for (const [name, html] of Object.entries(update.sections)) {
      const section = document.getElementById("live-" + name);
      if (section) { section.innerHTML = html; }
    }
    root.dataset.version = String(update.version);
    root.dataset.status = update.status;
  });
})();
