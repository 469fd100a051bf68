// The phone page: mirrors the board from /api/events (server-sent events) and sends every
// change to /api/action with the board's PIN, the revision it was made against and a fresh
// nonce, so the board refuses a change made against a table that has moved on, or a replay.
// No framework and nothing from the internet: the table may have no connection.
// Loaded after cards.js, whose el(), cardChip() and deck of card buttons it uses.
"use strict";

const DEFAULT_COLOURS = ["#0072b2", "#e69f00", "#009e73", "#cc79a7"];
const FLAGS = ["partnership", "muggins", "last_player_continues", "early_double_skunk",
  "crib_four_flush", "stink_hole", "muggins_heels"];
const RULE_DEFAULTS = { partnership: false, muggins: false, last_player_continues: true,
  early_double_skunk: false, crib_four_flush: false, stink_hole: false, muggins_heels: false,
  dealer_bonus: 0 };

let table = null;        // the newest snapshot
let rev = null;          // the newest revision known (a change's reply may beat its snapshot)
let pin = sessionStorage.getItem("pin");
let zone = null;         // where a card entered by hand goes
let zoneAuto = true;     // follow the game's turn until the player picks a zone
let picked = [];         // cards picked for a spread
let claimPoints = 0;
let adjustPoints = 0;    // a score moved by hand: plus or minus, never 0 when sent
let correcting = null;   // a card tapped as misread: the next card tapped in the deck is it
let settingsShownFor = null;  // the settings the form was last filled from
let cameraSeen = null;
let blurredSeen = false;  // whether the camera was last shown out of focus

const $ = (id) => document.getElementById(id);

// "12.9": the store's last row id, then the events in the match. Later ids are newer;
// for one id, fewer events are newer (undo).
function revNewer(a, b) {
  if (!b) return true;
  if (!a) return false;
  const [ai, an] = a.split(".").map(Number);
  const [bi, bn] = b.split(".").map(Number);
  return ai > bi || (ai === bi && an < bn);
}

function nonce() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function toast(text, kind) {
  const node = $("toast");
  node.textContent = text;
  node.className = "toast " + (kind || "");
}

// -- the live board ---------------------------------------------------------------------

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => {
    // A restarted board counts its snapshots from 1 again: take whatever it sends next.
    if (table) table = { ...table, version: 0 };
    $("link").textContent = "live";
    $("link").className = "link live";
  });
  source.addEventListener("error", () => { $("link").textContent = "reconnecting…"; $("link").className = "link down"; });
  source.addEventListener("state", (event) => show(JSON.parse(event.data)));
}

async function refresh() {
  try {
    const response = await fetch("/api/state", { cache: "no-store" });
    if (response.ok) show(await response.json());
  } catch (error) { /* the event stream will bring it */ }
}

function show(snapshot) {
  if (table && snapshot.version <= table.version) return;
  table = snapshot;
  if (!revNewer(rev, snapshot.rev)) rev = snapshot.rev;
  document.body.dataset.rev = snapshot.rev;
  document.body.dataset.version = snapshot.version;
  $("next").textContent = snapshot.next;
  $("status").textContent = snapshot.status || "";
  drawBoard(snapshot);
  drawSides(snapshot);
  drawCount(snapshot);
  drawControls(snapshot);
  drawManual(snapshot);
  drawScores(snapshot);
  drawHistory(snapshot);
  fillSettings(snapshot);
  if (typeof eyeShow === "function") eyeShow(snapshot);  // the camera's view (eye.js)
}

