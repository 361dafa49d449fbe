// The dashboard: the listing the web server pushes on /ws/events, drawn
// as one card a pane, the pane that needs you most first. A blocked
// agent's dialog comes with its choices as buttons. Everything the
// server says is put in with textContent, never as HTML.
"use strict";

const NEED = { blocked: "blocked", failed: "failed", done: "done", working: "working" };

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

// Posts an action for a pane; its outcome, as the server worded it.
async function act(pane, action) {
  const answer = await fetch("/api/pane/" + encodeURIComponent(pane), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(action),
  }).catch((e) => ({ ok: false, status: 0, json: async () => ({ message: String(e) }) }));
  if (answer.status === 401) { location.href = "/login"; return { ok: false, message: "log in again" }; }
  return answer.json().catch(() => ({ ok: false, message: "HTTP " + answer.status }));
}

function choices(pane, readOnly) {
  const box = el("div", "choices");
  for (const choice of pane.dialog.choices) {
    const button = el("button", "choice", choice.number + ". " + choice.label);
    button.type = "button";
    button.disabled = readOnly;
    if (choice.number === pane.dialog.selected) button.classList.add("selected");
    button.addEventListener("click", async () => {
      box.querySelectorAll("button").forEach((b) => { b.disabled = true; });
      const outcome = await act(pane.id, { action: "choose", number: choice.number, label: choice.label });
      box.append(el("p", outcome.ok ? "outcome" : "outcome error", outcome.message));
    });
    box.append(button);
  }
  return box;
}

function card(pane, readOnly) {
  const item = el("li", "pane-card");
  const blocked = pane.lifecycle === "blocked" || pane.attention === "permission_required"
    || pane.attention === "input_required";
  const need = blocked ? "blocked" : NEED[pane.lifecycle];
  if (need) item.classList.add("need-" + need);
  item.dataset.pane = pane.id;
  const link = el("a", "open");
  link.href = "/pane/" + encodeURIComponent(pane.id);
  const top = el("div", "top");
  top.append(el("span", "name", pane.name || pane.title || pane.id));
  top.append(el("span", "badge lifecycle", pane.lifecycle));
  if (pane.state !== "LIVE") top.append(el("span", "badge", pane.state));
  if (pane.agent) top.append(el("span", "badge", pane.agent));
  if (pane.attention && pane.attention !== "none") {
    top.append(el("span", "badge", pane.attention.replace("_", " ")));
  }
  if (pane.exit_code !== null && pane.exit_code !== undefined) {
    top.append(el("span", "badge", "exit " + pane.exit_code));
  }
  link.append(top);
  link.append(el("div", "where", pane.workspace + " › " + pane.tab + " · " + pane.id));
  if (pane.worktree) {
    const dirty = pane.worktree.dirty ? " (changes)" : "";
    link.append(el("div", "tree", "⎇ " + pane.worktree.branch + dirty + " · " + pane.worktree.path));
  }
  if (pane.last_message) link.append(el("div", "where", pane.last_message));
  if (pane.lines && pane.lines.length) link.append(el("pre", "screen", pane.lines.join("\n")));
  item.append(link);
  if (pane.dialog) item.append(choices(pane, readOnly));
  return item;
}

// Notifications: the browser's, when the user turned them on here, and
// an optional beep; the title always counts the panes that wait for you.
const settings = {
  get notify() { return localStorage.getItem("notify") === "on"; },
  set notify(on) { localStorage.setItem("notify", on ? "on" : "off"); },
  get sound() { return localStorage.getItem("sound") === "on"; },
  set sound(on) { localStorage.setItem("sound", on ? "on" : "off"); },
};
let lastAlert = null;

function beep() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  const audio = new Context();
  const tone = audio.createOscillator();
  const gain = audio.createGain();
  tone.frequency.value = 880;
  gain.gain.value = 0.1;
  tone.connect(gain).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.15);
}

function alertAbout(alerts) {
  const newest = alerts.length ? alerts[alerts.length - 1].number : 0;
  // The first listing is not news: only alerts after it notify.
  if (lastAlert === null) { lastAlert = newest; return; }
  const fresh = alerts.filter((a) => a.number > lastAlert);
  lastAlert = Math.max(lastAlert, newest);
  if (!fresh.length) return;
  if (settings.sound) beep();
  if (!settings.notify || !("Notification" in window) || Notification.permission !== "granted") return;
  for (const alert of fresh) {
    const note = new Notification(alert.headline, {
      body: alert.place + (alert.message ? "\n" + alert.message : ""),
      tag: "signaltty-" + alert.pane,
    });
    note.onclick = () => { window.focus(); location.href = "/pane/" + encodeURIComponent(alert.pane); };
  }
}

function toggles() {
  const notify = document.getElementById("notify");
  const sound = document.getElementById("sound");
  const show = () => {
    notify.textContent = settings.notify ? "alerts on" : "alerts off";
    sound.textContent = settings.sound ? "sound on" : "sound off";
  };
  notify.addEventListener("click", async () => {
    if (!settings.notify && "Notification" in window && Notification.permission !== "granted") {
      await Notification.requestPermission();
    }
    settings.notify = !settings.notify;
    show();
  });
  sound.addEventListener("click", () => { settings.sound = !settings.sound; show(); });
  show();
}

function draw(listing) {
  const error = document.getElementById("error");
  error.hidden = !listing.error;
  error.textContent = listing.error || "";
  const list = document.getElementById("panes");
  list.replaceChildren(...listing.panes.map((p) => card(p, listing.read_only)));
  document.getElementById("empty").hidden = !!listing.error || listing.panes.length > 0;
  const waiting = listing.panes.filter((p) => p.lifecycle === "blocked").length;
  document.title = (waiting ? "(" + waiting + ") " : "") + "signaltty";
  document.getElementById("status").textContent =
    listing.panes.length + " panes" + (listing.read_only ? " · read-only" : "");
  alertAbout(listing.alerts || []);
}

let retry = 500;

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/ws/events");
  let opened = false;
  socket.onopen = () => { opened = true; retry = 500; };
  socket.onmessage = (event) => draw(JSON.parse(event.data));
  socket.onclose = async () => {
    document.getElementById("status").textContent = "disconnected; reconnecting…";
    if (!opened) {
      // Refused: the session may have ended (the token was rotated).
      const answer = await fetch("/api/session").catch(() => null);
      if (answer && answer.status === 401) { location.href = "/login"; return; }
    }
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

toggles();
connect();
