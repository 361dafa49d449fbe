//! The multiplexer: every pane of the active tab on screen at once, driven
//! by keyboard and mouse.
//!
//! # How it works
//!
//! The client follows the server's `changed` events and lists the
//! workspaces again after each; it attaches to each pane of the active tab
//! (a snapshot, then output from exactly where it ends), keeps a local
//! screen per pane ([`panes`]) and draws the whole terminal from them
//! ([`render`]), writing only the cells that changed. A pane's output
//! redraws it at most [`render::FRAME`] apart, so a flood costs a picture
//! per frame while a keystroke's echo in a quiet pane shows at once. Tabs
//! that are not shown are not streamed. Everything it changes (focus,
//! tabs, names, splits, ratios) is a request, so the server saves it and
//! every client sees it.
//!
//! When a local server upgrades itself in place, every connection drops
//! and the same server answers again within a second: the event stream
//! comes back ([`server::follow`], with `crate::reconnect`), then the
//! listing, the visible panes' attaches and a full redraw. Another server,
//! or none, ends the session as before; a `--host` server that drops still
//! offers to reconnect, by hand.
//!
//! # Layout
//!
//! - [`input`]: raw bytes to keys, mouse reports, paste and focus events;
//!   [`keys`]: keys, actions and the bindings table; [`config`]: the
//!   config file's `mouse` and `[keys]`;
//! - [`actions`]: what each binding does; [`modal`]: prompts, the
//!   workspace picker, the help; [`copy`]: scroll and copy mode;
//!   [`mouse`]: clicks, drags and the wheel;
//! - [`geometry`]: the split tree on the screen's cells; [`frame`],
//!   [`render`], [`chrome`], [`output`]: drawing;
//! - [`server`], [`view`], [`panes`]: the connections and what they say;
//!   [`alerts`]: the outer terminal's bell and notifications.

mod actions;
mod alerts;
mod chrome;
mod config;
mod copy;
mod edit;
mod frame;
mod geometry;
mod input;
mod keyboard;
mod keys;
mod modal;
mod mouse;
mod output;
mod panes;
mod render;
mod server;
mod view;

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::process::ExitCode;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use signal_hook::consts::SIGWINCH;
use signaltty_protocol::{WireError, method, params};

use crate::client::{ClientError, Endpoint};
use crate::term::{RawTerminal, watch_signals};
use input::{InputParser, Token};
use keys::{Action, Key};
use modal::Mode;
use panes::PaneLink;
use render::PaneCache;
use server::Server;
use view::View;

/// What the threads around the multiplexer tell it.
pub enum Event {
    Stdin(Vec<u8>),
    StdinClosed,
    /// Something the listing shows changed.
    Changed,
    /// The event connection ended: the server is gone.
    ServerGone,
    /// The server upgraded itself in place and the event stream is back;
    /// every other connection to it dropped.
    Upgraded,
    /// A server of another protocol version took over: its refusal.
    Refused(WireError),
    /// A pane's screen changed (see each link's dirty flag).
    PaneDirty,
    /// A pane's connection ended: the pane, and which connection it was
    /// (a zoom and an unzoom in one go drop one and open another).
    PaneClosed(String, u64),
    Bell(String),
    Signal(i32),
    /// A request made in the background finished.
    Done(Result<String, String>),
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    Detached,
    ServerGone,
    Signalled,
    NothingLeft,
    /// The server that took over speaks another protocol version.
    Refused(WireError),
}

/// How long a message stays on the status line.
const MESSAGE_FOR: Duration = Duration::from_secs(4);
/// How long keys typed while a pane reconnects are kept for it: an
/// upgrade's reconnect, not a pane gone for good.
const UNSENT_FOR: Duration = Duration::from_secs(2);
/// The most keys kept for a pane: typing, not a paste's worth.
const UNSENT_BOUND: usize = 64 << 10;

