//! The line solver: one line is a subset-sum question over the weights 1..n; two sound rule sets
//! answer it, and a fixpoint loop runs either over the 2n lines.
//!
//! * **intervals** (what a person does): with `rem` what the line still owes and `Σ` the sum of its
//!   undecided weights, *too-big* crosses every weight `w > rem`, *cannot-skip* shades every weight
//!   with `Σ − w < rem`; `rem < 0` or `rem > Σ` is a contradiction. O(n) per line: bounds
//!   consistency.
//! * **enumeration** (what a machine can do): every subset of the undecided weights that sums to
//!   `rem` is a witness; shade what every witness holds, cross what none holds, a contradiction on
//!   zero witnesses. At most 2⁹ subsets: arc consistency on the line.
//!
//! Enumeration deduces everything intervals deduce on a line (each interval deduction holds in
//! every witness), so its fixpoint contains the interval fixpoint.

use super::{Board, Shading};
use std::fmt;

/// Which rule set the line solver runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
pub enum RuleSet {
    /// too-big and cannot-skip (bounds on the reachable sums), O(n) per line
    Intervals,
    /// every subset of the undecided weights reaching the remaining target
    Enumeration,
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RuleSet::Intervals => "intervals",
            RuleSet::Enumeration => "enumeration",
        })
    }
}

/// Σ (k+1) over the set bits k of a 9-bit mask.
pub const WSUM: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut m = 0;
    while m < 512 {
        let mut k = 0;
        let mut s = 0u8;
        while k < 9 {
            if m >> k & 1 == 1 {
                s += k as u8 + 1;
            }
            k += 1;
        }
        t[m] = s;
        m += 1;
    }
    t
};

#[inline]
fn wsum(mask: u16) -> i32 {
    WSUM[mask as usize] as i32
}

/// The line has no completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contradiction;

/// What one application of a rule set to one line decides: positions to shade and to cross.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineDeduction {
    pub shade: u16,
    pub cross: u16,
}

/// Apply `rule` once to a line of `n` cells (bit k = weight k+1) with the given marks and target.
#[inline]
pub fn deduce_line(
    rule: RuleSet,
    n: usize,
    shaded: u16,
    crossed: u16,
    target: u32,
) -> Result<LineDeduction, Contradiction> {
    let full = (1u16 << n) - 1;
    let und = full & !shaded & !crossed;
    let rem = target as i32 - wsum(shaded);
    if rem < 0 {
        return Err(Contradiction);
    }
    match rule {
        RuleSet::Intervals => {
            let sum_u = wsum(und);
            if rem > sum_u {
                return Err(Contradiction);
            }
            let mut d = LineDeduction::default();
            let mut bits = und;
            while bits != 0 {
                let k = bits.trailing_zeros();
                bits &= bits - 1;
                let w = k as i32 + 1;
                if w > rem {
                    d.cross |= 1 << k; // too-big
                } else if sum_u - w < rem {
                    d.shade |= 1 << k; // cannot-skip
                }
            }
            Ok(d)
        }
        RuleSet::Enumeration => {
            let mut all = und;
            let mut any = 0u16;
            let mut witnesses = 0u32;
            let mut sub = und;
            loop {
                if wsum(sub) == rem {
                    witnesses += 1;
                    all &= sub;
                    any |= sub;
                }
                if sub == 0 {
                    break;
                }
                sub = (sub - 1) & und;
            }
            if witnesses == 0 {
                return Err(Contradiction);
            }
            Ok(LineDeduction {
                shade: all,
                cross: und & !any,
            })
        }
    }
}

/// A partial marking of a board: shaded and crossed masks by row and by column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State {
    pub n: usize,
    pub row_shaded: [u16; 9],
    pub row_crossed: [u16; 9],
    pub col_shaded: [u16; 9],
    pub col_crossed: [u16; 9],
}

