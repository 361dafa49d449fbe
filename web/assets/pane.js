// A pane, live: xterm.js fed by /ws/pane/ID, whose binary messages are
// the server's attach frames (a kind byte, then the payload). The page's
// terminal takes the pane's size; the pane takes the page's only when the
// user presses "Take the pane", so a viewer never shrinks it for the
// person at the terminal.
"use strict";

const OUTPUT = 1, SNAPSHOT = 2, STATE = 3, SIZE = 4, INPUT = 11, RESIZE = 12;
const paneId = decodeURIComponent(location.pathname.replace(/^\/pane\//, ""));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const term = new Terminal({
  cursorBlink: true,
  scrollback: 5000,
  fontSize: window.innerWidth < 600 ? 11 : 14,
  fontFamily: "ui-monospace, Menlo, Consolas, monospace",
  theme: { background: "#000000" },
});
const fit = new FitAddon.FitAddon();
term.loadAddon(fit);
term.open(document.getElementById("terminal"));

let socket = null;
let readOnly = true;
let taken = false;

function status(text) { document.getElementById("status").textContent = text; }

function message(text) {
  const node = document.getElementById("message");
  node.hidden = !text;
  node.textContent = text || "";
}

function send(kind, bytes) {
  if (!socket || socket.readyState !== WebSocket.OPEN || readOnly) return;
  const frame = new Uint8Array(1 + bytes.length);
  frame[0] = kind;
  frame.set(bytes, 1);
  socket.send(frame);
}

// An action for the pane (keys by name, a dialog's choice, a prompt, a
// resume or respawn), posted as the dashboard posts them; its outcome.
async function act(action) {
  if (readOnly) return;
  const answer = await fetch("/api/pane/" + encodeURIComponent(paneId), {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(action),
  }).catch((e) => null);
  if (!answer) { outcome({ ok: false, message: "the web server cannot be reached" }); return; }
  if (answer.status === 401) { location.href = "/login"; return; }
  const said = await answer.json().catch(() => ({ ok: false, message: "HTTP " + answer.status }));
  outcome(said, action.action === "keys");
}

function sendKeys(keys) { act({ action: "keys", keys }); }

function outcome(said, quietIfSent) {
  const node = document.getElementById("outcome");
  node.className = said.ok ? "outcome" : "outcome error";
  // Keys say nothing when they went through; the rest say what came of it.
  node.textContent = said.ok && quietIfSent ? "" : said.message;
  if (!said.ok && said.code === "BUSY") document.getElementById("prompt-queue").checked = true;
}

// What the dashboard's listing says of this pane: its dialog's choices,
// whether it takes prompts, whether it can be brought back.
function drawAnswer(pane) {
  const choices = document.getElementById("choices");
  const dialog = pane && pane.dialog;
  choices.replaceChildren();
  if (dialog) {
    for (const choice of dialog.choices) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice" + (choice.number === dialog.selected ? " selected" : "");
      button.textContent = choice.number + ". " + choice.label;
      button.addEventListener("click", () => act({ action: "choose", number: choice.number, label: choice.label }));
      choices.append(button);
    }
  }
  const live = pane && pane.state === "LIVE";
  document.getElementById("prompt").hidden = !(live && pane.agent);
  document.getElementById("revive").hidden = !pane || live;
  document.getElementById("answer").hidden = readOnly || !pane;
}

function follow() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const listing = new WebSocket(scheme + location.host + "/ws/events");
  listing.onmessage = (event) => {
    const said = JSON.parse(event.data);
    drawAnswer((said.panes || []).find((p) => p.id === paneId));
  };
  listing.onclose = () => setTimeout(follow, 2000);
}

function takePane() {
  const size = fit.proposeDimensions();
  if (!size || !size.rows || !size.cols) return;
  taken = true;
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint16(0, size.rows);
  new DataView(bytes.buffer).setUint16(2, size.cols);
  send(RESIZE, bytes);
}

term.onData((data) => send(INPUT, encoder.encode(data)));
term.onBinary((data) => send(INPUT, Uint8Array.from(data, (c) => c.charCodeAt(0) & 0xff)));
// Shift+Enter goes as a named key: the server sends it as the pane's
// program asked (a keyboard protocol, or the key its agent reads as a new line).
term.attachCustomKeyEventHandler((event) => {
  if (event.key === "Enter" && event.shiftKey && !event.ctrlKey && !event.altKey) {
    if (event.type === "keydown") sendKeys(["shift+enter"]);
    return false;
  }
  return true;
});
document.getElementById("take").addEventListener("click", takePane);
document.getElementById("prompt").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = document.getElementById("prompt-text");
  if (!text.value.trim()) return;
  act({ action: "prompt", text: text.value, queue: document.getElementById("prompt-queue").checked });
  text.value = "";
});
document.getElementById("resume").addEventListener("click", () => act({ action: "resume" }));
document.getElementById("respawn").addEventListener("click", () => act({ action: "respawn" }));
window.addEventListener("resize", () => { if (taken) takePane(); });
for (const button of document.querySelectorAll("#keys button")) {
  button.addEventListener("click", () => { sendKeys([button.dataset.keys]); term.focus(); });
}

function showState(state) {
  let text = state.state;
  if (state.exit_code !== null && state.exit_code !== undefined) text += " (exit " + state.exit_code + ")";
  if (readOnly) text += " · read-only";
  status(text);
}

function onFrame(data) {
  const kind = data[0];
  const payload = data.subarray(1);
  if (kind === OUTPUT || kind === SNAPSHOT) {
    term.write(payload);
  } else if (kind === SIZE && payload.length === 4) {
    const view = new DataView(payload.buffer, payload.byteOffset, 4);
    term.resize(view.getUint16(2), view.getUint16(0));
  } else if (kind === STATE) {
    showState(JSON.parse(decoder.decode(payload)));
  }
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws/pane/" + encodeURIComponent(paneId));
  socket.binaryType = "arraybuffer";
  let opened = false;
  socket.onopen = () => { opened = true; };
  socket.onmessage = (event) => {
    if (typeof event.data !== "string") { onFrame(new Uint8Array(event.data)); return; }
    const said = JSON.parse(event.data);
    if (said.type === "attached") {
      readOnly = said.read_only;
      document.getElementById("title").textContent = said.reply.pane;
      document.title = "signaltty — " + said.reply.pane;
      term.resize(said.reply.cols, said.reply.rows);
      document.getElementById("take").hidden = readOnly;
      document.getElementById("keys").hidden = readOnly;
      showState(said.reply);
      message("");
      term.focus();
    } else if (said.type === "refused" || said.type === "error") {
      message(said.message);
    }
  };
  socket.onclose = async (event) => {
    status("disconnected");
    if (!opened || event.code === 4001) {
      const answer = await fetch("/api/session").catch(() => null);
      if (answer && answer.status === 401) { location.href = "/login"; return; }
    }
    if (event.code === 4004) { message(event.reason || "the pane is gone"); return; }
    setTimeout(connect, 1000);
  };
}

connect();
follow();
