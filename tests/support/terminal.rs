//! A terminal for end-to-end tests: a PTY the test owns, a program running
//! in it, and a VT emulator (signaltty-screen) fed with everything the
//! program prints, so the test can read what a person would see.

use std::io::{Read, Write};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};
use signaltty_screen::{NotifySource, Screen, ScreenEvent, Size, Style};

use super::wait_for;

/// How many bells and notifications a terminal keeps.
const MAX_ALERTS: usize = 1000;
/// How much of what the program wrote a terminal keeps as bytes (all of it
/// is counted).
const MAX_RECEIVED: usize = 8 << 20;

type Writer = Arc<Mutex<Box<dyn Write + Send>>>;

/// The bytes the program wrote to the terminal: how many, and the first
/// [`MAX_RECEIVED`] of them, to tell exact output from repaints.
#[derive(Default)]
struct Received {
    count: usize,
    kept: Vec<u8>,
}

pub struct Terminal {
    master: Box<dyn MasterPty + Send>,
    writer: Writer,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    screen: Arc<Mutex<Screen>>,
    /// The bells and notifications the program sent the terminal, in order
    /// (the first [`MAX_ALERTS`]).
    alerts: Arc<Mutex<Vec<ScreenEvent>>>,
    received: Arc<Mutex<Received>>,
    /// While set, the terminal stops reading: the program's writes block.
    pub paused: Arc<AtomicBool>,
    /// Set once the reader has read all the program wrote (the PTY closed).
    drained: Arc<AtomicBool>,
}

impl Terminal {
    /// Runs `command` (its program, args and env) in a fresh PTY.
    pub fn run(command: &Command, rows: u16, cols: u16) -> Terminal {
        Terminal::start(command, rows, cols, false)
    }

    /// As [`Terminal::run`], but the terminal answers the program's
    /// queries as its emulator does (cursor position, device attributes,
    /// and the kitty keyboard protocol's `CSI ? u`: a terminal that speaks
    /// it).
    pub fn answering(command: &Command, rows: u16, cols: u16) -> Terminal {
        Terminal::start(command, rows, cols, true)
    }