impl State {
    pub fn empty(n: usize) -> State {
        State {
            n,
            row_shaded: [0; 9],
            row_crossed: [0; 9],
            col_shaded: [0; 9],
            col_crossed: [0; 9],
        }
    }

    /// A state from row-major marks (`Some(true)` shaded).
    pub fn from_marks(n: usize, marks: &[Option<bool>]) -> State {
        let mut s = State::empty(n);
        for i in 0..n {
            for j in 0..n {
                if let Some(v) = marks[i * n + j] {
                    s.set(i, j, v);
                }
            }
        }
        s
    }

    #[inline]
    pub fn set(&mut self, i: usize, j: usize, shaded: bool) {
        if shaded {
            self.row_shaded[i] |= 1 << j;
            self.col_shaded[j] |= 1 << i;
        } else {
            self.row_crossed[i] |= 1 << j;
            self.col_crossed[j] |= 1 << i;
        }
    }

    /// `Some(true)` shaded, `Some(false)` crossed, `None` undecided.
    pub fn get(&self, i: usize, j: usize) -> Option<bool> {
        if self.row_shaded[i] >> j & 1 == 1 {
            Some(true)
        } else if self.row_crossed[i] >> j & 1 == 1 {
            Some(false)
        } else {
            None
        }
    }

    /// Marks of line `l` (rows, then columns): (shaded, crossed).
    #[inline]
    pub fn line(&self, l: usize) -> (u16, u16) {
        if l < self.n {
            (self.row_shaded[l], self.row_crossed[l])
        } else {
            (self.col_shaded[l - self.n], self.col_crossed[l - self.n])
        }
    }

    /// Cells decided so far.
    pub fn decided(&self) -> u32 {
        (0..self.n)
            .map(|i| (self.row_shaded[i] | self.row_crossed[i]).count_ones())
            .sum()
    }

    pub fn is_complete(&self) -> bool {
        self.decided() as usize == self.n * self.n
    }

    /// The first undecided cell in row-major order.
    pub fn first_undecided(&self) -> Option<(usize, usize)> {
        let full = (1u16 << self.n) - 1;
        (0..self.n).find_map(|i| {
            let und = full & !(self.row_shaded[i] | self.row_crossed[i]);
            (und != 0).then(|| (i, und.trailing_zeros() as usize))
        })
    }

    /// The shading of a complete state.
    pub fn shading(&self) -> Shading {
        Shading {
            n: self.n,
            rows: self.row_shaded[..self.n].to_vec(),
        }
    }

    /// Does this (partial) state agree with a shading on every decided cell?
    pub fn agrees_with(&self, s: &Shading) -> bool {
        (0..self.n)
            .all(|i| self.row_shaded[i] & !s.rows[i] == 0 && self.row_crossed[i] & s.rows[i] == 0)
    }

    /// The grid block text (`*`, `x`, `.`).
    pub fn grid_text(&self) -> String {
        let mut out = String::new();
        for i in 0..self.n {
            for j in 0..self.n {
                out.push(match self.get(i, j) {
                    Some(true) => '*',
                    Some(false) => 'x',
                    None => '.',
                });
            }
            out.push('\n');
        }
        out
    }

    /// Apply a line deduction to line `l`; returns the cells it newly decided as (row, col) bits.
    #[inline]
    fn apply(&mut self, l: usize, d: LineDeduction) {
        let n = self.n;
        let mut b = d.shade;
        while b != 0 {
            let k = b.trailing_zeros() as usize;
            b &= b - 1;
            if l < n {
                self.set(l, k, true)
            } else {
                self.set(k, l - n, true)
            }
        }
        let mut b = d.cross;
        while b != 0 {
            let k = b.trailing_zeros() as usize;
            b &= b - 1;
            if l < n {
                self.set(l, k, false)
            } else {
                self.set(k, l - n, false)
            }
        }
    }
}

/// Are the marks consistent in themselves (no cell both shaded and crossed)?
fn marks_clash(s: &State) -> bool {
    (0..s.n).any(|i| s.row_shaded[i] & s.row_crossed[i] != 0)
}

