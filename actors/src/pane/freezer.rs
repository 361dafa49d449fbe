//! A pane's screen, frozen while nobody needs it.
//!
//! A live screen keeps the emulator: its grids, whose rows keep room for
//! as many 24-byte cells as they last held (after a flood of wide lines
//! up to 234 KiB at 200x50, twice that on the alternate screen; an idle
//! shell's ~11 KiB), its parser and the state around them; and most panes
//! of a server with hundreds sit quiet in a tab nobody shows. Once no
//! client watches a pane and nothing has needed its live screen for
//! [`FREEZE_AFTER`], the screen is frozen
//! ([`FrozenScreen`]: its replay bytes, history and parser state, a few
//! KiB); the first thing that needs it live (output, a read, a resize, an awareness look, `explain`,
//! a wait on text, a tail to render) thaws it. What only needs the
//! picture (an attach, a client's catch-up) or the title or size is
//! served by the frozen screen as it is: its replay is exactly what the
//! live screen gave when it froze, and nothing has changed it since.
//!
//! The output ring lets go of its bytes too (it holds any only while a
//! client is attached or a revival may read them back, up to 1 MiB):
//! they are only there for attached clients that fall behind, and one
//! attaching later starts from the end.
//!
//! Every use of the screen goes through [`PaneScreen`], so nothing can
//! read a frozen screen by mistake; the screen schedules its own checks
//! ([`PaneScreen::freeze_check`]), told only whether a client watches.
//!
//! Freeing is not enough for the server's RSS to fall: what a screen frees
//! in small blocks (its grid's rows, a flood's chunks on their way) stays
//! with the allocator's arenas. So once screens have frozen, or a live
//! screen let go of much, the server gives its free pages back to the
//! system ([`trim_soon`]; large blocks, such as the 1 MiB ones a flood's
//! rows are copied into, go back as they are freed: see
//! [`crate::allocator`]).

use std::time::{Duration, Instant};

use signaltty_screen::{FrozenScreen, Screen, ScreenEvent, Size, Style};
use tracing::debug;

use super::mailbox::Mailbox;
use crate::allocator::trim_soon;

/// How long a pane's live screen must go unneeded, with no client
/// watching, before it is frozen: long enough that a pane printing now and
/// then, or a client reading it every few seconds, does not freeze and
/// thaw all the time; short enough that a server's quiet panes cost little
/// soon after their output stops.
pub(super) const FREEZE_AFTER: Duration = Duration::from_secs(5);

/// How much a live screen's heap must have shrunk from its peak for the
/// freed memory to be worth giving back: a flood's copied rows take a MiB
/// block at least, an echo nothing.
const FREED_ENOUGH: usize = 64 * 1024;

/// Whether a screen now holding `held` bytes has let go of enough since
/// its `peak` (which this keeps) to give memory back.
fn freed_enough(peak: &mut usize, held: usize) -> bool {
    let freed = held + FREED_ENOUGH <= *peak;
    *peak = if freed { held } else { held.max(*peak) };
    freed
}

/// What a freeze check decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Check {
    Freeze,
    /// Look again after this long.
    Again(Duration),
    /// Frozen already; thawing schedules the next check.
    Done,
}

/// The freeze policy: a screen nobody watches and nothing has needed for
/// [`FREEZE_AFTER`] is frozen.
pub(super) fn check(frozen: bool, watched: bool, unneeded_for: Duration) -> Check {
    if frozen {
        Check::Done
    } else if watched {
        Check::Again(FREEZE_AFTER)
    } else if unneeded_for >= FREEZE_AFTER {
        Check::Freeze
    } else {
        Check::Again(FREEZE_AFTER - unneeded_for)
    }
}

/// A pane's screen, live or frozen.
pub(super) struct PaneScreen {
    /// The screen while live; a blank stand-in of the smallest size
    /// (a few hundred bytes) while frozen, never read then.
    live: Screen,
    frozen: Option<FrozenScreen>,
    /// When something last needed the live screen.
    needed_at: Instant,
    /// The screen changed since its tail was last rendered.
    tail_stale: bool,
    /// A freeze check is scheduled.
    check_due: bool,
    /// The most heap the live screen has held since memory was last given
    /// back (see [`PaneScreen::feed`]).
    peak_bytes: usize,
}

