//! The repair-and-tighten generator (the Calcudoku write-up, "Repair, don't reject").
//!
//! A square is never thrown away. Random connected cages are cut on it and labelled; then
//!
//! * **repair**: while the board has a second answer, split a cage holding a cell where the two
//!   answers differ into two connected pieces and relabel both. The certified intercalate flips
//!   are tried first: a certified flip *is* a second answer found without search, and its four
//!   cells say where to split. Only when no flip is certified does a node-capped search look for a
//!   second answer. Splitting far enough leaves one-cell cages only, which have one answer, so
//!   repair always terminates.
//! * **tighten**: try merging neighbouring cages (union no larger than the largest cage allowed),
//!   under every label the union admits, and keep a merge only if the answer stays unique; repeat
//!   passes over all neighbouring pairs until a full pass keeps nothing. The result is locally
//!   maximal: no single merge, under any label, keeps the answer unique.
//!
//! Every search is node-capped. A capped search never guesses: in repair it forces a split of the
//! largest cage (uniqueness was not proved), in tighten it refuses the merge.
//!
//! The keep-only-unique **filter** (draw, cut, label, keep if unique, otherwise draw a new square)
//! is here too, as the comparison the write-up makes: it bends the square distribution.

use super::board::{Board, Cage, Op};
use super::certificate::{Flip, certified_flips};
use super::generate::{label, random_cut};
use super::solver::{Count, Rungs, solve};
use super::squares::{SquareSource, draw_square};
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

/// How the generator decides and repairs.
#[derive(Clone, Copy, Debug)]
pub struct RepairOptions {
    /// Largest cage of the first cut, and the largest union tighten may create.
    pub max_cage: usize,
    /// Search nodes per uniqueness decision (beyond the root); a capped search refuses.
    pub node_cap: u64,
    /// Try certified intercalate flips before any search.
    pub use_flips: bool,
}

/// What one generation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepairStats {
    /// Cages split while repairing.
    pub splits: u64,
    /// Splits placed by a certified flip (no search).
    pub splits_by_flip: u64,
    /// Splits placed by a second answer that search found.
    pub splits_by_search: u64,
    /// Splits forced because a search hit the node cap (uniqueness not proved).
    pub splits_capped: u64,
    /// Merges tried (each label counts) and kept while tightening.
    pub merges_tried: u64,
    pub merges_kept: u64,
    /// Merges refused because a search hit the node cap.
    pub merges_capped: u64,
    /// Tighten passes (the last keeps nothing).
    pub passes: u64,
    /// Searches run and their nodes (root included).
    pub searches: u64,
    pub nodes: u64,
}

/// A generated board with the square it was cut from.
#[derive(Clone, Debug)]
pub struct Generated {
    pub board: Board,
    pub square: Vec<u8>,
    pub stats: RepairStats,
}

/// The verdict of one uniqueness decision.
enum Verdict {
    Unique,
    /// A certified flip of the square: a second answer without search.
    Flip(Flip),
    /// A second answer found by search.
    Second(Vec<u8>),
    /// The search hit its node cap before deciding.
    Capped,
}

fn decide(board: &Board, square: &[u8], opts: &RepairOptions, st: &mut RepairStats) -> Verdict {
    if opts.use_flips
        && let Some(f) = certified_flips(board, square).first()
    {
        return Verdict::Flip(*f);
    }
    let o = solve(board, Rungs::ALL, 2, opts.node_cap);
    st.searches += 1;
    st.nodes += o.nodes;
    if let Some(s) = o.solutions.iter().find(|s| s.as_slice() != square) {
        return Verdict::Second(s.clone());
    }
    match o.count {
        Count::Exact(1) => Verdict::Unique,
        Count::Unknown => Verdict::Capped,
        // The square is a solution, so any other count names a second answer above.
        c => panic!("square is a solution but the count is {c}"),
    }
}

fn neighbours(n: usize, c: usize) -> impl Iterator<Item = usize> {
    let (r, col) = (c / n, c % n);
    [
        (r > 0).then(|| c - n),
        (r + 1 < n).then(|| c + n),
        (col > 0).then(|| c - 1),
        (col + 1 < n).then(|| c + 1),
    ]
    .into_iter()
    .flatten()
}

