//! Alacritty - The GPU Enhanced Terminal.
//!
//! signaltty's fork of alacritty_terminal 0.26.0: the terminal emulator
//! core (grid, `Term`, selection, vi mode, search) without the PTY and its
//! event loop, with rows that hold only the cells written since their last
//! reset. What changed and how it is tested against the published crate is
//! in this directory's README.md. It owns the emulation of one terminal; it
//! must never do I/O, spawn anything or know about signaltty.

#![warn(rust_2018_idioms, future_incompatible)]
#![deny(clippy::all, clippy::if_not_else, clippy::enum_glob_use)]
#![cfg_attr(clippy, deny(warnings))]

pub mod event;
pub mod grid;
pub mod index;
pub mod selection;
pub mod term;
pub mod vi_mode;

pub use crate::grid::Grid;
pub use crate::term::Term;
pub use vte;