    fn start(command: &Command, rows: u16, cols: u16, answers: bool) -> Terminal {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("pty");
        let mut builder = CommandBuilder::new(command.get_program());
        builder.args(command.get_args());
        for (key, value) in command.get_envs() {
            match value {
                Some(value) => builder.env(key, value),
                None => builder.env_remove(key),
            }
        }
        builder.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(builder).expect("spawn in pty");
        drop(pair.slave);
        let screen = Arc::new(Mutex::new(Screen::new(Size { rows, cols }, 1000)));
        let paused = Arc::new(AtomicBool::new(false));
        let drained = Arc::new(AtomicBool::new(false));
        let read_all = drained.clone();
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let writer: Writer = Arc::new(Mutex::new(pair.master.take_writer().expect("writer")));
        let alerts = Arc::new(Mutex::new(Vec::new()));
        let (feed, pause, answer) = (screen.clone(), paused.clone(), writer.clone());
        let heard = alerts.clone();
        let received = Arc::new(Mutex::new(Received::default()));
        let record = received.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 16384];
            let mut events = Vec::new();
            loop {
                while pause.load(Ordering::SeqCst) {
                    std::thread::sleep(Duration::from_millis(10));
                }
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => {
                        read_all.store(true, Ordering::SeqCst);
                        return;
                    }
                    Ok(n) => {
                        if let Ok(mut record) = record.lock() {
                            record.count += n;
                            let room = MAX_RECEIVED.saturating_sub(record.kept.len());
                            record.kept.extend_from_slice(&buf[..n.min(room)]);
                        }
                        if let Ok(mut screen) = feed.lock() {
                            screen.feed(&buf[..n], &mut events);
                        }
                        for event in events.drain(..) {
                            match event {
                                ScreenEvent::Reply(bytes) if answers => {
                                    if let Ok(mut writer) = answer.lock() {
                                        let _ = writer.write_all(&bytes);
                                        let _ = writer.flush();
                                    }
                                }
                                ScreenEvent::Bell | ScreenEvent::Notify { .. } => {
                                    if let Ok(mut heard) = heard.lock()
                                        && heard.len() < MAX_ALERTS
                                    {
                                        heard.push(event);
                                    }
                                }
                                _ => {}
                            }
                        }
                    }
                }
            }
        });
        Terminal {
            master: pair.master,
            writer,
            child,
            screen,
            alerts,
            received,
            paused,
            drained,
        }
    }

    /// How many times the program rang the terminal's bell.
    pub fn bells(&self) -> usize {
        self.alerts
            .lock()
            .map(|a| a.iter().filter(|e| **e == ScreenEvent::Bell).count())
            .unwrap_or_default()
    }

    /// The notifications (OSC 9, OSC 777, OSC 99) the program sent: which,
    /// the title and the body.
    pub fn notifications(&self) -> Vec<(NotifySource, String, String)> {
        self.alerts
            .lock()
            .map(|a| {
                a.iter()
                    .filter_map(|e| match e {
                        ScreenEvent::Notify {
                            source,
                            title,
                            body,
                        } => Some((*source, title.clone(), body.clone())),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// How many bytes the program wrote to the terminal so far.
    pub fn received_count(&self) -> usize {
        self.received.lock().map(|r| r.count).unwrap_or_default()
    }

    /// The first 8 MiB the program wrote to the terminal, as written.
    pub fn received(&self) -> Vec<u8> {
        self.received
            .lock()
            .map(|r| r.kept.clone())
            .unwrap_or_default()
    }

    /// The modes the program turned on (mouse reporting, paste…).
    pub fn modes(&self) -> signaltty_screen::Modes {
        self.screen.lock().map(|s| s.modes()).unwrap_or_default()
    }

    /// Feeds the emulator as if the program had written `bytes`, to look
    /// at state the program left behind (the alternate screen it left).
    pub fn feed_screen(&self, bytes: &[u8]) {
        if let Ok(mut screen) = self.screen.lock() {
            screen.feed(bytes, &mut Vec::new());
        }
    }

    /// The visible screen, trailing blanks trimmed.
    pub fn text(&self) -> String {
        self.screen
            .lock()
            .map(|s| s.screen_text(Style::Plain))
            .unwrap_or_default()
    }

    /// The visible screen with its colours as SGR sequences.
    pub fn text_ansi(&self) -> String {
        self.screen
            .lock()
            .map(|s| s.screen_text(Style::Ansi))
            .unwrap_or_default()
    }

    /// Waits until the screen passes `check`; on a timeout the panic shows
    /// the screen as it was.
    pub fn wait_text(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        loop {
            let text = self.text();
            if check(&text) {
                return text;
            }
            if std::time::Instant::now() > deadline {
                panic!("timed out after 15s waiting for {what}; the screen:\n{text}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    pub fn type_bytes(&mut self, bytes: &[u8]) {
        let mut writer = self.writer.lock().expect("the terminal's writer");
        writer.write_all(bytes).expect("type");
        writer.flush().expect("flush");
    }

    pub fn resize(&self, rows: u16, cols: u16) {
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("resize");
        if let Ok(mut screen) = self.screen.lock() {
            screen.resize(Size { rows, cols });
        }
    }

    /// The program's process id.
    pub fn pid(&self) -> u32 {
        self.child.process_id().expect("the program's pid")
    }

    /// Waits for the program to end; returns its exit code.
    /// Waits for the program to end and for the terminal to have read and
    /// drawn everything it wrote before it did.
    pub fn wait_exit(&mut self) -> u32 {
        let status = wait_for(
            "the program in the terminal to end",
            Duration::from_secs(15),
            || self.child.try_wait().ok().flatten(),
        );
        wait_for(
            "the terminal to read the program's last output",
            Duration::from_secs(15),
            || self.drained.load(Ordering::SeqCst).then_some(()),
        );
        status.exit_code()
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
