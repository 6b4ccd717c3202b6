// Series replay viewer: fetches the frames (/api/series/<id>/replay) and draws one at
// a time: both hands, the discard pile, the stock size, the action and the score
// sheet; the step that ends a hand lays both hands out as melds, layoffs and deadwood
// with the settlement line. Step with the buttons or the arrow keys; ?hand=N opens
// hand N, and so does a click in the list of hands beside it. In TV mode (Arena TV,
// data-tv: the stream's address) the server paces the frames and switches series.
"use strict";
(function () {
  const root = document.getElementById("replay");
  if (!root) { return; }
  const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
  const RANKS = { T: "10" };
  const $ = (id) => document.getElementById(id);
  let bots = JSON.parse(root.dataset.bots);
  let frames = [];
  let handStarts = {};
  let index = 0;
  let timer = null;
  const tv = root.dataset.tv;
  const live = root.dataset.live === "true" || Boolean(tv);
  let base = 0;  // the series' index of frames[0] (a live page starts mid-series)

  function card(text, drawn) {
    const el = document.createElement("span");
    const suit = text.slice(-1);
    el.className = "card" + (suit === "d" || suit === "h" ? " red" : "") + (drawn ? " drawn" : "");
    el.dataset.card = text;
    el.textContent = (RANKS[text[0]] || text[0]) + (SUITS[suit] || suit);
    return el;
  }

  function drawCards(container, cards, drawn) {
    container.replaceChildren(...cards.map((c) => card(c, c === drawn)));
  }

  function group(kind, label, cards) {
    const el = document.createElement("span");
    el.className = "group " + kind;
    el.dataset.label = label;
    el.append(...cards.map((c) => card(c, false)));
    return el;
  }

  function cardText(cards) {
    return cards.map((c) => (RANKS[c[0]] || c[0]) + (SUITS[c.slice(-1)] || c.slice(-1))).join(" ");
  }

  // A knocked hand's end: each seat's melds, (the defender's) laid-off cards and
  // deadwood as groups of cards, the counts under them, the layoffs and the settlement.
  function drawArrangements(result) {
    const knocker = result.knocker;
    for (const seat of [0, 1]) {
      const exposed = result.exposed[seat];
      const groups = exposed.melds.map((meld, i) => group("meld", "meld " + (i + 1), meld));
      if (seat !== knocker) {
        const laid = result.layoffs.flatMap((layoff) => layoff.cards);
        if (laid.length) { groups.push(group("laid-off", "laid off", laid)); }
      }
      if (exposed.deadwood_cards.length) {
        groups.push(group("deadwood", "deadwood", exposed.deadwood_cards));
      }
      $("hand-" + seat).replaceChildren(...groups);
      $("role-" + seat).textContent = seat === knocker ? "· knocker" : "· defender";
      let count = "deadwood " + exposed.deadwood;
      if (seat !== knocker && result.layoffs.length) {
        count += " after layoffs (" + result.defender_deadwood_before_layoffs + " before)";
      }
      $("count-" + seat).textContent = count;
    }
    $("layoffs").replaceChildren(...result.layoffs.map(function (layoff) {
      const item = document.createElement("li");
      const meld = result.exposed[knocker].melds[layoff.meld_index];
      item.textContent = "seat " + (1 - knocker) + " (" + bots[1 - knocker] + ") lays off " +
        cardText(layoff.cards) + " on the knocker's meld " + (layoff.meld_index + 1) +
        " (" + cardText(meld) + ")";
      return item;
    }));
  }

  function clearArrangements() {
    for (const seat of [0, 1]) {
      $("role-" + seat).textContent = "";
      $("count-" + seat).textContent = "";
    }
    $("layoffs").replaceChildren();
  }

  function lastSheet(upTo) {
    for (let i = upTo; i >= 0; i -= 1) { if (frames[i].sheet) { return frames[i].sheet; } }
    return null;
  }

  function drawSheet(sheet) {
    const body = $("sheet").tBodies[0];
    body.replaceChildren();
    if (!sheet) { return; }
    for (const seat of [0, 1]) {
      const row = body.insertRow();
      row.insertCell().textContent = "seat " + seat + " · " + bots[seat];
      for (let game = 0; game < 3; game += 1) {
        const cell = row.insertCell();
        cell.className = "num";
        cell.textContent = sheet.opened[seat][game] ? String(sheet.scores[seat][game]) : "–";
        if (sheet.game_winners[game] === seat) { cell.textContent += " ✓"; }
      }
      const hands = row.insertCell();
      hands.className = "num";
      hands.textContent = String(sheet.hands_won[seat]);
    }
  }

  function describeResult(result) {
    if (!result) { return ""; }
    if (result.winner === null) { return "Hand " + result.hand + ": dead hand, no score."; }
    const discard = result.knock_discard
      ? " Seat " + result.knocker + " knocked discarding " + cardText([result.knock_discard]) +
        (result.knock_discard_face_down ? " face down." : ".")
      : "";
    return "Hand " + result.hand + ": " + result.kind + " — seat " + result.winner + " (" +
      bots[result.winner] + ") scores " + result.points + "." + discard;
  }

  function draw() {
    const frame = frames[index];
    const knocked = frame.result && frame.result.knocker !== null;
    if (knocked) {
      drawArrangements(frame.result);
    } else {
      clearArrangements();
      for (const seat of [0, 1]) {
        drawCards($("hand-" + seat), frame.hands[seat], frame.seat === seat ? frame.drawn : null);
      }
    }
    for (const seat of [0, 1]) { $("seat-" + seat).classList.toggle("to-act", frame.seat === seat); }
    drawCards($("pile"), frame.pile, null);
    $("pile-top").textContent = frame.pile.length
      ? " · top card " + cardText([frame.pile[frame.pile.length - 1]]) : " · empty";
    $("stock").textContent = String(frame.stock);
    $("stock-unit").textContent = frame.stock === 1 ? "card" : "cards";
    const who = frame.seat === null ? "" : "seat " + frame.seat + " (" + bots[frame.seat] + "): ";
    $("action").textContent = who + frame.action + (frame.drawn ? " — took " + frame.drawn : "");
    $("hand-result").textContent = describeResult(frame.result);
    $("settlement").textContent = frame.settlement || "";
    drawSheet(lastSheet(index));
    $("position").textContent = "hand " + frame.hand + " · step " + (base + index + 1) + " of " +
      (base + frames.length) + (live ? " so far" : "");
    $("hand-select").value = String(frame.hand);
    const link = "?hand=" + frame.hand;
    $("hand-link").href = link;
    for (const row of document.querySelectorAll("#hands tbody tr")) {
      row.classList.toggle("current", row.dataset.hand === String(frame.hand));
    }
    root.dataset.index = String(index);
    root.dataset.hand = String(frame.hand);
  }

  function go(to) {
    index = Math.max(0, Math.min(frames.length - 1, to));
    draw();
  }

  function togglePlay() {
    if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶ play"; return; }
    $("play").textContent = "❚❚ pause";
    timer = setInterval(function () {
      if (index >= frames.length - 1) { togglePlay(); return; }
      go(index + 1);
    }, 400);
  }

  function fillHandSelect() {
    const select = $("hand-select");
    const chosen = select.value;
    select.replaceChildren(...Object.keys(handStarts).map(function (hand) {
      const option = document.createElement("option");
      option.value = hand;
      option.textContent = hand;
      return option;
    }));
    if (chosen in handStarts) { select.value = chosen; }
  }

  function wire() {
    const select = $("hand-select");
    select.addEventListener("change", () => go(handStarts[select.value]));
    const handsTable = $("hands");  // absent when the stored log cannot be replayed
    if (handsTable) {
      handsTable.addEventListener("click", function (event) {
        const link = event.target.closest("a[data-hand]");
        if (!link || !(link.dataset.hand in handStarts)) { return; }  // the link still opens the page
        event.preventDefault();
        if (!live) { window.history.replaceState(null, "", "?hand=" + link.dataset.hand); }
        go(handStarts[link.dataset.hand]);
      });
    }
    $("first").addEventListener("click", () => go(0));
    $("back").addEventListener("click", () => go(index - 1));
    $("forward").addEventListener("click", () => go(index + 1));
    $("last").addEventListener("click", () => go(frames.length - 1));
    $("play").addEventListener("click", togglePlay);
    if (tv) { return; }  // the broadcast sets the pace; keys stay the page's
    document.addEventListener("keydown", function (event) {
      if (event.target instanceof HTMLSelectElement) { return; }
      const keys = { ArrowLeft: index - 1, ArrowRight: index + 1, Home: 0, End: frames.length - 1 };
      if (event.key in keys) { event.preventDefault(); go(keys[event.key]); }
      if (event.key === " ") { event.preventDefault(); togglePlay(); }
    });
  }

  function start(data) {
    frames = data.frames;
    handStarts = data.hand_starts;
    fillHandSelect();
    wire();
    const wanted = new URLSearchParams(window.location.search).get("hand");
    go(wanted && wanted in handStarts ? handStarts[wanted] : 0);
    root.dataset.ready = "true";
  }

  // Live mode (the series is being played): frames arrive over Server-Sent Events,
  // the view follows the newest unless the viewer stepped back; the side list of
  // hands is drawn here; when the result is stored the page reloads as the replay.

  function indexHands() {
    handStarts = {};
    frames.forEach(function (frame, i) {
      if (!(frame.hand in handStarts)) { handStarts[frame.hand] = i; }
    });
    fillHandSelect();
  }

  function drawHandList(rows) {
    $("hands").tBodies[0].replaceChildren(...rows.map(function (h) {
      const row = document.createElement("tr");
      row.dataset.hand = String(h.hand);
      const link = document.createElement("a");
      link.href = "?hand=" + h.hand;
      link.dataset.hand = String(h.hand);
      link.textContent = "hand " + h.hand;
      const how = h.kind === null ? "being played" : (h.kind === "dead" ? "dead hand" : h.kind);
      const cells = [link, h.winner === null ? "–" : "seat " + h.winner + " · " + bots[h.winner],
        how, String(h.points), h.totals[0] + "–" + h.totals[1]];
      cells.forEach(function (content, i) {
        const cell = row.insertCell();
        if (i >= 3) { cell.className = "num"; }
        cell.append(content);
      });
      return row;
    }));
  }

  function showState(state, note) {
    const badge = $("live-state");
    const words = { waiting: "waiting for the first move", live: "live",
      ended: "played: storing the result…", broken: "live view stopped",
      shown: "shown to its end", "on-air": "on air" };
    badge.textContent = words[state] || state;
    badge.className = "live-state " + state;
    root.dataset.liveState = state;
    if (note !== undefined) { $("live-note").textContent = note; }
  }

  function update(data, replace) {
    const following = frames.length === 0 || index >= frames.length - 1;
    if (replace) {
      frames = data.frames;
      base = data.at;
    } else {
      const skip = base + frames.length - data.at;
      if (skip < 0) { return false; }  // a gap: start again from a snapshot
      frames = frames.concat(data.frames.slice(skip));
    }
    if (data.hands) { drawHandList(data.hands); }
    indexHands();
    showState(data.state, data.note);
    if (frames.length) { go(following || replace ? frames.length - 1 : index); }
    root.dataset.frames = String(base + frames.length);
    return true;
  }

  function connect() {
    const url = "/api/series/" + encodeURIComponent(root.dataset.seriesId) + "/live";
    const source = new EventSource(url);
    source.addEventListener("snapshot", function (event) {
      update(JSON.parse(event.data), true);
      root.dataset.ready = "true";
    });
    source.addEventListener("frames", function (event) {
      if (!update(JSON.parse(event.data), false)) { source.close(); connect(); }
    });
    source.addEventListener("finished", function (event) {
      source.close();
      root.dataset.liveState = "finished";
      window.location.replace(JSON.parse(event.data).url);
    });
  }

  // TV mode: "program" starts a series (or says none is shown) and names the one
  // queued next, "frames" adds one frame at the broadcast's pace, "finished" ends a
  // single series' broadcast (the page stays, with a link to its replay).

  function tvProgram(data) {
    bots = data.bots;
    for (const seat of [0, 1]) {
      $("name-" + seat).textContent = data.series_id ? "seat " + seat + " · " + bots[seat] : "";
    }
    const title = $("tv-title");
    title.textContent = data.series_id ? bots[0] + " vs " + bots[1] + " · " + data.title : "";
    title.href = data.url || "#";
    const next = data.next;
    $("tv-next").textContent = next
      ? "Next on the TV: " + next.bots[0] + " vs " + next.bots[1] + " · " + next.title : "";
    root.dataset.series = data.series_id || "";
    if (!data.series_id) {
      frames = [];
      showState(data.state, "");
      $("action").textContent = data.note;
      return;
    }
    update(data, true);
  }

  function tvConnect() {
    const source = new EventSource(tv);
    source.addEventListener("program", function (event) {
      tvProgram(JSON.parse(event.data));
      root.dataset.ready = "true";
    });
    source.addEventListener("frames", function (event) {
      if (!update(JSON.parse(event.data), false)) { source.close(); tvConnect(); }
    });
    source.addEventListener("finished", function (event) {
      source.close();
      showState("shown", JSON.parse(event.data).note);
    });
  }

  if (tv) {
    wire();
    tvConnect();
    return;
  }

  if (live) {
    wire();
    connect();
    return;
  }

  fetch("/api/series/" + encodeURIComponent(root.dataset.seriesId) + "/replay")
    .then((response) => response.json())
    .then(function (data) {
      if (data.error) { $("action").textContent = data.error; return; }
      start(data);
    })
    .catch((error) => { $("action").textContent = "cannot load the replay: " + error; });
})();
