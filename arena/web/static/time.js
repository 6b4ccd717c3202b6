// Local times: every <time datetime="...Z"> of the page (and of the sections the
// live season page swaps in later) shows the reader's local time; the UTC time the
// server wrote stays in the tooltip (title). No other script is needed for it.
"use strict";
(function () {
  function localise(root) {
    for (const node of root.querySelectorAll("time[datetime]:not([data-local])")) {
      const moment = new Date(node.getAttribute("datetime"));
      if (isNaN(moment.getTime())) { continue; }
      node.textContent = moment.toLocaleString(undefined, {
        year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short",
      });
      node.dataset.local = "1";
    }
  }
  function start() {
    localise(document);
    new MutationObserver(function () { localise(document); })
      .observe(document.body, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