function drawBoard(t) {
  const svg = $("board");
  const ns = "http://www.w3.org/2000/svg";
  const target = t.board.target;
  const sides = t.sides.length ? t.sides : t.settings.players.map((name, i) =>
    ({ name, front: 0, back: 0, colour: t.settings.colours[i] || DEFAULT_COLOURS[i] }));
  const rowH = 22, top = 14, left = 8, width = 304;
  const x = (hole) => left + (hole * width) / target;
  const height = top + sides.length * rowH + 4;
  svg.setAttribute("viewBox", `0 0 320 ${height}`);
  svg.replaceChildren();
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  for (const [line, colour] of [[t.board.double_skunk, "#cc79a7"], [t.board.skunk, "#d55e00"]]) {
    if (line === null || line === undefined) continue;
    const at = x(line - 0.5);
    add("line", { x1: at, x2: at, y1: top - 4, y2: height - 2, stroke: colour, "stroke-width": 1, "stroke-dasharray": "2 2" });
    add("text", { x: at, y: 8, "font-size": 8, "text-anchor": "middle", fill: colour, class: "skunk-line" }, String(line));
  }
  sides.forEach((side, i) => {
    const y = top + i * rowH + rowH / 2;
    add("line", { x1: x(0), x2: x(target), y1: y, y2: y, stroke: "#ccc", "stroke-width": 5, "stroke-linecap": "round" });
    for (let hole = 5; hole < target; hole += 5) {
      add("circle", { cx: x(hole), cy: y, r: 0.9, fill: "#888" });
    }
    add("circle", { cx: x(target), cy: y, r: 4, fill: "none", stroke: t.turn_side === i ? side.colour : "#999", "stroke-width": 1.5 });
    if (side.back !== side.front) {
      add("circle", { cx: x(side.back), cy: y, r: 3.2, fill: side.colour, "fill-opacity": 0.35, stroke: side.colour, class: "peg back" });
    }
    add("circle", { cx: x(side.front), cy: y, r: 4.2, fill: side.colour, stroke: "#222", "stroke-width": 0.8, class: "peg front" });
  });
}

function drawSides(t) {
  const box = $("sides");
  box.replaceChildren(...t.sides.map((side, i) => {
    const points = (t.match.points || {})[side.name];
    const badge = t.winner_side === i ? "won" : (t.turn_side === i ? "▶ " + (t.turn || "") : "");
    return el("div", { class: "side" + (t.turn_side === i ? " turn" : ""), "data-side": i },
      el("div", {}, el("span", { class: "swatch", style: `background:${side.colour}` }),
        el("span", { class: "name" }, side.name)),
      el("div", { class: "score" }, side.score),
      el("div", { class: "pegs" }, `pegs ${side.front} · ${side.back}`),
      points ? el("div", { class: "extra" }, `match points ${points}`) : null,
      side.result && side.result !== "win" ? el("div", { class: "extra" }, side.result.replace("_", " ")) : null,
      badge ? el("span", { class: "badge" }, badge) : null);
  }));
}

// A card the board may have misread: tapping it starts a correction (the right card is
// then tapped in the deck).
function correctable(card) {
  const chip = cardChip(card);
  chip.classList.add("tappable");
  chip.setAttribute("role", "button");
  chip.title = `Misread? Tap, then tap the right card`;
  chip.addEventListener("click", () => startCorrecting(card));
  return chip;
}

function startCorrecting(card) {
  correcting = correcting === card ? null : card;
  $("manual-box").open = true;
  drawCorrecting();
}

function drawCorrecting() {
  $("correcting").hidden = !correcting;
  $("correcting").textContent = correcting
    ? `Correcting ${correcting}: tap the card it really is in the deck (tap ${correcting} again to stop)` : "";
}

function drawCount(t) {
  $("starter").replaceChildren(t.starter ? correctable(t.starter) : "–");
  $("count").textContent = t.count;
  $("dealer").textContent = t.dealer || "–";
  $("pile").replaceChildren(...t.pile.map(correctable));
}

function drawControls(t) {
  const muggins = t.rules.muggins;
  $("muggins").hidden = !muggins;
  $("go").disabled = t.phase !== "play";
  const claiming = muggins || t.manual;  // the flow pegs points by hand only then
  $("claim-row").hidden = !claiming;
  $("claim-who").textContent = t.awaiting_claim.length
    ? `${t.awaiting_claim[0]}: claim your count` : (muggins ? "Claim" : "Peg points by hand");
  $("lock").textContent = pin ? "PIN given" : "PIN needed";
  $("lock").classList.toggle("open", Boolean(pin));
  $("next-game").disabled = t.phase !== "over";
  // Once the match is won, CONFIRM starts a new match, not a next game: the button says so.
  $("next-game").textContent = t.match.winner ? "Start a new match (cut for the deal)" : "Next game of the match";
  $("misdeal").disabled = !t.misdeal_allowed;
  drawAdjust(t);
}

// A score moved by hand (the log's "adjust"): whose, by how much; the board says it.
function drawAdjust(t) {
  const who = $("adjust-who");
  const chosen = who.value;
  const players = t.sides.length ? t.players : [];
  if (who.options.length !== players.length || [...who.options].some((o, i) => o.value !== players[i])) {
    who.replaceChildren(...players.map((name) => el("option", { value: name }, name)));
    if (players.includes(chosen)) who.value = chosen;
  }
  const open = t.sides.length > 0 && !["new_game", "over"].includes(t.phase);
  $("adjust-points").textContent = (adjustPoints > 0 ? "+" : "") + adjustPoints;
  $("adjust").disabled = !open || adjustPoints === 0;
  $("adjust").textContent = adjustPoints < 0 ? `Take back ${-adjustPoints}` : `Peg ${adjustPoints}`;
}

