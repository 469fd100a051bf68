// The coach: the current match deal by deal (/api/review) and each player's statistics
// (/api/stats), with plots drawn here as SVG (no library, nothing from the internet).
// Loaded after cards.js and app.js: el(), cardChip() and deckButtons() from the first,
// $() and send() from the second.
"use strict";

const SVG_NS = "http://www.w3.org/2000/svg";
const LINE_COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7"];
let coachPlayer = null;   // whose statistics are shown
let throwPicked = [];      // cards picked as a throw to the crib
let throwPlayer = null;

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// A plot frame: title, axes with a few ticks and labels, and a scale for the data.
function plotFrame(title, xLabel, yLabel, xMax, yMax, yTicks) {
  const W = 340, H = 200, L = 36, R = 8, T = 22, B = 34;
  const x = (v) => L + (W - L - R) * (xMax ? v / xMax : 0);
  const y = (v) => H - B - (H - T - B) * (yMax ? v / yMax : 0);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "plot", role: "img",
    "aria-label": title });
  root.append(svg("text", { x: W / 2, y: 14, class: "plot-title", "text-anchor": "middle" }, title));
  root.append(svg("line", { x1: L, y1: H - B, x2: W - R, y2: H - B, class: "axis" }));
  root.append(svg("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }));
  for (const tick of yTicks) {
    root.append(svg("line", { x1: L - 3, y1: y(tick), x2: W - R, y2: y(tick), class: "grid" }));
    root.append(svg("text", { x: L - 5, y: y(tick) + 4, "text-anchor": "end", class: "tick" }, tick));
  }
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle",
    class: "axis-label" }, xLabel));
  root.append(svg("text", { x: 10, y: (T + H - B) / 2, "text-anchor": "middle", class: "axis-label",
    transform: `rotate(-90 10 ${(T + H - B) / 2})` }, yLabel));
  return { root, x, y, W, H, L, R, T, B };
}

function legend(frame, names) {
  names.forEach((name, i) => {
    const x = frame.L + 6 + i * 80;
    frame.root.append(svg("rect", { x, y: frame.T, width: 10, height: 10,
      fill: LINE_COLOURS[i % LINE_COLOURS.length] }));
    frame.root.append(svg("text", { x: x + 13, y: frame.T + 9, class: "tick" }, name));
  });
}

function ticks(max, step) {
  const out = [];
  for (let v = 0; v <= max; v += step) out.push(v);
  return out;
}

// The score race of one game: each side's score after every event that pegged.
function scoreRace(race, game) {
  const sides = Object.keys(race);
  const last = Math.max(1, ...sides.map((s) => race[s][race[s].length - 1][0]));
  const first = Math.min(...sides.map((s) => race[s][0][0]));
  const top = Math.max(61, ...sides.map((s) => race[s][race[s].length - 1][1]));
  const frame = plotFrame(`Score race, game ${game}`, "events of the game", "score",
    last - first, top, ticks(top, top > 61 ? 30 : 15));
  sides.forEach((side, i) => {
    const points = race[side].map(([event, score]) =>
      `${frame.x(event - first).toFixed(1)},${frame.y(score).toFixed(1)}`).join(" ");
    frame.root.append(svg("polyline", { points, class: "race",
      stroke: LINE_COLOURS[i % LINE_COLOURS.length], "data-side": side }));
  });
  legend(frame, sides);
  return frame.root;
}

// Points each player made per deal: the show, the crib (dealer) and the play, stacked.
function pointsPerDeal(deals) {
  const players = deals.length ? deals[0].players.map((p) => p.player) : [];
  const totals = deals.map((deal) => deal.players.map((p) => (p.shown || 0) + p.pegged
    + (p.player === deal.dealer ? (deal.crib_points || 0) + deal.heels : 0)));
  const top = Math.max(10, ...totals.flat());
  const frame = plotFrame("Points per deal", "deal", "points", deals.length, top,
    ticks(top, top > 30 ? 10 : 5));
  const slot = (frame.W - frame.L - frame.R) / Math.max(1, deals.length);
  const bar = Math.max(1, slot / Math.max(1, players.length) - 1);
  totals.forEach((row, d) => row.forEach((value, i) => {
    frame.root.append(svg("rect", { class: "bar", x: (frame.x(d) + i * bar).toFixed(1),
      y: frame.y(value).toFixed(1), width: bar.toFixed(1),
      height: (frame.y(0) - frame.y(value)).toFixed(1),
      fill: LINE_COLOURS[i % LINE_COLOURS.length] },
      svg("title", {}, `${players[i]}, deal ${d + 1}: ${value}`)));
  }));
  legend(frame, players);
  return frame.root;
}