/// The smallest screen there is, standing in for a frozen one.
fn stand_in() -> Screen {
    Screen::new(Size { rows: 1, cols: 2 }, 0)
}

impl PaneScreen {
    pub(super) fn new(size: Size, scrollback_lines: usize) -> PaneScreen {
        PaneScreen {
            live: Screen::new(size, scrollback_lines),
            frozen: None,
            needed_at: Instant::now(),
            tail_stale: true,
            check_due: false,
            peak_bytes: 0,
        }
    }

    /// A screen that starts frozen (handed over by the previous server).
    pub(super) fn thawing_later(frozen: FrozenScreen) -> PaneScreen {
        PaneScreen {
            frozen: Some(frozen),
            live: stand_in(),
            ..PaneScreen::new(Size { rows: 1, cols: 2 }, 0)
        }
    }

    /// The screen frozen (it thaws again when next needed).
    pub(super) fn frozen(&mut self) -> &FrozenScreen {
        // While frozen, `live` is only a stand-in.
        let live = std::mem::replace(&mut self.live, stand_in());
        self.frozen.get_or_insert_with(|| live.freeze())
    }

    pub(super) fn is_frozen(&self) -> bool {
        self.frozen.is_some()
    }

    /// Keeps only the frozen form of the screen until it is needed again.
    pub(super) fn freeze(&mut self) {
        if self.frozen.is_none() {
            let screen = std::mem::replace(&mut self.live, stand_in());
            self.frozen = Some(screen.freeze());
        }
    }

    /// The live screen, thawed if it was frozen.
    fn live(&mut self) -> &mut Screen {
        self.needed_at = Instant::now();
        if let Some(frozen) = self.frozen.take() {
            self.live = frozen.thaw();
            debug!("screen thawed");
        }
        &mut self.live
    }

    /// The live screen, about to be changed.
    fn changing(&mut self) -> &mut Screen {
        self.tail_stale = true;
        self.live()
    }

    /// What repaints the screen on an attaching client.
    pub(super) fn replay(&self) -> Vec<u8> {
        match &self.frozen {
            Some(frozen) => frozen.replay().to_vec(),
            None => self.live.replay(),
        }
    }

    pub(super) fn title(&self) -> &str {
        match &self.frozen {
            Some(frozen) => frozen.title(),
            None => self.live.title(),
        }
    }

    pub(super) fn size(&self) -> Size {
        match &self.frozen {
            Some(frozen) => frozen.size(),
            None => self.live.size(),
        }
    }

    /// Feeds output to the live screen.
    pub(super) fn feed(&mut self, bytes: &[u8], events: &mut Vec<ScreenEvent>) {
        self.changing().feed(bytes, events);
        self.give_back_if_freed();
    }

    /// When the live screen let go of much (the rows a flood scrolled, once
    /// its tail is rendered; the alternate screen left), the server gives
    /// the freed memory back soon ([`trim_soon`]) rather than only once the
    /// screen freezes.
    fn give_back_if_freed(&mut self) {
        if freed_enough(&mut self.peak_bytes, self.live.heap_bytes()) {
            trim_soon();
        }
    }

    pub(super) fn resize(&mut self, size: Size) {
        self.changing().resize(size);
    }

    pub(super) fn load_history(&mut self, tail: &str) {
        self.changing().load_history(tail);
    }

    pub(super) fn fresh_lines(&mut self) -> u64 {
        self.live().fresh_lines()
    }

    pub(super) fn screen_text(&mut self, style: Style) -> String {
        self.live().screen_text(style)
    }

    pub(super) fn tail_text(&mut self, lines: usize, style: Style) -> String {
        self.live().tail_text(lines, style)
    }

    /// What `read` asked for, with the offset an incremental read goes on
    /// from.
    pub(super) fn read(&mut self, what: ReadWhat, style: Style) -> ReadOut {
        let screen = self.live();
        let (text, offset, missed) = match what {
            ReadWhat::Screen => (screen.screen_text(style), screen.transcript_offset(), 0),
            ReadWhat::Tail(lines) => (
                screen.tail_text(lines, style),
                screen.transcript_offset(),
                0,
            ),
            ReadWhat::Scrollback(above) => {
                // Both leave the screen's empty bottom rows out.
                let shown = screen.screen_text(style).lines().count();
                let text = screen.tail_text(shown.saturating_add(above), style);
                (text, screen.transcript_offset(), 0)
            }
            ReadWhat::Since(from) => {
                let since = screen.rows_since(from, style);
                (since.text, since.offset, since.missed)
            }
        };
        ReadOut {
            text,
            offset,
            missed,
        }
    }