/// Run `rule` over the 2n lines to a fixpoint. On `Ok` the state is closed under the rule set;
/// a complete closed state is a solution. `Err` means no solution extends the state.
pub fn propagate(board: &Board, state: &mut State, rule: RuleSet) -> Result<(), Contradiction> {
    let n = board.n;
    if marks_clash(state) {
        return Err(Contradiction);
    }
    let mut dirty: u32 = (1u32 << (2 * n)) - 1;
    while dirty != 0 {
        let l = dirty.trailing_zeros() as usize;
        dirty &= dirty - 1;
        let (sh, cr) = state.line(l);
        let d = deduce_line(rule, n, sh, cr, board.line_target(l))?;
        if d.shade | d.cross == 0 {
            continue;
        }
        state.apply(l, d);
        // The line itself may yield more (intervals), and every crossing line changed.
        dirty |= 1 << l;
        let changed = d.shade | d.cross;
        if l < n {
            dirty |= (changed as u32) << n;
        } else {
            dirty |= changed as u32;
        }
    }
    Ok(())
}

/// The outcome of running one rule set alone from a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fixpoint {
    /// Every cell decided: the (unique) solution extending the state.
    Solved(State),
    /// The rule set stalled with this many cells decided.
    Stalled(State),
    /// No solution.
    Contradiction,
}

pub fn fixpoint(board: &Board, mut state: State, rule: RuleSet) -> Fixpoint {
    match propagate(board, &mut state, rule) {
        Err(Contradiction) => Fixpoint::Contradiction,
        Ok(()) if state.is_complete() => Fixpoint::Solved(state),
        Ok(()) => Fixpoint::Stalled(state),
    }
}

// ---------------------------------------------------------------------------------------------
// Hints: the first deduction, with its reason, intervals first, then enumeration.
// ---------------------------------------------------------------------------------------------

/// One hint: a cell to mark (or a contradiction) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hint {
    /// The rule set that fired.
    pub rule: RuleSet,
    /// The line that fired (rows 0..n, then columns).
    pub line: usize,
    /// The cell (row, col), 0-based, and whether to shade it; `None` for a contradiction.
    pub cell: Option<(usize, usize, bool)>,
    pub reason: String,
}

fn line_name(n: usize, l: usize) -> String {
    if l < n {
        format!("row {}", l + 1)
    } else {
        format!("column {}", l - n + 1)
    }
}

fn weights_text(mask: u16) -> String {
    let ws: Vec<String> = (0..9)
        .filter(|k| mask >> k & 1 == 1)
        .map(|k| (k + 1).to_string())
        .collect();
    format!("{{{}}}", ws.join(","))
}

fn cell_of(n: usize, l: usize, k: usize) -> (usize, usize) {
    if l < n { (l, k) } else { (k, l - n) }
}