/// Split the connected cell set `cells` into two connected pieces, one holding `a` and the other
/// `b`: both grow from their seed by random adjacent unassigned cells of the set.
pub fn split_two<R: Rng>(
    n: usize,
    cells: &[u8],
    a: usize,
    b: usize,
    rng: &mut R,
) -> (Vec<u8>, Vec<u8>) {
    debug_assert!(a != b);
    let mut owner: Vec<(usize, u8)> = cells.iter().map(|&c| (c as usize, 2u8)).collect();
    let pos = |owner: &[(usize, u8)], c: usize| owner.iter().position(|&(x, _)| x == c);
    let ia = pos(&owner, a).expect("seed a in the cage");
    let ib = pos(&owner, b).expect("seed b in the cage");
    owner[ia].1 = 0;
    owner[ib].1 = 1;
    loop {
        let mut front: Vec<(usize, u8)> = Vec::new();
        for &(c, o) in &owner {
            if o == 2 {
                continue;
            }
            for x in neighbours(n, c) {
                if let Some(i) = pos(&owner, x)
                    && owner[i].1 == 2
                {
                    front.push((i, o));
                }
            }
        }
        if front.is_empty() {
            break;
        }
        let (i, o) = front[rng.random_range(0..front.len())];
        owner[i].1 = o;
    }
    let piece = |k: u8| -> Vec<u8> {
        let mut v: Vec<u8> = owner
            .iter()
            .filter(|&&(_, o)| o == k)
            .map(|&(c, _)| c as u8)
            .collect();
        v.sort_unstable();
        v
    };
    debug_assert!(owner.iter().all(|&(_, o)| o < 2), "cage is connected");
    (piece(0), piece(1))
}

fn cage_index(cages: &[Cage], cell: usize) -> usize {
    cages
        .iter()
        .position(|k| k.cells.contains(&(cell as u8)))
        .expect("every cell is in a cage")
}

/// Split cage `i` with seeds `a` and `b` and relabel both pieces.
fn split_cage<R: Rng>(
    n: usize,
    square: &[u8],
    cages: &mut Vec<Cage>,
    i: usize,
    a: usize,
    b: usize,
    rng: &mut R,
) {
    let old = cages.swap_remove(i);
    let (p, q) = split_two(n, &old.cells, a, b, rng);
    cages.extend(label(n, square, &[p, q], rng));
}

/// Seeds for splitting cage `i` around cell `c`: `c` and a second cell of the cage, taken from
/// `prefer` (cells where the answers differ) when one is there, else at random.
fn seeds<R: Rng>(cage: &Cage, c: usize, prefer: &[usize], rng: &mut R) -> (usize, usize) {
    let others: Vec<usize> = cage
        .cells
        .iter()
        .map(|&x| x as usize)
        .filter(|&x| x != c)
        .collect();
    let liked: Vec<usize> = others
        .iter()
        .copied()
        .filter(|x| prefer.contains(x))
        .collect();
    let pool = if liked.is_empty() { &others } else { &liked };
    (c, pool[rng.random_range(0..pool.len())])
}

fn build(n: usize, cages: &[Cage]) -> Board {
    Board::new(n, cages.to_vec(), false).expect("generator boards are valid")
}

/// Repair: split until the board is proved unique. Returns the unique board.
pub fn repair<R: Rng>(
    n: usize,
    square: &[u8],
    mut cages: Vec<Cage>,
    opts: &RepairOptions,
    st: &mut RepairStats,
    rng: &mut R,
) -> Vec<Cage> {
    loop {
        let board = build(n, &cages);
        let (cell, differ): (usize, Vec<usize>) = match decide(&board, square, opts, st) {
            Verdict::Unique => return cages,
            Verdict::Flip(f) => {
                st.splits_by_flip += 1;
                let four = vec![
                    f.r1 * n + f.c1,
                    f.r2 * n + f.c2,
                    f.r1 * n + f.c2,
                    f.r2 * n + f.c1,
                ];
                // Every flip cell sits in a cage of two or more cells (a one-cell cage would
                // refuse the flip); split the cage of a random one of them.
                (four[rng.random_range(0..4)], four)
            }
            Verdict::Second(s) => {
                st.splits_by_search += 1;
                let differ: Vec<usize> = (0..n * n).filter(|&c| s[c] != square[c]).collect();
                (differ[rng.random_range(0..differ.len())], differ)
            }
            Verdict::Capped => {
                st.splits_capped += 1;
                let big = cages.iter().map(|k| k.cells.len()).max().unwrap_or(1);
                debug_assert!(
                    big > 1,
                    "an all-singleton board is decided by the root ladder"
                );
                let tops: Vec<usize> = (0..cages.len())
                    .filter(|&i| cages[i].cells.len() == big)
                    .collect();
                let i = tops[rng.random_range(0..tops.len())];
                let c = cages[i].cells[rng.random_range(0..big)] as usize;
                (c, Vec::new())
            }
        };
        let i = cage_index(&cages, cell);
        debug_assert!(
            cages[i].cells.len() > 1,
            "a differing cell is never a given"
        );
        let (a, b) = seeds(&cages[i], cell, &differ, rng);
        split_cage(n, square, &mut cages, i, a, b, rng);
        st.splits += 1;
    }
}