function stepAdjust(step) {
  adjustPoints = Math.max(-29, Math.min(29, adjustPoints + step));
  if (table) drawAdjust(table);
}

function drawManual(t) {
  if (cameraSeen !== t.camera) {
    cameraSeen = t.camera;
    if (!t.camera) $("manual-box").open = true;
  }
  const blurred = t.camera_focus === "out of focus";
  if (blurredSeen !== blurred) {
    blurredSeen = blurred;  // an out-of-focus camera misses cards: offer the hand entry
    if (blurred) $("manual-box").open = true;
  }
  $("camera-state").textContent = !t.camera ? "no camera" : t.manual ? "camera lost"
    : blurred ? "camera out of focus" : "camera on";
  const mode = document.querySelector("input[name=mode]:checked").value;
  const zones = [...t.players, mode === "lay" ? "starter" : "crib"];
  if (zoneAuto || !zones.includes(zone)) {
    if (mode === "spread") zone = t.phase === "crib" ? "crib" : t.turn;
    else if (t.phase === "play") zone = t.turn;
    else if (["starter", "over"].includes(t.phase) || (t.phase === "deal" && t.turn)) zone = "starter";
    else zone = null;  // the cut: each player lays a card in their own area
    if (!zones.includes(zone)) zone = zones[0];
  }
  $("zones").replaceChildren(...zones.map((name) => el("button", {
    type: "button", role: "radio", "aria-checked": String(name === zone), "data-zone": name,
    onclick: () => { zone = name; zoneAuto = false; drawManual(table); },
  }, name === "starter" ? "Starter" : name === "crib" ? "Crib" : name)));
  const used = new Set([t.starter, ...Object.values(t.laid).flat()].filter(Boolean));
  for (const button of $("deck").children) {
    const card = button.dataset.card;
    button.classList.toggle("used", mode === "lay" && used.has(card));
    button.classList.toggle("picked", picked.includes(card));
  }
  $("spread-row").hidden = mode !== "spread";
  $("spread-cards").replaceChildren(...picked.map(cardChip));
  $("spread-send").disabled = picked.length !== 4;
  $("spread-send").textContent = `Count these 4 for ${zone === "crib" ? "the crib" : zone}`;
}

// Newest first, under a heading per deal ("Deal 3 · Bob deals").
function drawScores(t) {
  const items = [];
  let deal = null;
  for (const s of t.scores.slice(0, 30)) {
    if (s.deal !== deal) {
      deal = s.deal;
      items.push(el("li", { class: "deal-head", "data-deal": deal },
        deal ? `Deal ${deal}` + (s.dealer ? ` · ${s.dealer} deals` : "") : "Before the deal"));
    }
    items.push(scoreItem(s));
  }
  $("scores").replaceChildren(...items);
  if (!t.scores.length) $("scores").append(el("li", { class: "muted" }, "No scores yet."));
}

function scoreItem(s) {
  return el("li", { "data-event": s.event },
    el("div", { class: "head" }, el("span", {}, `${s.player || s.side} · ${s.what}`),
      el("span", {}, (s.points >= 0 ? "+" : "") + s.points)),
    s.cards && s.kind !== "play" ? el("div", {}, ...s.cards.map(correctable),
      s.starter ? el("span", { class: "muted" }, " starter ") : null,
      s.starter ? cardChip(s.starter) : null) : null,
    s.words ? el("div", { class: "words" }, s.words) : null);
}

function drawHistory(t) {
  const games = t.match.games.map((g, i) => el("li", {},
    `Game ${i + 1}: ${g.winner} won` + (g.result !== "win" ? ` (${g.result.replace("_", " ")})` : "")
    + ` · ${g.scores.join("–")}`));
  const points = Object.entries(t.match.points || {}).map(([name, n]) => `${name} ${n}`).join(" · ");
  // replaceChildren prints a null as "null": only what there is to show goes in.
  $("match").replaceChildren(...[
    games.length ? el("ol", { class: "history" }, games) : el("p", { class: "muted" }, "No game finished yet."),
    points ? el("p", {}, "Match points: " + points) : null,
    matchStanding(t.match)].filter(Boolean));
  $("export").hidden = !t.sides.length;
  $("history").replaceChildren(...t.history.map((m) => {
    return el("li", { "data-match": m.id }, historyLine(m),
      el("a", { href: `/api/export?match=${m.id}`, download: `cribbage-match-${m.id}.jsonl`, class: "export" }, "game log"));
  }));
}

