// Local times: every <time datetime="...Z"> of the page (and of the sections the
// live season page swaps in later) shows the reader's local time; the UTC time the
// server wrote stays in the tooltip (title). No other script is needed for it.
"use strict";
(function () {
  const thisYear = new Date().getFullYear();
  function localise(root) {
    for (const node of root.querySelectorAll("time[datetime]:not([data-local])")) {
      const moment = new Date(node.getAttribute("datetime"));
      if (isNaN(moment.getTime())) { continue; }
      // 24-hour clock; the year only when it is not this one.
      node.textContent = moment.toLocaleString(undefined, {
        year: moment.getFullYear() === thisYear ? undefined : "numeric",
        month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
        second: "2-digit", hourCycle: "h23", timeZoneName: "short",
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
