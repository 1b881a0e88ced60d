//! All integration tests in one binary (each file in `tests/` would link its
//! own, and a debug Bevy binary is over a gigabyte).

mod reference;

#[cfg(feature = "bevy")]
mod plugin;

#[cfg(feature = "physics")]
mod physics;
