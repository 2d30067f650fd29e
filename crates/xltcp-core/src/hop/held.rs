//! What the hops with a MAC of their own (802.15.4, 802.11) keep of the
//! packets they hand to a station's MAC: [`HeldFrames`], by frame id, until
//! the MAC reports on the frame.

use std::collections::VecDeque;

/// Frames handed to one station's MAC, in the order they were handed over
/// (the MAC serves them in that order, so lookups find them at the front).
#[derive(Debug)]
pub(super) struct HeldFrames<H>(VecDeque<(u64, H)>);

impl<H> Default for HeldFrames<H> {
    fn default() -> HeldFrames<H> {
        HeldFrames(VecDeque::new())
    }
}

impl<H> HeldFrames<H> {
    /// Keeps `held` under frame id `id`, after the others.
    pub(super) fn push(&mut self, id: u64, held: H) {
        self.0.push_back((id, held));
    }

    /// The frame `id`, if held.
    pub(super) fn get(&self, id: u64) -> Option<&H> {
        self.0.iter().find(|(k, _)| *k == id).map(|(_, h)| h)
    }

    /// The frame `id`, if held, to change.
    pub(super) fn get_mut(&mut self, id: u64) -> Option<&mut H> {
        self.0.iter_mut().find(|(k, _)| *k == id).map(|(_, h)| h)
    }

    /// Takes the frame `id` out, if held.
    pub(super) fn remove(&mut self, id: u64) -> Option<H> {
        let k = self.0.iter().position(|(k, _)| *k == id)?;
        self.0.remove(k).map(|(_, h)| h)
    }

    /// How many held frames `pred` holds for.
    pub(super) fn count(&self, pred: impl Fn(&H) -> bool) -> usize {
        self.0.iter().filter(|(_, h)| pred(h)).count()
    }
}