/// Opens the multiplexer on `workspace` (else the one used last, else a
/// new `default` with a shell) until the user detaches.
pub fn run(endpoint: &Endpoint, workspace: Option<&str>) -> Result<ExitCode> {
    let config = config::load()?;
    let mut server = Server::new(endpoint);
    let workspace = server::open_workspace(&mut server, workspace)?;
    let (events, inbox) = mpsc::channel();
    server::follow(endpoint, events.clone())?;
    let terminal = RawTerminal::enter().context("the multiplexer needs a terminal")?;
    let signals = events.clone();
    let _signals = watch_signals(move |signal| {
        let _ = signals.send(Event::Signal(signal));
    })?;
    read_stdin(events.clone())?;
    let keyboard = keyboard::OuterKeyboard::new(terminal.keyboard_undo());
    let mut mux = Mux::new(server, config, workspace, events, terminal.size(), keyboard);
    mux.start();
    let end = mux.run(&inbox);
    mux.stop();
    drop(terminal);
    match end {
        End::Detached => {
            println!("[detached; everything keeps running: `signaltty` to come back]");
            Ok(ExitCode::SUCCESS)
        }
        End::NothingLeft => {
            println!("[no workspaces left]");
            Ok(ExitCode::SUCCESS)
        }
        End::Signalled => Ok(ExitCode::SUCCESS),
        End::ServerGone => {
            match endpoint.host() {
                Some(host) => eprintln!(
                    "signaltty: the connection to {host} dropped; nothing there stopped: \
                     `signaltty --host {host}` to come back"
                ),
                None => eprintln!("signaltty: the server went away; its panes are gone with it"),
            }
            Ok(ExitCode::from(1))
        }
        End::Refused(refusal) => Err(ClientError::Server(refusal).into()),
    }
}

fn read_stdin(events: Sender<Event>) -> Result<()> {
    std::thread::Builder::new()
        .name("mux-stdin".into())
        .spawn(move || {
            let mut stdin = std::io::stdin().lock();
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                match stdin.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        let _ = events.send(Event::StdinClosed);
                        return;
                    }
                    Ok(n) => {
                        if events.send(Event::Stdin(buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                }
            }
        })?;
    Ok(())
}

/// A line on the status line for a while.
struct Message {
    text: String,
    error: bool,
    until: Instant,
}

pub struct Mux {
    server: Server,
    config: config::MuxConfig,
    events: Sender<Event>,
    view: View,
    /// The workspace shown (each client has its own).
    workspace: String,
    /// The pane zoomed to the whole tab area, if any.
    zoomed: Option<String>,
    /// The sidebar as the user set it; `None` follows the width.
    sidebar: Option<bool>,
    mode: Mode,
    links: HashMap<String, PaneLink>,
    caches: HashMap<String, PaneCache>,
    /// Panes that could not be attached since the last listing.
    unreachable: HashSet<String>,
    /// Keys typed for a pane while it had no working connection (an
    /// upgrade closes them all), and since when: sent on its next one if
    /// the pane is back, live, within [`UNSENT_FOR`].
    unsent: HashMap<String, (Instant, Vec<u8>)>,
    /// Panes told they are seen since the last listing.
    seen: HashSet<String>,
    /// Hibernated panes this client asked to wake since the last listing.
    waking: HashSet<String>,
    /// Panes focused before, least recent first.
    recent: Vec<String>,
    size: (u16, u16),
    input: InputParser,
    /// When held-back input becomes what it looks like.
    input_due: Option<Instant>,
    /// The bytes of the prefix as typed, for sending it on.
    prefix_raw: Vec<u8>,
    /// Until when a repeatable binding's key acts again without the
    /// prefix (tmux's `repeat-time`).
    repeat_until: Option<Instant>,
    message: Option<Message>,
    mouse: mouse::MouseState,
    /// The user's terminal has focus.
    focused_outside: bool,
    render: render::RenderState,
    /// The server said something changed: list again.
    changed: bool,
    alerts: alerts::Alerts,
    end: Option<End>,
    /// The user's terminal's keyboard protocol, following the focused pane.
    keyboard: keyboard::OuterKeyboard,
}

impl Mux {
    fn new(
        server: Server,
        config: config::MuxConfig,
        workspace: String,
        events: Sender<Event>,
        size: (u16, u16),
        keyboard: keyboard::OuterKeyboard,
    ) -> Mux {
        Mux {
            keyboard,
            server,
            config,
            events,
            view: View::default(),
            workspace,
            zoomed: None,
            sidebar: None,
            mode: Mode::Normal,
            links: HashMap::new(),
            caches: HashMap::new(),
            unreachable: HashSet::new(),
            unsent: HashMap::new(),
            seen: HashSet::new(),
            waking: HashSet::new(),
            recent: Vec::new(),
            size,
            input: InputParser::default(),
            input_due: None,
            prefix_raw: Vec::new(),
            repeat_until: None,
            message: None,
            mouse: mouse::MouseState::default(),
            focused_outside: true,
            render: render::RenderState::default(),
            changed: false,
            alerts: alerts::Alerts::default(),
            end: None,
        }
    }

