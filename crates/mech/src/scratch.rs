//! Work buffers an element keeps between evaluations, so that its work in
//! the integration step loop allocates nothing once the buffers have their
//! sizes (the `no_alloc` tests). They carry no state from one evaluation
//! to the next: a clone starts with empty buffers. The mutex lets the
//! parallel element path share an element between threads (contacts keep
//! their narrow-phase buffers the same way, `contact.rs`).

use std::sync::{Mutex, MutexGuard};

#[derive(Debug, Default)]
pub(crate) struct Scratch<T>(Mutex<T>);

impl<T: Default> Clone for Scratch<T> {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl<T> Scratch<T> {
    /// The buffers (a poisoned lock is taken over: they hold no state).
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// `buf` holding a copy of `src`, reusing its memory once it has the size.
pub(crate) fn copy_into(buf: &mut Vec<f64>, src: &[f64]) {
    buf.clear();
    buf.extend_from_slice(src);
}