    /// The modes the program set, which decide how input is encoded.
    pub(super) fn modes(&mut self) -> signaltty_screen::Modes {
        self.live().modes()
    }

    /// The tail to persist. The pane renders it every
    /// [`TAIL_DEBOUNCE`](super::TAIL_DEBOUNCE) while output flows, which is
    /// also when the rows that scrolled into the history are rendered (the
    /// screen keeps no time to tell when output paused).
    pub(super) fn history_for_tail(&mut self, max_bytes: usize) -> String {
        self.tail_stale = false;
        let tail = self.live().history_for_tail(max_bytes);
        self.give_back_if_freed();
        tail
    }

    /// Frozen, and its tail was rendered since it last changed: the tail
    /// last published is the one it would render now.
    pub(super) fn frozen_with_tail_published(&self) -> bool {
        self.is_frozen() && !self.tail_stale
    }
}

/// Lines of scrollback the screen keeps, as tmux does by default: the
/// persisted tail needs far fewer, and a longer history costs every pane
/// memory and every flood parse time (a cold grid is a slow grid).
pub const SCROLLBACK_LINES: usize = 2_000;

/// What `read` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadWhat {
    Screen,
    /// The last N lines of scrollback and screen.
    Tail(usize),
    /// The screen and N lines of scrollback above it.
    Scrollback(usize),
    /// The rows completed since an offset (see `Screen::rows_since`).
    Since(u64),
}

/// What `read` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOut {
    pub text: String,
    /// Where an incremental read ([`ReadWhat::Since`]) continues.
    pub offset: u64,
    /// Rows since the offset asked for that the history no longer holds.
    pub missed: u64,
}

/// Time to see whether the screen can be frozen.
pub(super) struct FreezeCheck;

impl PaneScreen {
    /// After each message: a live screen gets a freeze check scheduled,
    /// one at a time.
    pub(super) fn schedule_check(&mut self, checks: &Mailbox<'_, FreezeCheck>) {
        if !self.is_frozen() && !self.check_due {
            self.check_due = true;
            checks.after(FREEZE_AFTER, FreezeCheck);
        }
    }

