//! The ladder check of the search engines ([`super::walk_search::Walk`] and
//! [`super::walk_search::RunFill`]): every [`LADDER_EVERY`] placements, the ladder's search rungs
//! (pin, link, edge; [`super::ladder`]) are climbed on the root candidates with the placements
//! made. A dead state is left at once; a live one's fixpoint narrows the next cells until the
//! next check.
//!
//! The climb starts from the fixpoint the previous check on the same trail left (a state the
//! ladder left is a sound start: its rungs only remove candidates no answer uses), so a check
//! climbs from eight new placements, not from the root. The fixpoints are kept on a stack, one
//! per depth checked; an entry is current while the trail keeps the placements it covers. The
//! engines grow their trails one placement at a time, so a trail that went back below a kept
//! depth d reaches d again only through a check at d, which replaces the entries from d on
//! (debug builds check this with a fingerprint of the covered placements).

use super::bits::Bits;
use super::board::Geometry;
use super::ladder::{Ctx, Outcome, Rung, Rungs, State, Work, climb};

/// Placements between two ladder checks. Measured on 900 sparse 12×12 reveals of the run
/// filling: every 4, 6, 8 and 12 placements give the same unknowns within noise; 8 gave the
/// lowest median times from 8×8 to 12×12.
pub const LADDER_EVERY: usize = 8;

/// The ladder check of one search (see the module documentation).
pub struct LadderCheck {
    ctx: Ctx,
    root: State,
    /// (placements covered, their fingerprint in debug builds, the fixpoint), shallowest first.
    stack: Vec<(usize, u64, State)>,
    /// Checks run, and how many of them found the state dead.
    pub checks: u64,
    pub dead: u64,
}

impl LadderCheck {
    /// From the root candidates (`cand[c]`: the numbers cell c may hold, 0-based).
    pub fn new(geo: &Geometry, cand: &[Bits]) -> LadderCheck {
        LadderCheck {
            ctx: Ctx {
                geo: geo.clone(),
                n: geo.n,
            },
            root: State::of_cands(cand),
            stack: Vec::new(),
            checks: 0,
            dead: 0,
        }
    }

    /// After a placement: false when the trail's length is a multiple of [`LADDER_EVERY`] and
    /// the ladder finds the state dead. `trail` holds every placement since the root, as
    /// (number, cell) through `vc`.
    pub fn live<P>(&mut self, trail: &[P], vc: impl Fn(&P) -> (usize, usize)) -> bool {
        let t = trail.len();
        if !t.is_multiple_of(LADDER_EVERY) {
            return true;
        }
        self.checks += 1;
        while self.stack.last().is_some_and(|e| e.0 >= t) {
            self.stack.pop();
        }
        let (d0, mut st) = match self.stack.last() {
            Some((d, f, st)) => {
                debug_assert_eq!(*f, fingerprint(&trail[..*d], &vc), "a stale ladder state");
                (*d, st.clone())
            }
            None => (0, self.root.clone()),
        };
        let placed = trail[d0..].iter().all(|p| {
            let (v, c) = vc(p);
            st.assign(c, v).is_ok()
        });
        let rungs = Rungs::DECIDE.without(Rung::Probe);
        let live = placed
            && !matches!(
                climb(&self.ctx, &mut st, rungs, &mut Work::default()),
                Outcome::Dead(_)
            );
        if live {
            // The fingerprint only serves the debug builds' check.
            let f = if cfg!(debug_assertions) {
                fingerprint(trail, &vc)
            } else {
                0
            };
            self.stack.push((t, f, st));
        } else {
            self.dead += 1;
        }
        live
    }

    /// The candidates of the last fixpoint on this trail (None before the first check).
    pub fn cands<P>(&self, trail: &[P], vc: impl Fn(&P) -> (usize, usize)) -> Option<&[Bits]> {
        let t = trail.len();
        self.stack.iter().rev().find(|e| e.0 <= t).map(|e| {
            debug_assert_eq!(e.1, fingerprint(&trail[..e.0], &vc), "a stale ladder state");
            &e.2.cv[..]
        })
    }
}

/// A fingerprint of a trail's placements.
fn fingerprint<P>(trail: &[P], vc: impl Fn(&P) -> (usize, usize)) -> u64 {
    trail.iter().fold(0xcbf2_9ce4_8422_2325, |h, p| {
        let (v, c) = vc(p);
        (h ^ ((v as u64) << 32 | c as u64)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
