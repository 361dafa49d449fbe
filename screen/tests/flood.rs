//! Hostile output must not grow memory. Alone in its binary because it
//! counts every allocation of the process.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use signaltty_screen::{Screen, ScreenEvent, Size, Style};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator and only keeps a byte count.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

#[test]
fn unterminated_osc_flood_is_bounded_and_parsing_recovers() {
    let mut screen = Screen::new(Size { rows: 10, cols: 40 }, 100);
    let mut events: Vec<ScreenEvent> = Vec::new();
    screen.feed(b"before\r\n", &mut events);
    let chunk = vec![b'A'; 4096];
    for kind in [
        &b"\x1b]0;"[..],
        b"\x1b]9;",
        b"\x1b]777;notify;",
        b"\x1b]52;c;",
    ] {
        screen.feed(kind, &mut events);
        // Warm up, then measure: the first chunks may size buffers up to
        // their caps.
        for _ in 0..16 {
            screen.feed(&chunk, &mut events);
        }
        let before = LIVE.load(Ordering::Relaxed);
        for _ in 0..256 {
            screen.feed(&chunk, &mut events); // 1 MiB in total
        }
        let grown = LIVE.load(Ordering::Relaxed).saturating_sub(before);
        assert!(
            grown < 64 * 1024,
            "memory grew by {grown} bytes during a 1 MiB OSC"
        );
        // The terminating BEL ends the (dropped) OSC and does not ring.
        screen.feed(b"\x07after\r\n", &mut events);
    }
    assert!(events.is_empty(), "{events:?}");
    assert_eq!(screen.title(), "");
    assert_eq!(
        screen.screen_text(Style::Plain),
        "before\nafter\nafter\nafter\nafter"
    );
    screen.feed(b"\x1b]2;ok\x07\x07", &mut events);
    assert_eq!(events, [ScreenEvent::Title("ok".into()), ScreenEvent::Bell]);
}
