//! The allocator keeps large blocks mapped on their own once one was
//! freed. A test binary of its own: nothing else in the process may map or
//! free a large block while it counts.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::hint::black_box;

/// Bytes in blocks the allocator mapped on their own.
fn mapped_bytes() -> usize {
    // SAFETY: mallinfo2 only reads the allocator's counters.
    unsafe { libc::mallinfo2() }.hblkhd
}

#[test]
fn a_freed_large_block_does_not_send_the_next_ones_into_the_arenas() {
    signaltty_actors::allocator::keep_large_blocks_mapped();
    // What a screen that freezes frees: its parser's 2 MiB buffer.
    drop(black_box(Vec::<u8>::with_capacity(2 << 20)));
    let before = mapped_bytes();
    // What a flood's copied rows take next.
    let block = black_box(Vec::<u8>::with_capacity(1 << 20));
    assert!(
        mapped_bytes() >= before + (1 << 20),
        "a 1 MiB block came from an arena: {} bytes mapped before, {} after",
        before,
        mapped_bytes()
    );
    drop(block);
}
