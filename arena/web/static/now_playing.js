// "Now playing" on the home and season pages: the server re-renders the (escaped)
// list whenever a series starts or ends or a hand ends, and sends it over
// Server-Sent Events; the first message of every connection is the whole list, so
// a reconnect catches up.
"use strict";
(function () {
  const section = document.getElementById("now-playing");
  if (!section || !window.EventSource) { return; }
  const season = section.dataset.season;
  const url = "/api/now-playing" + (season ? "?season=" + encodeURIComponent(season) : "");
  const source = new EventSource(url);
  source.addEventListener("now_playing", function (event) {
    section.innerHTML = JSON.parse(event.data).html;
    section.dataset.updates = String(Number(section.dataset.updates || "0") + 1);
  });
})();
