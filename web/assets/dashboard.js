// The dashboard: the listing the web server pushes on /ws/events, drawn
// as one card a pane, the pane that needs you most first. Everything the
// server says is put in with textContent, never as HTML.
"use strict";

const NEED = { blocked: "blocked", failed: "failed", done: "done", working: "working" };

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = text;
  return node;
}

function card(pane) {
  const item = el("li");
  const link = el("a", "pane-card");
  link.href = "/pane/" + encodeURIComponent(pane.id);
  const blocked = pane.lifecycle === "blocked" || pane.attention === "permission_required"
    || pane.attention === "input_required";
  const need = blocked ? "blocked" : NEED[pane.lifecycle];
  if (need) link.classList.add("need-" + need);
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
  return item;
}

function draw(listing) {
  const error = document.getElementById("error");
  error.hidden = !listing.error;
  error.textContent = listing.error || "";
  const list = document.getElementById("panes");
  list.replaceChildren(...listing.panes.map(card));
  document.getElementById("empty").hidden = !!listing.error || listing.panes.length > 0;
  const waiting = listing.panes.filter((p) => p.lifecycle === "blocked").length;
  document.title = (waiting ? "(" + waiting + ") " : "") + "signaltty";
  document.getElementById("status").textContent =
    listing.panes.length + " panes" + (listing.read_only ? " · read-only" : "");
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

connect();