    /// Freezes the screen if nobody `watched` it and nothing needed it
    /// for [`FREEZE_AFTER`], else looks again once that may be so; true
    /// when it froze now.
    pub(super) fn freeze_check(
        &mut self,
        checks: &Mailbox<'_, FreezeCheck>,
        watched: bool,
    ) -> bool {
        self.check_due = false;
        match check(self.is_frozen(), watched, self.needed_at.elapsed()) {
            Check::Freeze => {
                self.freeze();
                debug!("screen frozen");
                trim_soon();
                true
            }
            Check::Again(after) => {
                self.check_due = true;
                checks.after(after, FreezeCheck);
                false
            }
            Check::Done => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn a_screen_nobody_watches_or_needs_freezes_after_the_delay() {
        assert_eq!(check(false, false, FREEZE_AFTER), Check::Freeze);
        assert_eq!(check(false, false, FREEZE_AFTER * 10), Check::Freeze);
    }

    #[test]
    fn a_screen_needed_lately_is_looked_at_again_when_the_delay_is_up() {
        assert_eq!(
            check(false, false, SECOND),
            Check::Again(FREEZE_AFTER - SECOND)
        );
        assert_eq!(
            check(false, false, Duration::ZERO),
            Check::Again(FREEZE_AFTER)
        );
    }

    #[test]
    fn a_watched_screen_stays_live() {
        assert_eq!(
            check(false, true, FREEZE_AFTER * 10),
            Check::Again(FREEZE_AFTER)
        );
    }

    #[test]
    fn a_frozen_screen_needs_no_more_checks() {
        assert_eq!(check(true, false, FREEZE_AFTER), Check::Done);
        assert_eq!(check(true, true, Duration::ZERO), Check::Done);
    }

    /// A screen with colours, history, a title, the alternate screen left
    /// again, and output cut inside an escape sequence.
    fn busy_screen() -> PaneScreen {
        let mut screen = PaneScreen::new(Size { rows: 6, cols: 20 }, 100);
        let mut events = Vec::new();
        let mut output = String::from("\x1b]2;building\x07");
        for i in 0..40 {
            output.push_str(&format!("\x1b[3{}mline {i}\x1b[0m\r\n", i % 8));
        }
        output.push_str("\x1b[?1049hfull screen\x1b[?1049l$ \x1b[1;3");
        screen.feed(output.as_bytes(), &mut events);
        screen
    }

    /// Everything a pane reads from its screen.
    fn observed(screen: &mut PaneScreen) -> Vec<String> {
        vec![
            String::from_utf8_lossy(&screen.replay()).into_owned(),
            screen.title().to_string(),
            format!("{:?}", screen.size()),
            screen.screen_text(Style::Ansi),
            screen.tail_text(30, Style::Ansi),
            screen.history_for_tail(4096),
            screen.fresh_lines().to_string(),
        ]
    }

    #[test]
    fn a_thawed_screen_reads_and_parses_as_if_it_never_froze() {
        let mut frozen = busy_screen();
        frozen.freeze();
        assert!(frozen.is_frozen());
        let mut live = busy_screen();
        assert_eq!(observed(&mut frozen), observed(&mut live));
        assert!(!frozen.is_frozen(), "reading thaws");
        // The cut escape sequence (bold) finishes the same way.
        frozen.freeze();
        let mut events = Vec::new();
        frozen.feed(b"mbold\r\nnext\r\n", &mut events);
        live.feed(b"mbold\r\nnext\r\n", &mut events);
        assert_eq!(observed(&mut frozen), observed(&mut live));
    }

    #[test]
    fn the_picture_title_and_size_are_served_without_thawing() {
        let mut screen = busy_screen();
        let replay = screen.replay();
        screen.freeze();
        assert_eq!(screen.replay(), replay);
        assert_eq!(screen.title(), "building");
        assert_eq!(screen.size(), Size { rows: 6, cols: 20 });
        assert!(screen.is_frozen());
    }

    #[test]
    fn the_tail_counts_as_published_only_if_nothing_changed_since() {
        let mut screen = busy_screen();
        screen.freeze();
        assert!(!screen.frozen_with_tail_published(), "never rendered");
        screen.history_for_tail(4096);
        screen.freeze();
        assert!(screen.frozen_with_tail_published());
        screen.resize(Size { rows: 8, cols: 30 });
        screen.freeze();
        assert!(!screen.frozen_with_tail_published(), "resized since");
        screen.history_for_tail(4096);
        screen.screen_text(Style::Plain);
        screen.freeze();
        assert!(
            screen.frozen_with_tail_published(),
            "a read changes nothing"
        );
    }

    #[test]
    fn a_flood_whose_history_is_rendered_gives_memory_back() {
        let mut screen = Screen::new(Size { rows: 24, cols: 80 }, 2000);
        let mut peak = screen.heap_bytes();
        assert!(!freed_enough(&mut peak, screen.heap_bytes()));
        let flood: String = (0..5000)
            .map(|n| format!("\x1b[32mINFO\x1b[0m line {n} of a coloured log\r\n"))
            .collect();
        screen.feed(flood.as_bytes(), &mut Vec::new());
        assert!(!freed_enough(&mut peak, screen.heap_bytes()), "growing");
        screen.feed(b"$ ", &mut Vec::new());
        assert!(!freed_enough(&mut peak, screen.heap_bytes()), "not settled");
        // What rendering the tail does.
        screen.settle();
        assert!(freed_enough(&mut peak, screen.heap_bytes()), "settled");
        screen.feed(b"ls\r\n", &mut Vec::new());
        assert!(!freed_enough(&mut peak, screen.heap_bytes()), "an echo");
    }

    #[test]
    fn needing_the_screen_restarts_the_delay() {
        let mut screen = busy_screen();
        let long_ago = Instant::now() - FREEZE_AFTER * 2;
        screen.needed_at = long_ago;
        // The picture, title and size are not a need.
        screen.replay();
        screen.title();
        screen.size();
        assert_eq!(screen.needed_at, long_ago);
        screen.screen_text(Style::Plain);
        assert!(screen.needed_at.elapsed() < FREEZE_AFTER);
    }
}