// One line per stored match, told apart by its number, when it began and how it stands.
function historyLine(m) {
  const when = new Date(m.started_at * 1000).toLocaleString([], { weekday: "short", day: "numeric",
    month: "short", hour: "2-digit", minute: "2-digit" });
  const n = m.games.length;
  const order = Object.entries(m.points).sort((a, b) => b[1] - a[1]);
  const standing = !n ? "no game finished"
    : `${n} game${n === 1 ? "" : "s"}, ` + (order.length > 1 && order[0][1] === order[1][1]
      ? "level at " + order.map(([, p]) => p).join("–")
      : `${order[0][0]} ahead ` + order.map(([, p]) => p).join("–")) + " in match points";
  const skunks = m.skunks ? `, ${m.skunks} skunk${m.skunks === 1 ? "" : "s"}` : "";
  return `Match ${m.id} · ${when} · ${m.players.join(", ")}: ${standing}${skunks} `;
}

function misdealQuestion(t) {
  const penalty = t && t.settings.rules.misdeal_penalty !== undefined ? t.settings.rules.misdeal_penalty : 2;
  const dealer = (t && t.dealer) || "the dealer";
  return `Misdeal: ${dealer} deals again` + (penalty ? `, and the player on ${dealer}'s left pegs ${penalty}` : "") + "?";
}

function matchStanding(m) {
  const length = m.best_of ? `best of ${m.best_of} games` : m.first_to ? `first to ${m.first_to} match points` : null;
  if (!length) return null;
  const state = m.winner ? `${m.winner} won the match` : m.match_point.length
    ? `match point for ${m.match_point.join(" and ")}` : "";
  return el("p", {}, `The match: ${length}` + (state ? ` · ${state}` : ""));
}

// -- changes ---------------------------------------------------------------------------------

// Asks before a change that ends something (a new match): the text says what happens to the
// match open now; resolves true only on Confirm.
function askConfirm(text) {
  return new Promise((resolve) => {
    const dialog = $("confirm-dialog");
    $("confirm-text").textContent = text;
    const done = (value) => {
      $("confirm-form").onsubmit = null;
      $("confirm-cancel").onclick = null;
      if (dialog.open) dialog.close();
      resolve(value);
    };
    $("confirm-cancel").onclick = () => done(false);
    $("confirm-form").onsubmit = (event) => { event.preventDefault(); done(true); };
    dialog.showModal();
  });
}

function openMatchSentence(t) {
  const words = t && t.open_match;
  if (!words || words === "no match is open") return "";
  return " " + words.charAt(0).toUpperCase() + words.slice(1) + ".";
}

function askPin() {
  return new Promise((resolve) => {
    const dialog = $("pin-dialog");
    $("pin").value = "";
    $("pin-error").textContent = "";
    const done = (value) => {
      $("pin-form").onsubmit = null;
      $("pin-cancel").onclick = null;
      if (dialog.open) dialog.close();
      resolve(value);
    };
    $("pin-cancel").onclick = () => done(null);
    $("pin-form").onsubmit = async (event) => {
      event.preventDefault();
      const given = $("pin").value.trim();
      const response = await fetch("/api/pin", { method: "POST", headers: { "X-Pin": given } });
      if (response.ok) {
        pin = given;
        sessionStorage.setItem("pin", given);
        done(given);
      } else {
        const data = await response.json().catch(() => ({}));
        $("pin-error").textContent = data.error || "wrong PIN";
      }
    };
    dialog.showModal();
    $("pin").focus();
  });
}

