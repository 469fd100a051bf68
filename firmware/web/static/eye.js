// The camera's eye: the table as the camera last read it (/api/eye and /api/eye.jpg, PIN only),
// with tap targets over its outlines. Tap a card the board read to say what it really is (the
// one-step correction), an unread card or a marked empty place to name it (the hand entry,
// its place already known). A still, fetched again only when the board has made a new one;
// polled only while the panel is open and the page is in view.
// Loaded after cards.js and app.js, whose $(), el(), cardChip(), deckButtons(), send(),
// askPin(), toast(), pin and table it uses.
"use strict";

const EYE_POLL_MS = 2000;
const eye = { version: 0, data: null, image: null, timer: null, target: null, picked: [] };

function eyeShow(t) {
  // Called by app.js with every snapshot: the panel is there only where a camera is.
  $("eye-card").hidden = !t.camera && location.pathname !== "/eye";
  if (eye.target) drawEyePicker();
}

function eyeNote(text) {
  $("eye-note").textContent = text;
}

async function eyeOpened() {
  if (!$("eye-box").open) {
    clearInterval(eye.timer);
    eye.timer = null;
    return;
  }
  if (!pin && !(await askPin())) {
    eyeNote("The camera's view needs the board's PIN: with it you see the table as the camera "
      + "last read it, and can name or correct its cards.");
    return;
  }
  if (table) drawControls(table);  // shows the PIN as given
  eyePoll();
  if (!eye.timer) eye.timer = setInterval(eyePoll, EYE_POLL_MS);
}

async function eyePoll() {
  if (!$("eye-box").open || document.hidden || !pin) return;
  let response;
  try {
    response = await fetch("/api/eye", { cache: "no-store", headers: { "X-Pin": pin } });
  } catch (error) {
    eyeNote("No answer from the board.");
    return;
  }
  const data = await response.json().catch(() => ({}));
  if (response.status === 401 || response.status === 403) {
    pin = null;
    sessionStorage.removeItem("pin");
    eyeNote(data.error || "wrong PIN");
    drawControls(table);
    return;
  }
  if (!response.ok) {
    eyeNote(data.error || response.statusText);
    return;
  }
  if (data.version === eye.version) return;
  const picture = await fetch("/api/eye.jpg", { cache: "no-store", headers: { "X-Pin": pin } });
  if (!picture.ok) return;
  const url = URL.createObjectURL(await picture.blob());
  if (eye.image) URL.revokeObjectURL(eye.image);
  eye.image = url;
  eye.version = data.version;
  eye.data = data;
  $("eye-img").src = url;
  $("eye-img").hidden = false;
  drawEyeMarks(data);
  $("eye-at-start").hidden = !(data.at_start && data.at_start.length);
  eyeNote(eyeWords(data));
}

// What the picture shows, in words: cards read, named by hand (or corrected), not read.
function eyeWords(data) {
  const named = data.cards.filter((c) => c.named).length;
  const read = data.cards.length - named, unread = data.unread.length;
  const plural = (n, word) => `${n} card${n === 1 ? "" : "s"} ${word}`;
  const parts = [plural(read, "read")];
  if (named) parts.push(`${named} named by hand`);
  if (unread) parts.push(`${unread} not read`);
  return parts.join(", ") + "."
    + (data.at_start_words ? ` ${data.at_start_words[0].toUpperCase()}${data.at_start_words.slice(1)}.` : "")
    + (data.cards.length || unread ? " Tap a card to correct it, an orange or dashed outline to name it." : "");
}

function drawEyeMarks(data) {
  const svg = $("eye-marks");
  const ns = "http://www.w3.org/2000/svg";
  svg.setAttribute("viewBox", `0 0 ${data.size[0]} ${data.size[1]}`);
  svg.replaceChildren();
  const add = (outline, cls, attrs, title, target) => {
    const node = document.createElementNS(ns, "polygon");
    node.setAttribute("points", outline.map(([x, y]) => `${x},${y}`).join(" "));
    node.setAttribute("class", cls);
    node.setAttribute("role", "button");
    node.setAttribute("aria-label", title);
    for (const [k, v] of Object.entries(attrs)) if (v !== null) node.setAttribute(k, v);
    const hint = document.createElementNS(ns, "title");
    hint.textContent = title;
    node.append(hint);
    node.addEventListener("click", () => eyeChoose(target, node));
    svg.append(node);
  };
  // Expected places first, so a card lying over one is the one tapped.
  for (const want of data.expected) {
    add(want.outline, "eye-expected", { "data-place": want.place, "data-what": want.what },
      `${want.place}: ${want.what} not seen; tap to name it`, { kind: want.cards === 4 ? "spread" : "name", place: want.place, what: want.what });
  }
  for (const seen of data.unread) {
    add(seen.outline, "eye-unread", { "data-place": seen.place },
      "a card not read; tap to name it", { kind: eyeSpreadDue(seen.place) ? "spread" : "name", place: seen.place, what: "card" });
  }
  for (const read of data.cards) {
    add(read.outline, "eye-card", { "data-card": read.card, "data-place": read.place },
      `${read.card}: misread? tap to correct it`, { kind: "correct", card: read.card, place: read.place });
  }
}

