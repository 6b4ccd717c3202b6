// Live season page: follows the season's Server-Sent Events. The first message of
// every connection is a whole snapshot (the standings, progress, crosstable, latest
// results and faults sections as the server's escaped HTML), so a reconnect (also
// after a server restart) catches up; each later message is a numbered delta: the
// sections that changed, whole or as the rows and cells of their table that changed
// and the new order of its rows and columns (arena/web/live_delta.py). A delta that does not follow the one applied last (or
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
  // The stream of this page of the standings: its rows, and their crosstable rows.
  const url = "/api/seasons/" + encodeURIComponent(root.dataset.seasonId) + "/events?page=" +
    encodeURIComponent(root.dataset.page || "1");
  let source = null;
  let seq = 0;
  function show(connected) {
    const running = root.dataset.status === "running";
    state.textContent = !connected ? "reconnecting…" : running ? "live" : "waiting for the start";
    state.classList.toggle("connected", connected && running);
  }
  function parsed(html) {  // one row or cell, parsed where any may stand
    const holder = document.createElement("template");
    holder.innerHTML = html;
    return holder.content.firstElementChild;
  }
  function keyed(elements) {  // key -> element: its data-bot, else "#" and its position
    const found = new Map();
    Array.from(elements).forEach(function (element, index) {
      found.set(element.dataset.bot !== undefined ? element.dataset.bot : "#" + index, element);
    });
    return found;
  }
  function patchTable(section, patch) {  // arena/web/live_delta.py: cells, columns, rows
    const table = section.querySelector("table");
    const body = table && table.tBodies[0];
    if (!body) { return false; }
    const rows = keyed(table.rows);
    for (const [key, change] of Object.entries(patch.rows || {})) {
      const row = rows.get(key);
      if (typeof change === "string") {  // a whole row: changed, or come onto the page
        const fresh = parsed(change);
        if (row) { row.replaceWith(fresh); } else if (patch.order) { body.appendChild(fresh); } else { return false; }
        rows.set(key, fresh);
        continue;
      }
      if (!row) { return false; }
      const cells = keyed(row.cells);
      for (const [cellKey, html] of Object.entries(change)) {
        const cell = cells.get(cellKey);
        if (cell) { cell.replaceWith(parsed(html)); } else if (patch.columns) { row.appendChild(parsed(html)); } else { return false; }
      }
    }
    if (patch.order) {  // a bot gone from this page (before the columns: it has none of the new)
      const staying = new Set(patch.order);
      for (const row of Array.from(body.rows)) {
        if (!staying.has(row.dataset.bot)) { row.remove(); }
      }
    }
    if (patch.columns) {
      const wanted = new Set(patch.columns);
      for (const row of Array.from(table.rows)) {
        const cells = keyed(row.cells);
        for (const [key, cell] of cells) {  // a column gone from the table
          if (!key.startsWith("#") && !wanted.has(key)) { cell.remove(); }
        }
        for (const key of patch.columns) {
          if (!cells.has(key)) { return false; }
          row.appendChild(cells.get(key));
        }
      }
    }
    if (patch.order) {
      for (const key of patch.order) {
        const row = rows.get(key);
        if (!row || row.parentNode !== body) { return false; }
        body.appendChild(row);
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
      } else if (!patchTable(section, change)) {
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