async function send(fields) {
  if (!table) return null;
  if (!pin && !(await askPin())) return null;
  const body = { ...fields, rev: rev || table.rev, nonce: nonce() };
  let response;
  try {
    response = await fetch("/api/action", {
      method: "POST", cache: "no-store",
      headers: { "Content-Type": "application/json", "X-Pin": pin },
      body: JSON.stringify(body),
    });
  } catch (error) {
    toast("No answer from the board: " + error.message, "error");
    return null;
  }
  const data = await response.json().catch(() => ({ error: response.statusText }));
  if (response.status === 401 || response.status === 403) {
    pin = null;
    sessionStorage.removeItem("pin");
    toast(data.error || "wrong PIN", "error");
    drawControls(table);
    return null;
  }
  if (response.status === 409) {
    toast(data.error, "error");
    refresh();
    return null;
  }
  if (data.rev && revNewer(data.rev, rev)) rev = data.rev;
  if (!response.ok) {
    toast(data.error || response.statusText, "error");
    return null;
  }
  const said = [...new Set((data.feedback || []).map((f) => f.text))].join(" · ");
  toast(said || changeWords(fields), "ok");
  drawControls(table);
  return data;
}

// What a change stored, in a player's words, for when the board has nothing to add.
function changeWords(f) {
  const whose = (place) => place === "crib" ? "the crib" : `${place}'s hand`;
  if (f.action === "card") return f.zone === "starter" ? `${f.card} stored as the starter` : `${f.card} laid by ${f.zone}`;
  if (f.action === "correct") return `${f.was} put right: ${f.card}`;
  if (f.action === "spread") return `${whose(f.zone)} stored: ${f.cards.join(" ")}`;
  if (f.action === "adjust") return `${f.player} ${f.points > 0 ? "+" : ""}${f.points} pegged by hand`;
  return "stored";
}

function buildDeck() {
  $("deck").append(...deckButtons(tapCard, { labelled: true }));
}

async function tapCard(card) {
  if (!table) return;
  if (correcting) {
    const sent = await send({ action: "correct", was: correcting, card });
    if (sent) { correcting = null; drawCorrecting(); }
    return;
  }
  const mode = document.querySelector("input[name=mode]:checked").value;
  if (mode === "spread") {
    picked = picked.includes(card) ? picked.filter((c) => c !== card)
      : picked.length < 4 ? [...picked, card] : picked;
    drawManual(table);
    return;
  }
  const sent = await send({ action: "card", card, zone });
  if (sent) zoneAuto = true;
}

// -- settings --------------------------------------------------------------------------------

function seats() {
  return [...$("seat-list").querySelectorAll("input")].map((input) => input.value);
}

function colours() {
  return [...$("colour-list").querySelectorAll("input")].map((input) => input.value);
}

function drawSeats(names, chosen) {
  const list = $("seat-list");
  list.replaceChildren(...names.map((name, i) => el("li", {}, el("div", { class: "seat" },
    el("input", { value: name, "aria-label": `Player ${i + 1}`, maxlength: 20, "data-seat": i,
      oninput: () => { settingsShownFor = "edited"; drawColours(seats(), colours()); } }),
    el("button", { type: "button", "aria-label": "Move up", disabled: i === 0,
      onclick: () => moveSeat(i, -1) }, "↑"),
    el("button", { type: "button", "aria-label": "Move down", disabled: i === names.length - 1,
      onclick: () => moveSeat(i, 1) }, "↓"),
    el("button", { type: "button", "aria-label": "Remove", disabled: names.length <= 2,
      onclick: () => { const n = seats(); n.splice(i, 1); drawSeats(n, colours()); } }, "✕")))));
  $("add-player").disabled = names.length >= 4;
  drawColours(names, chosen);
}

function drawColours(names, chosen) {
  const form = $("settings");
  const partners = names.length === 4 && form.elements.partnership.checked;
  form.elements.partnership.disabled = names.length !== 4;
  const sides = partners ? [`${names[0]} & ${names[2]}`, `${names[1]} & ${names[3]}`] : names;
  $("colour-list").replaceChildren(...sides.map((name, i) => el("label", {},
    el("input", { type: "color", value: chosen[i] || DEFAULT_COLOURS[i], "data-side": i }), name || `Side ${i + 1}`)));
}

function moveSeat(i, step) {
  const names = seats();
  const [name] = names.splice(i, 1);
  names.splice(i + step, 0, name);
  settingsShownFor = "edited";
  drawSeats(names, colours());
}

function fillSettings(t) {
  const key = JSON.stringify(t.settings);
  if (settingsShownFor === key || settingsShownFor === "edited") return;
  settingsShownFor = key;
  const rules = t.settings.rules;
  const form = $("settings");
  form.elements.target.value = String(rules.target || 121);
  for (const flag of FLAGS) form.elements[flag].checked = rules[flag] ?? RULE_DEFAULTS[flag];
  form.elements.dealer_bonus.value = rules.dealer_bonus || 0;
  form.elements.match.value = rules.best_of ? `best_of:${rules.best_of}` : rules.first_to ? `first_to:${rules.first_to}` : "";
  form.elements.no_misdeal_penalty.checked = rules.misdeal_penalty === 0;
  drawSeats(t.settings.players, t.settings.colours);
}

