//! The explanation of the study, as tests: proper-to-proper moves are exactly intercalate flips
//! (4k of the n³ − n² moves from a square with k intercalates stay proper), every chain state
//! keeps all line sums one, and the O(1) chain agrees move for move with a naive explicit-cube
//! implementation that shares no code with it.

use gridcensus::engine::Histogram;
use gridcensus::latin::jm::JmChain;
use gridcensus::latin::samplers::{ExactDist, Reader, draw_batch, naive_square, tv_distance};
use gridcensus::latin::square::{Square, intercalates_brute};
use rand::{Rng, RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::HashMap;

fn rng(seed: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(seed)
}

/// A reference Jacobson–Matthews cube: the explicit n×n×n array, lines scanned on every move.
struct RefCube {
    n: usize,
    m: Vec<i8>,
}

impl RefCube {
    fn from_square(sq: &Square) -> Self {
        let n = sq.order();
        let mut m = vec![0i8; n * n * n];
        for x in 0..n {
            for y in 0..n {
                m[(x * n + y) * n + sq.get(x, y) as usize] = 1;
            }
        }
        RefCube { n, m }
    }
    fn at(&self, x: usize, y: usize, z: usize) -> i8 {
        self.m[(x * self.n + y) * self.n + z]
    }
    fn add(&mut self, x: usize, y: usize, z: usize, d: i8) {
        let n = self.n;
        self.m[(x * n + y) * n + z] += d;
    }
    fn bad(&self) -> Option<(usize, usize, usize)> {
        let n = self.n;
        let i = self.m.iter().position(|&v| v < 0)?;
        Some((i / (n * n), (i / n) % n, i % n))
    }
    /// The box move from (x, y, z) with far corner (x1, y1, z1).
    fn apply(&mut self, (x, y, z): (usize, usize, usize), (x1, y1, z1): (usize, usize, usize)) {
        for (a, b, c) in [(x, y, z), (x, y1, z1), (x1, y, z1), (x1, y1, z)] {
            self.add(a, b, c, 1);
        }
        for (a, b, c) in [(x, y1, z), (x, y, z1), (x1, y, z), (x1, y1, z1)] {
            self.add(a, b, c, -1);
        }
    }
    fn ones_x(&self, y: usize, z: usize) -> Vec<usize> {
        (0..self.n).filter(|&x| self.at(x, y, z) == 1).collect()
    }
    fn ones_y(&self, x: usize, z: usize) -> Vec<usize> {
        (0..self.n).filter(|&y| self.at(x, y, z) == 1).collect()
    }
    fn ones_z(&self, x: usize, y: usize) -> Vec<usize> {
        (0..self.n).filter(|&z| self.at(x, y, z) == 1).collect()
    }
    /// Every line sums to one, entries in {−1, 0, 1}, at most one −1.
    fn lines_ok(&self) -> bool {
        let n = self.n;
        let mut ok = self.m.iter().all(|&v| (-1..=1).contains(&v))
            && self.m.iter().filter(|&&v| v < 0).count() <= 1;
        for a in 0..n {
            for b in 0..n {
                let sx: i32 = (0..n).map(|x| self.at(x, a, b) as i32).sum();
                let sy: i32 = (0..n).map(|y| self.at(a, y, b) as i32).sum();
                let sz: i32 = (0..n).map(|z| self.at(a, b, z) as i32).sum();
                ok &= sx == 1 && sy == 1 && sz == 1;
            }
        }
        ok
    }
}

/// A random square of order n: a long Jacobson–Matthews run read when proper, or a naive one.
fn random_square(n: usize, r: &mut Xoshiro256PlusPlus) -> Square {
    if r.random_bool(0.5) {
        naive_square(n, r)
    } else {
        let mut c = JmChain::cyclic(n);
        c.run(r.random_range(0..(4 * n * n * n) as u64), r);
        while !c.is_proper() {
            c.step(r);
        }
        c.square().unwrap()
    }
}

#[test]
fn proper_to_proper_moves_are_exactly_intercalate_flips() {
    let mut r = rng(11);
    for n in 4..=8 {
        let mut seen_k = std::collections::BTreeSet::new();
        for _ in 0..12 {
            let sq = random_square(n, &mut r);
            assert!(sq.is_latin());
            let k = intercalates_brute(n, sq.cells());
            assert_eq!(sq.intercalates(), k);
            seen_k.insert(k);
            let mut base = JmChain::cyclic(n);
            base.set_square(&sq);
            assert_eq!(base.intercalates(), k);
            let mut stay_proper = 0;
            let mut moves = 0;
            for x in 0..n {
                for y in 0..n {
                    for z in 0..n {
                        if sq.get(x, y) as usize == z {
                            continue;
                        }
                        moves += 1;
                        let mut c = base.clone();
                        c.proper_move(x, y, z);
                        c.cube().expect("indexes consistent");
                        if c.is_proper() {
                            stay_proper += 1;
                            let after = c.square().unwrap();
                            assert!(after.is_latin());
                            // The move flipped one intercalate: exactly 4 cells changed.
                            let diff = (0..n * n)
                                .filter(|&i| after.cells()[i] != sq.cells()[i])
                                .count();
                            assert_eq!(diff, 4);
                        }
                    }
                }
            }
            assert_eq!(moves, n * n * n - n * n);
            assert_eq!(base.proper_move_count(), moves);
            assert_eq!(
                stay_proper,
                4 * k,
                "order {n}: square with {k} intercalates"
            );
        }
        assert!(
            seen_k.len() >= 2,
            "order {n}: squares with varied intercalate counts"
        );
    }
}

#[test]
fn chain_matches_explicit_cube_and_keeps_line_sums_one() {
    let mut r = rng(5);
    for n in 3..=8 {
        let mut fast = JmChain::cyclic(n);
        let mut cube = RefCube::from_square(&Square::cyclic(n));
        let mut improper_seen = 0;
        for _ in 0..3000 {
            // The reference picks the move; both apply it.
            match cube.bad() {
                None => {
                    let (x, y, z) = loop {
                        let c = (
                            r.random_range(0..n),
                            r.random_range(0..n),
                            r.random_range(0..n),
                        );
                        if cube.at(c.0, c.1, c.2) == 0 {
                            break c;
                        }
                    };
                    let far = (
                        cube.ones_x(y, z)[0],
                        cube.ones_y(x, z)[0],
                        cube.ones_z(x, y)[0],
                    );
                    cube.apply((x, y, z), far);
                    fast.proper_move(x, y, z);
                }
                Some((x, y, z)) => {
                    improper_seen += 1;
                    let (xs, ys, zs) = (cube.ones_x(y, z), cube.ones_y(x, z), cube.ones_z(x, y));
                    assert_eq!((xs.len(), ys.len(), zs.len()), (2, 2, 2));
                    let far = (
                        xs[r.random_range(0..2)],
                        ys[r.random_range(0..2)],
                        zs[r.random_range(0..2)],
                    );
                    cube.apply((x, y, z), far);
                    fast.improper_move(far.0, far.1, far.2);
                }
            }
            assert!(cube.lines_ok(), "reference cube broke a line");
            assert_eq!(fast.cube().expect("indexes consistent"), cube.m);
            assert_eq!(fast.is_proper(), cube.bad().is_none());
        }
        assert!(improper_seen > 100, "order {n}: improper states visited");
    }
}

#[test]
fn random_steps_keep_all_line_sums_one() {
    let mut r = rng(9);
    for n in 2..=9 {
        let mut c = JmChain::cyclic(n);
        for _ in 0..20_000 {
            c.step(&mut r);
            let m = c.cube().expect("indexes consistent");
            let at = |x: usize, y: usize, z: usize| m[(x * n + y) * n + z] as i32;
            assert!(m.iter().all(|&v| (-1..=1).contains(&v)));
            assert!(m.iter().filter(|&&v| v < 0).count() == usize::from(!c.is_proper()));
            for a in 0..n {
                for b in 0..n {
                    assert_eq!((0..n).map(|x| at(x, a, b)).sum::<i32>(), 1);
                    assert_eq!((0..n).map(|y| at(a, y, b)).sum::<i32>(), 1);
                    assert_eq!((0..n).map(|z| at(a, b, z)).sum::<i32>(), 1);
                }
            }
            if let Some(sq) = c.square() {
                assert!(sq.is_latin());
            }
        }
    }
}

/// Chi-square statistic of observed square counts against a uniform law over `cells` squares.
fn chi_square(counts: &HashMap<Vec<u8>, u64>, cells: usize, draws: u64) -> f64 {
    let e = draws as f64 / cells as f64;
    let seen: f64 = counts.values().map(|&o| (o as f64 - e).powi(2) / e).sum();
    seen + (cells - counts.len()) as f64 * e
}

#[test]
fn fixed_time_reader_is_uniform_over_all_576_squares_of_order_4() {
    let mut r = rng(21);
    let mut c = JmChain::cyclic(4);
    let draws = 57_600u64;
    let mut counts: HashMap<Vec<u8>, u64> = HashMap::new();
    for _ in 0..draws {
        gridcensus::latin::samplers::fixed_time(&mut c, 64, 1000, &mut r).unwrap();
        *counts
            .entry(c.square().unwrap().cells().to_vec())
            .or_default() += 1;
    }
    assert_eq!(
        counts.len(),
        576,
        "every Latin square of order 4 is reached"
    );
    // 575 degrees of freedom: mean 575, sd ≈ 33.9; 6 sd above is a failure.
    let chi = chi_square(&counts, 576, draws);
    assert!(chi < 575.0 + 6.0 * 33.9, "chi-square {chi}");
}

#[test]
fn exact_reader_follows_the_histogram() {
    // Order 6 census histogram (results/latin_census.csv).
    let hist = Histogram(vec![
        40, 0, 0, 0, 1080, 3240, 0, 1620, 0, 600, 0, 1080, 0, 0, 0, 1188, 0, 0, 0, 540, 0, 0, 0, 0,
        0, 0, 0, 20,
    ]);
    let d = ExactDist::new(&hist).unwrap();
    assert!((d.mean() - 8.265).abs() < 5e-4);
    let mut r = rng(3);
    let out = draw_batch(&Reader::Exact, 6, &d, 200_000, &mut r).unwrap();
    assert_eq!(out.draws, 200_000);
    assert!(
        out.hist
            .0
            .iter()
            .enumerate()
            .all(|(k, &c)| c == 0 || hist.0[k] > 0)
    );
    assert!(tv_distance(&out.hist, d.probs()) < 0.01);
}

#[test]
fn naive_reaches_every_square_of_order_4() {
    let mut r = rng(8);
    let mut seen = std::collections::HashSet::new();
    for _ in 0..20_000 {
        let sq = naive_square(4, &mut r);
        assert!(sq.is_latin());
        seen.insert(sq.cells().to_vec());
    }
    assert_eq!(seen.len(), 576);
}

#[test]
fn readers_report_their_costs() {
    let hist = Histogram(vec![0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1]);
    let d = ExactDist::new(&hist).unwrap();
    let mut r = rng(4);
    let f = draw_batch(
        &Reader::FixedTime {
            t: 64,
            chain_cap: 1000,
        },
        4,
        &d,
        500,
        &mut r,
    )
    .unwrap();
    assert!(f.chains >= 500 && f.moves == f.chains * 64);
    let w = draw_batch(
        &Reader::WaitForProper {
            t: 64,
            wait_cap: 1_000_000,
        },
        4,
        &d,
        500,
        &mut r,
    )
    .unwrap();
    assert!(w.chains == 500 && w.moves >= 500 * 64);
    let t = draw_batch(
        &Reader::Thinned {
            k: 3,
            burn_in: 640,
            wait_cap: 1_000_000,
        },
        4,
        &d,
        500,
        &mut r,
    )
    .unwrap();
    assert!(t.chains == 1 && t.moves >= 640 + 1500);
    assert_eq!(t.hist.total(), 500);
    // Fixed time T = 1 from the cyclic square of odd order is never proper: a clean error.
    let mut c = JmChain::cyclic(5);
    let e = gridcensus::latin::samplers::fixed_time(&mut c, 1, 10_000, &mut r).unwrap_err();
    assert!(e.to_string().contains("10000 chains"), "{e}");
    let _ = r.next_u64();
}

/// Can the partial square (cells before `i` filled) be completed? Plain depth-first search.
fn completable(n: usize, cells: &mut Vec<u8>, i: usize) -> bool {
    if i == n * n {
        return true;
    }
    let (r, c) = (i / n, i % n);
    for s in 0..n as u8 {
        let clash = (0..c).any(|j| cells[r * n + j] == s) || (0..r).any(|j| cells[j * n + c] == s);
        if !clash {
            cells[i] = s;
            if completable(n, cells, i + 1) {
                return true;
            }
        }
    }
    false
}

/// The exact law of naive backtracking: the first symbol of a shuffled list whose subtree holds a
/// completion is uniform among the extendable symbols, cell by cell. Accumulates P(square) by
/// intercalate count.
fn naive_law(n: usize, cells: &mut Vec<u8>, i: usize, p: f64, law: &mut Vec<f64>) {
    if i == n * n {
        let k = intercalates_brute(n, cells);
        if law.len() <= k {
            law.resize(k + 1, 0.0);
        }
        law[k] += p;
        return;
    }
    let (r, c) = (i / n, i % n);
    let mut viable = Vec::new();
    for s in 0..n as u8 {
        let clash = (0..c).any(|j| cells[r * n + j] == s) || (0..r).any(|j| cells[j * n + c] == s);
        if !clash {
            cells[i] = s;
            if completable(n, cells, i + 1) {
                viable.push(s);
            }
        }
    }
    for &s in &viable {
        cells[i] = s;
        naive_law(n, cells, i + 1, p / viable.len() as f64, law);
    }
}

#[test]
fn naive_backtracking_follows_its_exact_biased_law() {
    for n in [4usize, 5] {
        let mut law = Vec::new();
        naive_law(n, &mut vec![0u8; n * n], 0, 1.0, &mut law);
        assert!((law.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let draws = 40_000u64;
        let mut r = rng(n as u64 + 100);
        let mut hist = Histogram::default();
        for _ in 0..draws {
            hist.add(naive_square(n, &mut r).intercalates(), 1);
        }
        for (k, &p) in law.iter().enumerate() {
            let got = hist.0.get(k).copied().unwrap_or(0) as f64 / draws as f64;
            let sd = (p * (1.0 - p) / draws as f64).sqrt();
            assert!(
                (got - p).abs() <= 5.0 * sd + 1e-12,
                "order {n}, k={k}: {got} vs {p}"
            );
        }
        // And the law is not the uniform one (order 4: 1/4 of squares have 12 intercalates).
        if n == 4 {
            assert!((law[12] - 0.25).abs() > 0.05, "naive law {law:?}");
        }
    }
}

/// Pearson chi-square of a histogram against probabilities, pooling bins with expected < 5;
/// returns (statistic, degrees of freedom).
fn chi_square_hist(h: &Histogram, probs: &[f64]) -> (f64, f64) {
    let total = h.total() as f64;
    let (mut stat, mut df) = (0.0, -1.0);
    let (mut pool_o, mut pool_e) = (0.0, 0.0);
    for (k, &p) in probs.iter().enumerate() {
        let o = h.0.get(k).copied().unwrap_or(0) as f64;
        let e = p * total;
        if e >= 5.0 {
            stat += (o - e).powi(2) / e;
            df += 1.0;
        } else {
            pool_o += o;
            pool_e += e;
        }
    }
    // Counts where the census has none would be a hard failure.
    assert!(
        h.0.iter()
            .enumerate()
            .all(|(k, &c)| c == 0 || probs.get(k).is_some_and(|&p| p > 0.0))
    );
    if pool_e > 0.0 {
        stat += (pool_o - pool_e).powi(2) / pool_e;
        df += 1.0;
    }
    (stat, df)
}

/// The fixed-time reader (independent draws) and the thinned reader (dependent draws, judged
/// by batch means over independent chains) follow the exact census at orders 5 and 6; the
/// census here is recomputed by the census job, not read from the committed CSV.
#[test]
fn fixed_time_and_thinned_readers_match_the_census_at_orders_5_and_6() {
    for n in [5usize, 6] {
        let job = gridcensus::latin::census::CensusJob::new(n).unwrap();
        let exact = job
            .finish(gridcensus::engine::run::run_simple(&job, Some(1)).unwrap())
            .unwrap();
        let d = ExactDist::new(&exact).unwrap();
        let n3 = (n * n * n) as u64;
        let mut r = rng(500 + n as u64);
        // Fixed time, T = n³: independent draws, Pearson chi-square at about 6 sd.
        let f = draw_batch(
            &Reader::FixedTime {
                t: n3,
                chain_cap: 100_000,
            },
            n,
            &d,
            6000,
            &mut r,
        )
        .unwrap();
        let (chi, df) = chi_square_hist(&f.hist, d.probs());
        assert!(
            chi < df + 6.0 * (2.0 * df).sqrt(),
            "n={n} fixed-time: chi-square {chi:.1} on {df} df"
        );
        // Thinned, k = n² proper states apart, 20 independent chains of 300 draws.
        let var: f64 = d
            .probs()
            .iter()
            .enumerate()
            .map(|(k, &p)| p * (k as f64 - d.mean()).powi(2))
            .sum();
        let mut pooled = Histogram::default();
        let mut means = Vec::new();
        for _ in 0..20 {
            let t = draw_batch(
                &Reader::Thinned {
                    k: (n * n) as u64,
                    burn_in: 10 * n3,
                    wait_cap: 10_000_000,
                },
                n,
                &d,
                300,
                &mut r,
            )
            .unwrap();
            let m: f64 = t
                .hist
                .0
                .iter()
                .enumerate()
                .map(|(k, &c)| k as f64 * c as f64)
                .sum::<f64>()
                / 300.0;
            means.push(m);
            for (k, &c) in t.hist.0.iter().enumerate() {
                pooled.add(k, c);
            }
        }
        let gm = means.iter().sum::<f64>() / 20.0;
        let s2 = means.iter().map(|m| (m - gm).powi(2)).sum::<f64>() / 19.0;
        let se = (s2 / 20.0).sqrt();
        let z = (gm - d.mean()) / se;
        assert!(
            z.abs() < 4.0,
            "n={n} thinned: mean {gm:.3} vs {:.3}, z = {z:.2}",
            d.mean()
        );
        // Chi-square deflated by the batch-means inflation factor τ = 300·s²/σ² (≥ 1 only).
        let tau = (300.0 * s2 / var).max(1.0);
        let (chi, df) = chi_square_hist(&pooled, d.probs());
        assert!(
            chi / tau < df + 6.0 * (2.0 * df).sqrt(),
            "n={n} thinned: chi-square {chi:.1}/τ {tau:.2} on {df} df"
        );
    }
}