    /// Takes over the terminal: the alternate screen, paste, focus events
    /// and (unless turned off) the mouse.
    fn start(&mut self) {
        let mut modes = String::from("\x1b[?1049h\x1b[?2004h\x1b[?1004h");
        if self.config.mouse {
            modes.push_str("\x1b[?1000h\x1b[?1002h\x1b[?1006h");
        }
        self.write(modes.as_bytes());
        self.write(keyboard::QUERY);
        self.refresh();
        self.focus_workspace();
        self.draw();
    }

    fn stop(&mut self) {
        self.links.clear();
        self.write(b"\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1006l\x1b[?1004l\x1b[?2004l");
    }

    fn run(&mut self, inbox: &Receiver<Event>) -> End {
        loop {
            let next = match self.deadline() {
                Some(at) => inbox.recv_timeout(at.saturating_duration_since(Instant::now())),
                None => inbox.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            match next {
                Ok(event) => self.on_event(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return End::ServerGone,
            }
            while let Ok(event) = inbox.try_recv() {
                self.on_event(event);
            }
            if std::mem::take(&mut self.changed) {
                self.refresh();
            }
            self.on_time();
            if let Some(end) = self.end.take() {
                return end;
            }
            self.follow_keyboard();
            self.draw_if_due();
        }
    }

    /// The soonest thing that must happen without an event.
    fn deadline(&self) -> Option<Instant> {
        [
            self.input_due,
            self.render.due,
            self.message.as_ref().map(|m| m.until),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn on_time(&mut self) {
        let now = Instant::now();
        if self.input_due.is_some_and(|at| at <= now) {
            self.input_due = None;
            let mut tokens = Vec::new();
            self.input.flush(&mut tokens);
            self.on_tokens(tokens);
        }
        if self.message.as_ref().is_some_and(|m| m.until <= now) {
            self.message = None;
            self.render.chrome = true;
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Stdin(bytes) => {
                let mut tokens = Vec::new();
                self.input.feed(&bytes, &mut tokens);
                self.input_due = self
                    .input
                    .waiting()
                    .then(|| Instant::now() + input::ESCAPE_WAIT);
                self.on_tokens(tokens);
            }
            Event::StdinClosed => self.end = Some(End::Detached),
            // Listed again once the events that came together are handled.
            Event::Changed => self.changed = true,
            Event::ServerGone => self.on_server_gone(),
            Event::Upgraded => self.on_upgraded(),
            Event::Refused(refusal) => self.end = Some(End::Refused(refusal)),
            Event::PaneDirty => self.render.panes = true,
            Event::PaneClosed(id, serial) => {
                // Attached again after the next listing (a pane replaced
                // by a tombstone is one), never in a tight loop.
                if self
                    .links
                    .get(&id)
                    .is_some_and(|link| link.serial == serial)
                {
                    if let Some(mut link) = self.links.remove(&id) {
                        self.keep_unsent(&id, &link.take_unsent());
                    }
                    self.unreachable.insert(id);
                    self.render.chrome = true;
                }
            }
            Event::Bell(id) => self.program_bell(&id),
            Event::Signal(SIGWINCH) => {
                let size = crate::term::TerminalHandle::stdin().size();
                if size != self.size {
                    self.size = size;
                    self.render.invalidate();
                    self.reconcile();
                }
            }
            Event::Signal(_) => self.end = Some(End::Signalled),
            Event::Done(Ok(done)) => {
                self.say(done);
                self.refresh();
            }
            Event::Done(Err(error)) => self.complain(error),
        }
    }

    /// Keeps the user's terminal sending keys as the focused pane asked.
    fn follow_keyboard(&mut self) {
        let bytes = self.keyboard.follow(&self.focused_key_target());
        if !bytes.is_empty() {
            self.write(&bytes);
        }
    }

    fn on_tokens(&mut self, tokens: Vec<Token>) {
        let mut typed: Vec<u8> = Vec::new();
        let mut target = self.focused_key_target();
        for token in tokens {
            if let Token::Key { raw, .. } | Token::Inert(raw) = &token
                && self.types(&token)
            {
                // The common case, typing: gathered into one write.
                typed.extend_from_slice(&self.keyboard.for_pane(raw, &target));
                continue;
            }
            self.send_focused(&std::mem::take(&mut typed));
            self.on_token(token);
            target = self.focused_key_target();
        }
        self.send_focused(&typed);
    }

    /// Whether `token` is typing into the focused pane.
    fn types(&self, token: &Token) -> bool {
        let typing = matches!(self.mode, Mode::Normal) && !self.focused_is_tombstone();
        match token {
            Token::Key { key, .. } => typing && !self.takes_key(*key),
            Token::Inert(_) => typing,
            _ => false,
        }
    }

    fn focused_key_target(&self) -> signaltty_screen::KeyTarget {
        self.focused_pane()
            .and_then(|id| self.links.get(&id))
            .map(|link| link.shared.key_target())
            .unwrap_or_default()
    }

    fn on_token(&mut self, token: Token) {
        match token {
            Token::Mouse(mouse) => self.on_mouse(mouse),
            Token::PasteStart | Token::Paste(_) | Token::PasteEnd => self.on_paste(token),
            Token::Focus(focused) => {
                self.focused_outside = focused;
                let bytes: &[u8] = if focused { b"\x1b[I" } else { b"\x1b[O" };
                if let Some(id) = self.focused_pane()
                    && self.modes_of(&id).focus_events
                {
                    self.send_to(&id, bytes);
                }
            }
            Token::Key { key, raw } => self.on_key(key, raw),
            // A key let go outside of typing acts on nothing.
            Token::Inert(_) => {}
            Token::KeyboardFlags(_) => self.keyboard.speaks_kitty(),
            Token::DeviceAttributes => self.keyboard.answered_attributes(),
        }
    }

    /// Whether the multiplexer acts on `key` typed in normal mode rather
    /// than sending it to the pane: the prefix, a `[keys.root]` binding,
    /// or a repeatable binding within its repeat time.
    fn takes_key(&self, key: Key) -> bool {
        key == self.config.bindings.prefix
            || self.config.bindings.root(key).is_some()
            || self.repeat_action(key).is_some()
    }

    fn repeat_action(&self, key: Key) -> Option<Action> {
        self.repeat_until.filter(|until| Instant::now() < *until)?;
        let action = self.config.bindings.action(key)?;
        (matches!(self.mode, Mode::Normal) && action.repeats()).then_some(action)
    }

    /// Acts after the prefix; a repeatable action opens the repeat time.
    fn act_after_prefix(&mut self, action: Action) {
        self.act(action);
        self.repeat_until = action.repeats().then(|| Instant::now() + keys::REPEAT_TIME);
    }

    fn on_key(&mut self, key: Key, raw: Vec<u8>) {
        if let Mode::Lost { .. } = self.mode {
            // Nothing reaches a pane until the connection is back.
            return self.modal_key(key);
        }
        if let Some(action) = self.repeat_action(key) {
            return self.act_after_prefix(action);
        }
        self.repeat_until = None;
        if matches!(self.mode, Mode::Normal)
            && let Some(action) = self.config.bindings.root(key)
        {
            return self.act(action);
        }
        if key == self.config.bindings.prefix && !matches!(self.mode, Mode::Prefix) {
            if let Mode::Prompt(_) = self.mode {
                // A prompt takes every key, the prefix's too.
                self.modal_key(key);
                return;
            }
            self.prefix_raw = raw;
            self.mode = Mode::Prefix;
            self.render.chrome = true;
            return;
        }
        match std::mem::replace(&mut self.mode, Mode::Normal) {
            Mode::Prefix => {
                self.render.chrome = true;
                match self.config.bindings.action(key) {
                    Some(action) => self.act_after_prefix(action),
                    None => self.say(format!(
                        "{} {key} does nothing; {} lists the keys",
                        self.config.bindings.prefix,
                        self.hint(Action::Help)
                    )),
                }
            }
            Mode::Normal => {
                // Only a pane with no process gets here (see `on_tokens`).
                if key == Key::Char('r') {
                    self.act(Action::Revive);
                }
            }
            other => {
                self.mode = other;
                self.modal_key(key);
            }
        }
    }

    fn on_paste(&mut self, token: Token) {
        match (&mut self.mode, token) {
            (Mode::Prompt(prompt), Token::Paste(text)) => {
                prompt.edit.paste(&String::from_utf8_lossy(&text));
                self.render.chrome = true;
            }
            (Mode::Normal | Mode::Prefix, token) => {
                let Some(id) = self.focused_pane() else {
                    return;
                };
                let bracketed = self.modes_of(&id).bracketed_paste;
                match token {
                    Token::PasteStart if bracketed => self.send_to(&id, b"\x1b[200~"),
                    Token::PasteEnd if bracketed => self.send_to(&id, b"\x1b[201~"),
                    Token::Paste(text) => self.send_to(&id, &text),
                    _ => {}
                }
            }
            // Copy mode, the picker and the help take no paste.
            _ => {}
        }
    }

    /// Lists everything again and follows what changed.
    fn refresh(&mut self) {
        let before = match self.server.view() {
            Ok(view) => {
                self.seen.clear();
                self.waking.clear();
                self.unreachable.clear();
                std::mem::replace(&mut self.view, view)
            }
            Err(e) => return self.complain(e),
        };
        if self.view.workspace(&self.workspace).is_none() {
            match self.view.last_used() {
                Some(ws) => self.workspace = ws.id.clone(),
                None => {
                    self.end = Some(End::NothingLeft);
                    return;
                }
            }
        }
        self.alert_changes(&before);
        self.render.chrome = true;
        self.reconcile();
        if let Some(id) = self.focused_pane() {
            self.wake_if_asleep(&id);
        }
        // Output in a pane on screen was seen: no "unread" for it (it can
        // come from the moment before this client attached).
        let unread: Vec<String> = self
            .links
            .keys()
            .filter(|id| {
                self.view
                    .find_pane(id)
                    .is_some_and(|(_, _, p)| p.attention == signaltty_protocol::Attention::Unread)
            })
            .cloned()
            .collect();
        for id in unread {
            self.mark_seen(&id);
        }
    }

    /// Attaches to the panes now visible, lets go of the others, and gives
    /// each its size.
    fn reconcile(&mut self) {
        let layout = self.screen_layout();
        let visible: HashMap<String, (u16, u16)> = layout
            .geometry
            .panes
            .iter()
            .map(|p| {
                let content = p.content();
                (p.id.clone(), (content.h.max(2), content.w.max(2)))
            })
            .collect();
        // Keys typed into a link that broke go to the pane's next one.
        let broken: Vec<String> = (self.links.iter())
            .filter(|(_, link)| link.broken)
            .map(|(id, _)| id.clone())
            .collect();
        for id in broken {
            if let Some(mut link) = self.links.remove(&id) {
                self.keep_unsent(&id, &link.take_unsent());
            }
        }
        self.links.retain(|id, _| visible.contains_key(id));
        self.unsent.retain(|id, _| visible.contains_key(id));
        self.caches.retain(|id, _| visible.contains_key(id));
        for (id, size) in visible {
            match self.links.get_mut(&id) {
                Some(link) => link.resize(size),
                None if !self.unreachable.contains(&id) => {
                    match PaneLink::open(self.server.endpoint(), &id, size, self.events.clone()) {
                        Ok(mut link) => {
                            if let Some((since, keys)) = self.unsent.remove(&id)
                                && since.elapsed() < UNSENT_FOR
                                && link.shared.status().live()
                            {
                                link.input(&keys);
                            }
                            self.links.insert(id, link);
                        }
                        Err(e) => {
                            self.unreachable.insert(id.clone());
                            self.complain(format!("could not show pane {id}: {e:#}"));
                        }
                    }
                }
                None => {}
            }
        }
        self.render.chrome = true;
        self.render.panes = true;
    }

    /// The focused pane of the shown tab.
    fn focused_pane(&self) -> Option<String> {
        let ws = self.view.workspace(&self.workspace)?;
        let tab = self.view.active_tab(ws)?;
        view::active_pane(tab).map(|p| p.id.clone())
    }

    fn focused_is_tombstone(&self) -> bool {
        self.focused_pane()
            .and_then(|id| self.links.get(&id))
            .is_some_and(|link| !link.shared.status().live())
    }

    fn modes_of(&self, id: &str) -> signaltty_screen::Modes {
        self.links
            .get(id)
            .map(|link| link.shared.screen().modes())
            .unwrap_or_default()
    }

    /// Typing into the focused pane; it counts as seeing it.
    fn send_focused(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if let Some(id) = self.focused_pane() {
            self.send_to(&id, bytes);
            self.mark_seen(&id);
        }
    }

    fn send_to(&mut self, id: &str, bytes: &[u8]) {
        match self.links.get_mut(id) {
            Some(link) => link.input(bytes),
            None => self.keep_unsent(id, bytes),
        }
    }

    /// Keeps keys `id` could not be sent now for its next connection.
    fn keep_unsent(&mut self, id: &str, keys: &[u8]) {
        if keys.is_empty() {
            return;
        }
        let (_, kept) = (self.unsent)
            .entry(id.to_string())
            .or_insert_with(|| (Instant::now(), Vec::new()));
        if kept.len() + keys.len() <= UNSENT_BOUND {
            kept.extend_from_slice(keys);
        }
    }

    /// Tells the server the user has seen a pane that wants attention.
    fn mark_seen(&mut self, id: &str) {
        let wants = self
            .view
            .find_pane(id)
            .is_some_and(|(_, _, p)| p.attention != signaltty_protocol::Attention::None);
        if wants && self.seen.insert(id.to_string()) {
            let _ = self.server.request::<method::PaneSeen>(params::Pane {
                pane: id.to_string().into(),
            });
        }
    }

    /// Marks the shown workspace as the one used last.
    fn focus_workspace(&mut self) {
        let target = self.workspace.clone();
        self.request_focus(target, params::TargetKind::Workspace);
    }

    fn request_focus(&mut self, target: String, kind: params::TargetKind) {
        if let Err(e) = self.server.request::<method::Focus>(params::Focus {
            target: target.into(),
            kind: Some(kind),
        }) {
            self.complain(e);
        }
    }

    fn hint(&self, action: Action) -> String {
        self.config
            .bindings
            .hint(action)
            .unwrap_or_else(|| action.name())
    }

    /// The event connection ended. A local server is gone; a remote one
    /// may well run on, behind a dropped ssh: offer to reconnect.
    fn on_server_gone(&mut self) {
        match self.server.endpoint().host() {
            Some(host) => {
                self.mode = Mode::Lost {
                    host: host.to_string(),
                };
                self.links.clear();
                self.render.invalidate();
            }
            None => self.end = Some(End::ServerGone),
        }
    }

    /// The server upgraded itself (see [`Event::Upgraded`]): the requests'
    /// connection and every pane's are opened again, and everything is
    /// drawn anew from the panes' fresh snapshots.
    fn on_upgraded(&mut self) {
        self.server.disconnect();
        // Every pane's connection closed at the exec: each is attached
        // anew (and sent what was typed into the old one meanwhile).
        for link in self.links.values_mut() {
            link.broken = true;
        }
        self.unreachable.clear();
        self.render.invalidate();
        self.refresh();
        self.say("the server was upgraded; everything is back");
    }

    /// Opens the connections to the `--host` server again: events first
    /// (which fails fast when ssh cannot connect), then the listing, which
    /// attaches the visible panes again.
    pub(super) fn reconnect(&mut self, host: String) {
        self.say(format!("reconnecting to {host}…"));
        self.draw();
        self.server.disconnect();
        match server::follow(self.server.endpoint(), self.events.clone()) {
            Ok(()) => {
                self.refresh();
                self.say(format!("reconnected to {host}"));
            }
            Err(e) => {
                self.mode = Mode::Lost { host };
                self.complain(format!("could not reconnect: {e:#}"));
            }
        }
        self.render.invalidate();
    }

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
            until: Instant::now() + MESSAGE_FOR,
        });
        self.render.chrome = true;
    }

    fn complain(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into().replace('\n', " "),
            error: true,
            until: Instant::now() + MESSAGE_FOR,
        });
        self.render.chrome = true;
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(bytes);
        let _ = out.flush();
    }
}