/// Every label a cage of these cells admits on `square`: one-cell `=`; two cells + − × and ÷
/// when the pair divides; more cells + and ×.
pub fn labels_for(square: &[u8], cells: &[u8]) -> Vec<Cage> {
    let vals: Vec<u64> = cells.iter().map(|&c| square[c as usize] as u64).collect();
    let mk = |op, target| Cage {
        op,
        target,
        cells: cells.to_vec(),
    };
    match vals.len() {
        1 => vec![mk(Op::Given, vals[0])],
        2 => {
            let (hi, lo) = (vals[0].max(vals[1]), vals[0].min(vals[1]));
            let mut v = vec![
                mk(Op::Add, hi + lo),
                mk(Op::Sub, hi - lo),
                mk(Op::Mul, hi * lo),
            ];
            if hi % lo == 0 {
                v.push(mk(Op::Div, hi / lo));
            }
            v
        }
        _ => vec![
            mk(Op::Add, vals.iter().sum()),
            mk(Op::Mul, vals.iter().product()),
        ],
    }
}

/// Neighbouring cage pairs `(i, j)`, `i < j`, whose union has at most `max_cage` cells.
pub fn merge_candidates(n: usize, cages: &[Cage], max_cage: usize) -> Vec<(usize, usize)> {
    let mut of = vec![0usize; n * n];
    for (i, k) in cages.iter().enumerate() {
        for &c in &k.cells {
            of[c as usize] = i;
        }
    }
    let mut pairs = Vec::new();
    for c in 0..n * n {
        for x in neighbours(n, c) {
            let (i, j) = (of[c].min(of[x]), of[c].max(of[x]));
            if i != j && cages[i].cells.len() + cages[j].cells.len() <= max_cage {
                pairs.push((i, j));
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

fn merged_cells(a: &Cage, b: &Cage) -> Vec<u8> {
    let mut cells: Vec<u8> = a.cells.iter().chain(&b.cells).copied().collect();
    cells.sort_unstable();
    cells
}

fn shuffle<T, R: Rng>(v: &mut [T], rng: &mut R) {
    for k in (1..v.len()).rev() {
        let j = rng.random_range(0..=k);
        v.swap(k, j);
    }
}

/// Tighten a unique board: passes of merges over neighbouring pairs in random order, each
/// union tried under its labels in random order, kept when the answer stays unique, until a
/// full pass keeps nothing.
pub fn tighten<R: Rng>(
    n: usize,
    square: &[u8],
    cages: Vec<Cage>,
    opts: &RepairOptions,
    st: &mut RepairStats,
    rng: &mut R,
) -> Vec<Cage> {
    // Cages by stable slot: a merge empties two slots and appends the union.
    let mut slots: Vec<Option<Cage>> = cages.into_iter().map(Some).collect();
    loop {
        st.passes += 1;
        let live: Vec<usize> = (0..slots.len()).filter(|&i| slots[i].is_some()).collect();
        let cur: Vec<Cage> = live.iter().map(|&i| slots[i].clone().unwrap()).collect();
        let mut pairs: Vec<(usize, usize)> = merge_candidates(n, &cur, opts.max_cage)
            .into_iter()
            .map(|(i, j)| (live[i], live[j]))
            .collect();
        shuffle(&mut pairs, rng);
        let mut kept = false;
        for (i, j) in pairs {
            let (Some(a), Some(b)) = (&slots[i], &slots[j]) else {
                continue; // merged away earlier in this pass
            };
            let cells = merged_cells(a, b);
            let mut tries = labels_for(square, &cells);
            shuffle(&mut tries, rng);
            let rest: Vec<Cage> = slots
                .iter()
                .enumerate()
                .filter(|&(k, s)| k != i && k != j && s.is_some())
                .map(|(_, s)| s.clone().unwrap())
                .collect();
            for cand in tries {
                st.merges_tried += 1;
                let mut all = rest.clone();
                all.push(cand.clone());
                match decide(&build(n, &all), square, opts, st) {
                    Verdict::Unique => {
                        st.merges_kept += 1;
                        slots[i] = None;
                        slots[j] = None;
                        slots.push(Some(cand));
                        kept = true;
                        break;
                    }
                    Verdict::Capped => st.merges_capped += 1,
                    _ => {}
                }
            }
        }
        if !kept {
            let mut out: Vec<Cage> = slots.into_iter().flatten().collect();
            out.sort_by_key(|k| k.cells[0]);
            return out;
        }
    }
}

/// Cut, label, repair and tighten on `square`.
pub fn repair_and_tighten<R: Rng>(
    n: usize,
    square: Vec<u8>,
    opts: &RepairOptions,
    rng: &mut R,
) -> Generated {
    let mut st = RepairStats::default();
    let cut = random_cut(n, opts.max_cage, rng);
    let cages = label(n, &square, &cut, rng);
    let cages = repair(n, &square, cages, opts, &mut st, rng);
    let cages = tighten(n, &square, cages, opts, &mut st, rng);
    Generated {
        board: build(n, &cages),
        square,
        stats: st,
    }
}

/// Draw a square from `source` and run [`repair_and_tighten`] on it.
pub fn generate_repair<R: Rng>(
    n: usize,
    source: SquareSource,
    opts: &RepairOptions,
    rng: &mut R,
) -> Generated {
    let square = draw_square(n, source, rng);
    repair_and_tighten(n, square, opts, rng)
}

/// What the keep-only-unique filter did for one board.
#[derive(Clone, Debug)]
pub struct Filtered {
    pub board: Board,
    pub square: Vec<u8>,
    /// Squares drawn (the last one kept).
    pub draws: u64,
    /// Searches that hit the node cap (their square was discarded, never guessed unique).
    pub capped: u64,
    pub nodes: u64,
}

/// Keep-only-unique: draw a square, cut and label it, keep it if the board is proved unique,
/// otherwise discard the square and draw again (at most `max_draws` times).
pub fn generate_filter<R: Rng>(
    n: usize,
    source: SquareSource,
    opts: &RepairOptions,
    max_draws: u64,
    rng: &mut R,
) -> Option<Filtered> {
    let (mut capped, mut nodes) = (0u64, 0u64);
    for draws in 1..=max_draws {
        let square = draw_square(n, source, rng);
        let cut = random_cut(n, opts.max_cage, rng);
        let board = build(n, &label(n, &square, &cut, rng));
        let o = solve(&board, Rungs::ALL, 2, opts.node_cap);
        nodes += o.nodes;
        match o.count {
            Count::Exact(1) => {
                return Some(Filtered {
                    board,
                    square,
                    draws,
                    capped,
                    nodes,
                });
            }
            Count::Unknown => capped += 1,
            _ => {}
        }
    }
    None
}

/// Which generator `calcudoku generate` runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// Repair and tighten on a uniform square (never discards a square).
    #[default]
    Repair,
    /// Keep-only-unique: discard the square and draw again until a cut comes out unique.
    Filter,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Repair => "repair",
            Method::Filter => "filter",
        }
    }
}

/// The board `calcudoku generate` prints for a seed (uniform squares, flips tried first), with a
/// short note of what the generator did. A bank board's index row names the seed that gives it.
pub fn generate_seeded(
    n: usize,
    max_cage: usize,
    method: Method,
    node_cap: u64,
    seed: u64,
) -> anyhow::Result<(Board, String)> {
    use rand::SeedableRng;
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let opts = RepairOptions {
        max_cage,
        node_cap,
        use_flips: true,
    };
    match method {
        Method::Repair => {
            let g = generate_repair(n, SquareSource::Uniform, &opts, &mut rng);
            let note = format!(
                "{} splits, {} by a certified flip; {} merges kept",
                g.stats.splits, g.stats.splits_by_flip, g.stats.merges_kept
            );
            Ok((g.board, note))
        }
        Method::Filter => {
            let f = generate_filter(n, SquareSource::Uniform, &opts, 1_000_000, &mut rng)
                .ok_or_else(|| {
                    crate::error::input_error("filter: no unique cut in 1,000,000 draws")
                })?;
            Ok((f.board, format!("draw {}", f.draws)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    #[test]
    fn split_gives_two_connected_pieces() {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        // An L of five cells on a 4x4 grid.
        let cells = [0u8, 4, 8, 9, 10];
        for _ in 0..50 {
            let (p, q) = split_two(4, &cells, 0, 10, &mut rng);
            assert!(p.contains(&0) && q.contains(&10));
            assert_eq!(p.len() + q.len(), 5);
            for piece in [&p, &q] {
                // connected: flood from the first cell reaches all
                let mut seen = vec![piece[0] as usize];
                let mut k = 0;
                while k < seen.len() {
                    for x in neighbours(4, seen[k]) {
                        if piece.contains(&(x as u8)) && !seen.contains(&x) {
                            seen.push(x);
                        }
                    }
                    k += 1;
                }
                assert_eq!(seen.len(), piece.len());
            }
        }
    }

    #[test]
    fn labels_cover_every_operation_the_pair_allows() {
        let square = [2u8, 4, 4, 2];
        let l = labels_for(&square, &[0, 1]);
        let ops: Vec<Op> = l.iter().map(|c| c.op).collect();
        assert_eq!(ops, vec![Op::Add, Op::Sub, Op::Mul, Op::Div]);
        assert_eq!(l[3].target, 2);
        let l = labels_for(&[3, 2, 2, 3], &[0, 1]);
        assert_eq!(l.len(), 3);
    }
}