async function startMatch(event) {
  event.preventDefault();
  const form = $("settings");
  const players = seats().map((name) => name.trim());
  const target = Number(form.elements.target.value);
  const rules = { target };
  for (const flag of FLAGS) {
    const on = form.elements[flag].checked;
    if (flag === "partnership" && players.length !== 4) continue;
    if (flag === "muggins_heels" && !form.elements.muggins.checked) continue;
    if (on !== RULE_DEFAULTS[flag]) rules[flag] = on;
  }
  const match = form.elements.match.value;
  if (match) { const [key, n] = match.split(":"); rules[key] = Number(n); }
  if (form.elements.no_misdeal_penalty.checked) rules.misdeal_penalty = 0;
  const bonus = Number(form.elements.dealer_bonus.value || 0);
  if (bonus) rules.dealer_bonus = bonus;
  const old = (table && table.settings.rules) || {};
  if (old.game_values) rules.game_values = old.game_values;
  for (const line of ["skunk", "double_skunk"]) {
    if (line in old && (old.target || 121) === target) rules[line] = old[line];
  }
  if (!(await askConfirm(`Start a new match: ${players.join(", ")}, ${target} points?` + openMatchSentence(table)))) return;
  const sent = await send({ action: "new_match", players, rules, colours: colours() });
  if (sent) settingsShownFor = null;
}

// -- wiring ----------------------------------------------------------------------------------

function wire() {
  buildDeck();
  for (const id of ["undo", "go", "confirm", "muggins"]) {
    $(id).addEventListener("click", () => send({ action: $(id).dataset.action }));
  }
  $("misdeal").addEventListener("click", async () => {
    if (await askConfirm(misdealQuestion(table))) send({ action: "misdeal" });
  });
  $("claim-less").addEventListener("click", () => { claimPoints = Math.max(0, claimPoints - 1); $("claim-points").textContent = claimPoints; });
  $("claim-more").addEventListener("click", () => { claimPoints = Math.min(29, claimPoints + 1); $("claim-points").textContent = claimPoints; });
  $("claim").addEventListener("click", async () => {
    if (await send({ action: "claim", points: claimPoints })) { claimPoints = 0; $("claim-points").textContent = "0"; }
  });
  $("spread-send").addEventListener("click", async () => {
    if (await send({ action: "spread", zone, cards: picked })) { picked = []; zoneAuto = true; drawManual(table); }
  });
  $("spread-clear").addEventListener("click", () => { picked = []; drawManual(table); });
  for (const radio of document.querySelectorAll("input[name=mode]")) {
    radio.addEventListener("change", () => { picked = []; zoneAuto = true; if (table) drawManual(table); });
  }
  $("next-game").addEventListener("click", () => send({ action: "confirm" }));
  $("restart").addEventListener("click", async () => {
    if (await askConfirm("Start the match over with the same players?" + openMatchSentence(table))) send({ action: "new_game" });
  });
  $("adjust-less").addEventListener("click", () => stepAdjust(-1));
  $("adjust-more").addEventListener("click", () => stepAdjust(1));
  $("adjust").addEventListener("click", async () => {
    if (!adjustPoints) return;
    if (await send({ action: "adjust", player: $("adjust-who").value, points: adjustPoints })) {
      adjustPoints = 0;
      drawAdjust(table);
    }
  });
  $("add-player").addEventListener("click", () => {
    const names = seats();
    if (names.length < 4) { names.push(`Player ${names.length + 1}`); settingsShownFor = "edited"; drawSeats(names, colours()); }
  });
  $("settings").elements.partnership.addEventListener("change", () => drawColours(seats(), colours()));
  $("settings").addEventListener("change", () => { settingsShownFor = "edited"; });
  $("settings").addEventListener("submit", startMatch);
  $("settings-box").querySelector("summary").addEventListener("click", () => {
    // Opening the form shows the current settings, unless the player has started editing.
    // On the click itself, not on "toggle", which comes a moment later and could redraw
    // the seats under a name already being typed.
    if (!$("settings-box").open && table && settingsShownFor !== "edited") {
      settingsShownFor = null;
      fillSettings(table);
    }
  });
}

wire();
refresh();
connect();
