//! A check of chunks' prints against newly laid roads, run on a worker:
//! the mechanism the ground check and the ribbon check share.

use super::super::tasks::Job;
use std::collections::VecDeque;

/// Prints of chunks (`T`, one per chunk) taken on a worker after roads are
/// laid anew, and what the last check found, still to be gone through
/// (nearest first) as the frame's tasks allow.
pub(super) struct PrintCheck<T> {
    /// The laid-roads version and terrain generation last followed.
    at: (u64, u64),
    /// Some chunk may have prints to check.
    pub(super) unchecked: bool,
    /// The check under way, and what it is for (`at` when it began).
    running: Option<((u64, u64), Job<Vec<T>>)>,
    /// The laid-roads version the last check began for.
    pub(super) began_for: u64,
    /// What the last check found.
    pub(super) found: VecDeque<T>,
}

impl<T> Default for PrintCheck<T> {
    fn default() -> Self {
        Self {
            at: (0, 0),
            unchecked: false,
            running: None,
            began_for: 0,
            found: VecDeque::new(),
        }
    }
}

impl<T: Send + 'static> PrintCheck<T> {
    /// Follows the roads of `version` and the terrain of `generation`:
    /// newly laid roads leave every chunk to be checked again, and what was
    /// found for older ones is dropped; a check for other roads or terrain
    /// is dropped (which cancels it); a finished one's findings are taken.
    pub(super) fn follow(&mut self, version: u64, generation: u64) {
        if self.at.0 != version {
            self.unchecked = true;
            self.found.clear();
        }
        self.at = (version, generation);
        if (self.running.as_ref()).is_some_and(|(at, _)| *at != self.at) {
            self.running = None;
        }
        if let Some(found) = (self.running.as_mut()).and_then(|(_, job)| job.take()) {
            self.running = None;
            self.found = found.into();
        }
    }

    /// Begins a check where one is due (something unchecked, none under
    /// way): `spawn` starts its job, or says there is nothing to check.
    pub(super) fn begin(&mut self, spawn: impl FnOnce() -> Option<Job<Vec<T>>>) {
        if !self.unchecked || self.running.is_some() {
            return;
        }
        self.unchecked = false;
        self.began_for = self.at.0;
        self.running = spawn().map(|job| (self.at, job));
    }

    /// Whether a check is under way.
    #[cfg(test)]
    pub(super) fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Whether nothing is left to check or go through.
    pub(super) fn settled(&self) -> bool {
        !self.unchecked && self.running.is_none() && self.found.is_empty()
    }
}
