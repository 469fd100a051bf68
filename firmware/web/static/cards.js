// The cards as the phone page draws them, in one place for both scripts that draw them: the
// hand entry's deck (app.js) and the coach's throw picker (coach.js) tap the same buttons,
// and a card named anywhere on the page is the same chip. Loaded first: app.js builds its
// deck as it loads.
"use strict";

const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key === "class") node.className = value;
    else if (key === "style") node.style.cssText = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function cardChip(text) {
  const suit = text.slice(-1);
  const symbol = (SUITS.find(([letter]) => letter === suit) || [suit, suit])[1];
  return el("span", { class: "cardchip" + ("HD".includes(suit) ? " red" : "") },
    text.slice(0, -1) + symbol);
}

// The deck as buttons, spades to clubs and ace to king, each naming its card in data-card
// (what the page and its tests find it by) and marked red for hearts and diamonds; a tap
// calls tap(card). Cards in `leave` are left out (those already known). A picker redrawn on
// every tap passes `picked`: those cards are shown pressed (aria-pressed) and the rest not.
// `labelled` also gives each button its card as aria-label (the hand entry's deck).
function deckButtons(tap, { leave = new Set(), picked = null, labelled = false } = {}) {
  const buttons = [];
  // Each suit starts a row of its own (class "suit-start"), so no suit wraps onto another's.
  for (const [suit, symbol] of SUITS) {
    let first = true;
    for (const rank of RANKS) {
      const card = rank + suit;
      if (leave.has(card)) continue;
      const pressed = picked !== null && picked.includes(card);
      const classes = [first ? "suit-start" : "", "HD".includes(suit) ? "red" : "", pressed ? "picked" : ""];
      first = false;
      buttons.push(el("button", {
        type: "button", class: classes.filter(Boolean).join(" "),
        "data-card": card, "aria-label": labelled ? card : null,
        "aria-pressed": picked === null ? null : String(pressed), onclick: () => tap(card),
      }, rank + symbol));
    }
  }
  return buttons;
}