/// The next hint for this state: intervals on every line first, then enumeration. `None` when
/// neither rule set decides anything (the board is complete or needs search).
pub fn next_hint(board: &Board, state: &State) -> Option<Hint> {
    let n = board.n;
    let full = (1u16 << n) - 1;
    for rule in [RuleSet::Intervals, RuleSet::Enumeration] {
        for l in 0..2 * n {
            let (sh, cr) = state.line(l);
            let target = board.line_target(l);
            let name = line_name(n, l);
            let und = full & !sh & !cr;
            let rem = target as i32 - wsum(sh);
            let res = deduce_line(rule, n, sh, cr, target);
            let d = match res {
                Err(Contradiction) => {
                    let reason = if rem < 0 {
                        format!(
                            "{name} already scores {} with its shaded cells, over its target {target}: the marks have no solution",
                            wsum(sh)
                        )
                    } else if rule == RuleSet::Intervals {
                        format!(
                            "{name} still needs {rem} but its undecided weights {} add up to only {}: the board has no solution",
                            weights_text(und),
                            wsum(und)
                        )
                    } else {
                        format!(
                            "no subset of the undecided weights {} of {name} sums to the {rem} it still needs: the board has no solution",
                            weights_text(und)
                        )
                    };
                    return Some(Hint {
                        rule,
                        line: l,
                        cell: None,
                        reason,
                    });
                }
                Ok(d) => d,
            };
            if d.shade | d.cross == 0 {
                continue;
            }
            // Report the lowest position the rule decided.
            let k = (d.shade | d.cross).trailing_zeros() as usize;
            let shade = d.shade >> k & 1 == 1;
            let w = k + 1;
            let reason = match (rule, shade) {
                (RuleSet::Intervals, false) => {
                    format!("Weight {w} is more than the {rem} {name} still needs — cross it")
                }
                (RuleSet::Intervals, true) => format!(
                    "Without weight {w}, {name} cannot reach its target: the other undecided weights add up to {} < {rem} still needed — shade it",
                    wsum(und) - w as i32
                ),
                (RuleSet::Enumeration, s) => {
                    let mut wit = Vec::new();
                    let mut sub = und;
                    loop {
                        if wsum(sub) == rem {
                            wit.push(sub);
                        }
                        if sub == 0 {
                            break;
                        }
                        sub = (sub - 1) & und;
                    }
                    wit.reverse();
                    let shown: Vec<String> = wit.iter().take(6).map(|&m| weights_text(m)).collect();
                    let more = if wit.len() > 6 { ", ..." } else { "" };
                    if s {
                        format!(
                            "Every way to make {rem} from the undecided weights {} of {name} uses weight {w} ({}{more}) — shade it",
                            weights_text(und),
                            shown.join(", ")
                        )
                    } else {
                        format!(
                            "No way to make {rem} from the undecided weights {} of {name} uses weight {w} ({}{more}) — cross it",
                            weights_text(und),
                            shown.join(", ")
                        )
                    }
                }
            };
            let (i, j) = cell_of(n, l, k);
            return Some(Hint {
                rule,
                line: l,
                cell: Some((i, j, shade)),
                reason,
            });
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_up_examples() {
        // Weights {1,2,3,4}, rem 6: witnesses {2,4} and {1,2,3} share weight 2; intervals silent.
        let d = deduce_line(RuleSet::Intervals, 4, 0, 0, 6).unwrap();
        assert_eq!(d, LineDeduction::default());
        let d = deduce_line(RuleSet::Enumeration, 4, 0, 0, 6).unwrap();
        assert_eq!(
            d,
            LineDeduction {
                shade: 0b0010,
                cross: 0
            }
        );
        // Weights {1,2,3}, rem 5: only {2,3}; intervals shade 2 and 3, only enumeration crosses 1.
        let d = deduce_line(RuleSet::Intervals, 3, 0, 0, 5).unwrap();
        assert_eq!(
            d,
            LineDeduction {
                shade: 0b110,
                cross: 0
            }
        );
        let d = deduce_line(RuleSet::Enumeration, 3, 0, 0, 5).unwrap();
        assert_eq!(
            d,
            LineDeduction {
                shade: 0b110,
                cross: 0b001
            }
        );
        // Zero witnesses.
        assert!(deduce_line(RuleSet::Enumeration, 2, 0, 0, 4).is_err());
        assert!(deduce_line(RuleSet::Intervals, 2, 0, 0, 4).is_err());
    }

    #[test]
    fn hint_quotes_cannot_skip() {
        // Row 1 of a 4×4 with target 9: without weight 2 the rest make 8 < 9.
        let b = Board::new(4, vec![9, 0, 0, 0], vec![0, 1, 1, 1]).unwrap();
        let h = next_hint(&b, &State::empty(4)).unwrap();
        assert_eq!(h.rule, RuleSet::Intervals);
        assert!(
            h.reason
                .contains("Without weight 2, row 1 cannot reach its target"),
            "{}",
            h.reason
        );
    }
}