// A player's hand scores as a share of hands, beside the share of all 12,994,800 shows.
function handHistogram(player, allHands) {
  const counted = Object.values(player.hand_scores).reduce((a, b) => a + b, 0);
  const everyShow = Object.values(allHands).reduce((a, b) => a + b, 0);
  const mine = (s) => counted ? (player.hand_scores[s] || 0) / counted : 0;
  const all = (s) => allHands[s] / everyShow;
  let top = 0;
  for (let s = 0; s <= 29; s++) top = Math.max(top, mine(s), all(s));
  top = Math.ceil(top * 20) / 20;
  const frame = plotFrame(`${player.name}'s hands (${counted}) against all hands`,
    "hand score", "share of hands", 30, top, ticks(top, top > 0.2 ? 0.1 : 0.05).map((t) => +t.toFixed(2)));
  const width = (frame.W - frame.L - frame.R) / 30 - 1;
  for (let s = 0; s <= 29; s++) {
    const share = mine(s);
    if (share) {
      frame.root.append(svg("rect", { class: "bar", x: frame.x(s).toFixed(1),
        y: frame.y(share).toFixed(1), width: width.toFixed(1),
        height: (frame.y(0) - frame.y(share)).toFixed(1), fill: LINE_COLOURS[0] },
        svg("title", {}, `${s} points: ${(share * 100).toFixed(1)} % of ${player.name}'s hands`)));
    }
  }
  const line = [];
  for (let s = 0; s <= 29; s++) line.push(`${(frame.x(s) + width / 2).toFixed(1)},${frame.y(all(s)).toFixed(1)}`);
  frame.root.append(svg("polyline", { points: line.join(" "), class: "race all-hands",
    stroke: LINE_COLOURS[1] }));
  for (const s of [0, 10, 20, 29]) {
    frame.root.append(svg("text", { x: frame.x(s) + width / 2, y: frame.H - frame.B + 12,
      "text-anchor": "middle", class: "tick" }, s));
  }
  legend(frame, [player.name, "all hands"]);
  return frame.root;
}

function number(value, digits = 2) {
  return value === null || value === undefined ? "–" : value.toFixed(digits);
}

function drawReview(deals) {
  const box = $("coach-review");
  box.replaceChildren();
  for (const deal of deals.slice().reverse()) {
    const rows = deal.players.map((p) => {
      // A deal still being played: the hand is not shown or not counted yet.
      const kept = p.kept ? p.kept.map(cardChip) : ["hand not shown yet"];
      const worth = !p.kept ? [] : p.shown === null ? [" (not counted yet)"]
        : [" scored ", `${p.shown} (expected ${number(p.hand_expected)})`];
      const throwText = p.choice
        ? [" threw ", ...p.thrown.map(cardChip), ` net ${number(p.choice.net)} against `
          + `${number(p.best.net)} best (keep ${p.best.keep.join(" ")})`]
        : [];
      return el("li", {}, el("b", {}, p.player), ": ", kept, worth,
        `; pegged ${p.pegged}, let the others peg ${p.pegging_given}`, throwText);
    });
    const crib = deal.crib ? [", crib ", ...deal.crib.map(cardChip), ` ${deal.crib_points}`] : [];
    box.append(el("div", { class: "deal" },
      el("p", {}, `Game ${deal.game}, deal ${deal.deal}: ${deal.dealer} deals, starter `,
        deal.starter ? cardChip(deal.starter) : "–", crib),
      el("ul", {}, rows)));
  }
  drawThrowPicker(deals[deals.length - 1]);
}

