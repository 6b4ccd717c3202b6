// Live season page: follows the season's Server-Sent Events. The first message of
// every connection is a whole snapshot (the standings, progress, crosstable, latest
// results and faults sections as the server's escaped HTML), so a reconnect (also
// after a server restart) catches up; each later message is a numbered delta: the
// sections that changed, whole or as the rows and cells of their table that changed
// (arena/web/live_delta.py). A delta that does not follow the one applied last (or
// does not fit the page) starts the stream again, for a fresh snapshot.
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
  let source = null;
  let seq = 0;
  function show(connected) {
    const running = root.dataset.status === "running";
    state.textContent = !connected ? "reconnecting…" : running ? "live" : "waiting for the start";
    state.classList.toggle("connected", connected && running);
  }
  function patchRows(section, rows) {
    const body = section.querySelector("tbody");
    if (!body) { return false; }
    for (const [index, change] of Object.entries(rows)) {
      const row = body.rows[Number(index)];
      if (!row) { return false; }
      if (typeof change === "string") {
        row.outerHTML = change;
        continue;
      }
      for (const [cellIndex, html] of Object.entries(change)) {
        const cell = row.cells[Number(cellIndex)];
        if (!cell) { return false; }
        cell.outerHTML = html;
      }
    }
    return true;
  }
  function apply(update, whole) {
    for (const [name, change] of Object.entries(update.sections)) {
      const section = document.getElementById("live-" + name);
      if (!section) { continue; }
      if (whole) {
        section.innerHTML = change;
      } else if (change.html !== undefined) {
        section.innerHTML = change.html;
      } else if (!patchRows(section, change.rows)) {
        return false;
      }
    }
    seq = update.seq;
    root.dataset.version = String(update.version);
    root.dataset.status = update.status;
    if (ended.includes(update.status)) {
      source.close();
      state.remove();
    } else {
      show(true);
    }
    return true;
  }
  function connect() {
    source = new EventSource(url);
    source.onopen = function () { show(true); };
    source.onerror = function () { if (source.readyState !== EventSource.CLOSED) { show(false); } };
    source.addEventListener("snapshot", function (event) { apply(JSON.parse(event.data), true); });
    source.addEventListener("delta", function (event) {
      const update = JSON.parse(event.data);
      if (update.base !== seq || !apply(update, false)) {
        source.close();
        connect();
      }
    });
  }
  connect();
})();
