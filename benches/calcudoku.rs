//! Calcudoku benches: each rung on a fixed seeded set of boards per order 4–9 (applied to the
//! fixpoint of the rungs below it, so it has work to do), full uniqueness solves (cap 2) per
//! order reported as boards per second, and the independent verifier alongside.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::calcudoku::generate::seeded_board;
use gridcensus::calcudoku::solver::{ALL_RUNGS, Ctx, Rungs, State, ladder};
use gridcensus::calcudoku::{Board, solve, verify_count};
use std::hint::black_box;
use std::time::Duration;

const MAX_CAGE: usize = 4;

fn boards(n: usize, count: u64, hide: bool) -> Vec<Board> {
    (0..count)
        .map(|i| seeded_board(n, MAX_CAGE, hide, 1000 * n as u64 + i).0)
        .collect()
}

fn rung_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_rung");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in 4..=9 {
        let set = boards(n, 20, false);
        for (i, &r) in ALL_RUNGS.iter().enumerate() {
            let below = Rungs(((1u16 << i) - 1) as u8);
            let states: Vec<(&Board, State)> = set
                .iter()
                .filter_map(|b| {
                    let mut st = State::new(b);
                    ladder(b, &mut st, below, &mut Ctx::new()).ok()?;
                    Some((b, st))
                })
                .collect();
            g.throughput(Throughput::Elements(states.len() as u64));
            g.bench_function(format!("{r}/{n}"), |bch| {
                bch.iter(|| {
                    for (b, st) in &states {
                        let mut s = st.clone();
                        let mut ctx = Ctx::new();
                        let _ = black_box(ladder(b, &mut s, Rungs::only(r), &mut ctx));
                    }
                })
            });
        }
    }
    g.finish();
}

fn unique_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_unique");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for hide in [false, true] {
        for n in 4..=9 {
            let set = boards(n, 50, hide);
            g.throughput(Throughput::Elements(set.len() as u64));
            let name = if hide { "hidden" } else { "shown" };
            g.bench_function(format!("{name}/{n}"), |bch| {
                bch.iter(|| {
                    for b in &set {
                        black_box(solve(b, Rungs::ALL, 2, 10_000_000));
                    }
                })
            });
        }
    }
    g.finish();
}

fn verifier_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_verifier");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in 4..=6 {
        let set = boards(n, 50, false);
        g.throughput(Throughput::Elements(set.len() as u64));
        g.bench_function(format!("shown/{n}"), |bch| {
            bch.iter(|| {
                for b in &set {
                    black_box(verify_count(b, 2));
                }
            })
        });
    }
    g.finish();
}

/// One cut-and-decide per order: draw a uniform square (Jacobson–Matthews, n³ moves), cut and
/// label it (largest cage 4), decide uniqueness with signs shown (a fixed pool of seeds).
fn cut_benches(c: &mut Criterion) {
    use gridcensus::calcudoku::cuts::cut_board;
    use gridcensus::calcudoku::squares::SquareSource;
    use rand::SeedableRng;
    let mut g = c.benchmark_group("calcudoku_cut_and_decide");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for n in 4..=9 {
        g.throughput(Throughput::Elements(20));
        g.bench_function(format!("uniform/{n}"), |bch| {
            bch.iter(|| {
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(n as u64);
                for _ in 0..20 {
                    let (b, _) = cut_board(n, 4, SquareSource::Uniform, &mut rng);
                    black_box(solve(&b, Rungs::ALL, 2, 1_000_000));
                }
            })
        });
    }
    g.finish();
}

criterion_group!(
    group,
    rung_benches,
    unique_benches,
    verifier_benches,
    cut_benches
);
criterion_main!(group);