// An unread card where a hand or the crib is due is one of a spread of four.
function eyeSpreadDue(place) {
  return Boolean(eye.data && eye.data.expected.some((w) => w.place === place && w.cards === 4));
}

function eyePlaceWords(place) {
  return place === "starter" ? "the starter's place" : place === "crib" ? "the crib" : `${place}'s area`;
}

function eyeChoose(target, node) {
  for (const other of $("eye-marks").children) other.classList.remove("chosen");
  if (eye.target && node && eye.target.node === node) {
    eye.target = null;  // a second tap on the same outline puts the picker away
  } else {
    eye.target = { ...target, node };
    if (node) node.classList.add("chosen");
    const here = eye.data ? eye.data.cards.filter((c) => c.place === target.place).map((c) => c.card) : [];
    const laid = (eye.data && eye.data.laid[target.place]) || [];
    eye.picked = target.kind === "spread" ? [...new Set([...laid, ...here])].slice(0, 4) : [];
  }
  drawEyePicker();
}

function drawEyePicker() {
  const box = $("eye-picker");
  const target = eye.target;
  box.hidden = !target;
  if (!target) return;
  let words;
  if (target.place === null || target.place === undefined) {
    words = "This card lies outside every area: move it into the area it belongs to.";
    box.replaceChildren(el("p", { class: "eye-ask" }, words));
    return;
  }
  if (target.kind === "correct") {
    words = [`The board read `, cardChip(target.card), ` in ${eyePlaceWords(target.place)}. Tap what it really is:`];
  } else if (target.kind === "spread") {
    words = [`${target.place === "crib" ? "The crib" : target.place + "'s hand"}: pick its 4 cards (${eye.picked.length} picked)`];
  } else {
    words = [`Name the card in ${eyePlaceWords(target.place)}:`];
  }
  // A card to name is none of those the game already has on the table.
  const known = table ? [table.starter, ...Object.values(table.laid || {}).flat()].filter(Boolean) : [];
  const unusable = new Set(target.kind === "correct" ? [target.card] : target.kind === "name" ? known : []);
  const buttons = deckButtons(eyeTap, { picked: target.kind === "spread" ? eye.picked : null, labelled: true });
  for (const button of buttons) {  // greyed, not left out: the deck keeps its rows
    if (unusable.has(button.dataset.card)) { button.disabled = true; button.classList.add("used"); }
  }
  const deck = el("div", { class: "deck eye-deck" }, buttons);
  const rows = [el("p", { class: "eye-ask" }, ...words), deck];
  if (target.kind === "spread") {
    rows.push(el("div", { class: "spread-row" },
      el("span", { class: "spread-cards" }, ...eye.picked.map(cardChip)),
      el("button", { type: "button", id: "eye-spread-send", disabled: eye.picked.length !== 4,
        onclick: eyeSendSpread }, "Count these 4")));
  }
  rows.push(el("button", { type: "button", class: "quiet", onclick: eyeDone }, "Cancel"));
  box.replaceChildren(...rows);
}

async function eyeTap(card) {
  const target = eye.target;
  if (!target) return;
  if (target.kind === "spread") {
    eye.picked = eye.picked.includes(card) ? eye.picked.filter((c) => c !== card)
      : eye.picked.length < 4 ? [...eye.picked, card] : eye.picked;
    drawEyePicker();
    return;
  }
  const sent = target.kind === "correct"
    ? await send({ action: "correct", was: target.card, card })
    : await send({ action: "card", card, zone: target.place });
  if (sent) eyeDone();
}

async function eyeSendSpread() {
  const target = eye.target;
  if (!target || eye.picked.length !== 4) return;
  if (await send({ action: "spread", zone: target.place, cards: eye.picked })) eyeDone();
}

function eyeDone() {
  eye.target = null;
  eye.picked = [];
  for (const other of $("eye-marks").children) other.classList.remove("chosen");
  drawEyePicker();
}

function wireEye() {
  $("eye-box").addEventListener("toggle", eyeOpened);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) eyePoll(); });
  if (location.pathname === "/eye") {  // the link calibrate and doctor print
    $("eye-card").hidden = false;
    $("eye-box").open = true;
    $("eye-card").scrollIntoView();
  }
}

wireEye();