// The last deal's throws nobody has told the board: tap your cards, then save.
function drawThrowPicker(deal) {
  const box = $("coach-throw");
  box.replaceChildren();
  if (!deal) return;
  const unknown = deal.players.filter((p) => !p.thrown).map((p) => p.player);
  if (!unknown.length) return;
  if (!unknown.includes(throwPlayer)) { throwPlayer = unknown[0]; throwPicked = []; }
  const size = deal.players.length === 2 ? 2 : 1;
  const known = new Set([deal.starter, ...deal.players.flatMap((p) => [...(p.kept || []),
    ...(p.thrown || [])])]);
  const who = el("select", { id: "throw-player", "aria-label": "Who threw",
    onchange: (e) => { throwPlayer = e.target.value; throwPicked = []; drawThrowPicker(deal); } },
    unknown.map((name) => el("option", { value: name, selected: name === throwPlayer }, name)));
  const pick = (card) => {
    throwPicked = throwPicked.includes(card) ? throwPicked.filter((c) => c !== card)
      : throwPicked.length < size ? [...throwPicked, card] : throwPicked;
    drawThrowPicker(deal);
  };
  const deck = el("div", { class: "deck throw-deck" },
    deckButtons(pick, { leave: known, picked: throwPicked }));
  const save = el("button", { type: "button", id: "throw-save",
    disabled: throwPicked.length !== size, onclick: async () => {
      const sent = await send({ action: "discard", player: throwPlayer, cards: throwPicked });
      if (sent) { throwPicked = []; loadCoach(); }
    } }, `Save ${throwPlayer}'s throw`);
  box.append(el("p", {}, `What did you throw to the crib this deal? Pick ${size}: `, who),
    deck, save);
}

function drawStats(stats) {
  const box = $("coach-stats");
  box.replaceChildren();
  if (!stats.players.length) { box.append(el("p", {}, "No finished deals yet.")); return; }
  if (!stats.players.some((p) => p.name === coachPlayer)) coachPlayer = stats.players[0].name;
  const pick = el("select", { id: "coach-player", "aria-label": "Player",
    onchange: (e) => { coachPlayer = e.target.value; drawStats(stats); } },
    stats.players.map((p) => el("option", { value: p.name, selected: p.name === coachPlayer }, p.name)));
  const p = stats.players.find((q) => q.name === coachPlayer);
  const rows = [
    ["Games won", `${p.wins} of ${p.games}`],
    ["Skunks given / taken", `${p.skunks_given} / ${p.skunks_taken}`],
    ["Hand, per deal", number(p.hand_average)],
    ["Crib, per deal dealt", number(p.crib_average)],
    ["Pegging, per deal", number(p.pegging_average)],
    ["Luck, per hand", p.luck_per_hand === null ? "–" : (p.luck_per_hand >= 0 ? "+" : "") + number(p.luck_per_hand)],
    ["Points given away by throws", number(p.lost_to_best_per_throw)],
  ];
  const best = p.best_hands.map((h) => el("li", {}, `${h.points}: `, h.cards.map(cardChip), " | ",
    cardChip(h.starter)));
  const head = stats.head_to_head.filter((h) => h.players.includes(coachPlayer)).map((h) => {
    const other = h.players[0] === coachPlayer ? h.players[1] : h.players[0];
    return el("li", {}, `against ${other}: ${h.wins[coachPlayer]}-${h.wins[other]}`);
  });
  // append() prints a null as "null": only what there is to show goes in.
  box.append(...[el("p", {}, "Statistics of ", pick),
    el("table", { class: "stats-table" }, rows.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v)))),
    best.length ? el("div", {}, el("h3", {}, "Best hands"), el("ol", {}, best)) : null,
    head.length ? el("div", {}, el("h3", {}, "Head to head"), el("ul", {}, head)) : null,
    el("div", { class: "plot-box", id: "plot-hands" }, handHistogram(p, stats.all_hands))].filter(Boolean));
}

async function loadCoach() {
  const [review, stats] = await Promise.all(["/api/review", "/api/stats"].map(async (url) => {
    try {
      const response = await fetch(url, { cache: "no-store" });
      return response.ok ? response.json() : null;
    } catch (error) { return null; }
  }));
  $("coach-race").replaceChildren();
  $("coach-deals").replaceChildren();
  if (review && review.deals.length) {
    const games = Object.keys(review.races);
    const game = games[games.length - 1];
    $("coach-race").append(scoreRace(review.races[game], game));
    $("coach-deals").append(pointsPerDeal(review.deals.filter((d) => String(d.game) === game)));
    drawReview(review.deals);
  } else {
    $("coach-review").replaceChildren(el("p", {}, "No deals in this match yet."));
  }
  if (stats) drawStats(stats);
}

document.addEventListener("DOMContentLoaded", () => {
  const box = $("coach-box");
  if (!box) return;
  box.addEventListener("toggle", () => { if (box.open) loadCoach(); });
  $("coach-refresh").addEventListener("click", loadCoach);
});
