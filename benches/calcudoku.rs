//! Calcudoku benches: each rung on a fixed seeded set of boards per order 4–9 (applied to the
//! fixpoint of the rungs below it, so it has work to do), full uniqueness solves (cap 2) per
//! order reported as boards per second, the independent verifier alongside, and the tail: the
//! slowest random-cut boards saved under examples/calcudoku/tail/, each decided (cap 2) with
//! the default search policy and (boards up to 9×9 with cages under 7 cells) with the probe
//! rung at every node; and the line-block balance of the search.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::calcudoku::generate::seeded_board;
use gridcensus::calcudoku::solver::SearchPolicy;
use gridcensus::calcudoku::solver::{ALL_RUNGS, Ctx, Rungs, State, ladder};
use gridcensus::calcudoku::{Board, solve, solve_with, verify_count};
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

/// The repair-and-tighten generator, one board per iteration (uniform square, cut, repair,
/// tighten), per order, with the certified-flip check on.
fn generator_benches(c: &mut Criterion) {
    use gridcensus::calcudoku::repair::{RepairOptions, generate_repair};
    use gridcensus::calcudoku::squares::SquareSource;
    use rand::SeedableRng;
    let mut g = c.benchmark_group("calcudoku_generate_repair");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for n in 5..=9 {
        let opts = RepairOptions {
            max_cage: 4,
            node_cap: 1_000_000,
            use_flips: true,
        };
        let mut seed = 0u64;
        g.bench_function(format!("{n}x{n}"), |b| {
            b.iter(|| {
                seed += 1;
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
                black_box(
                    generate_repair(n, SquareSource::Uniform, &opts, &mut rng)
                        .board
                        .cages
                        .len(),
                )
            })
        });
    }
    g.finish();
}

/// The tail set: every board file under examples/calcudoku/tail/, in name order.
fn tail_boards() -> Vec<(String, Board)> {
    boards_in(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/calcudoku/tail"
    ))
}

/// Every board file of a directory, in name order.
fn boards_in(dir: &str) -> Vec<(String, Board)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("board directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("tail board");
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, Board::parse(&text, false).expect("tail board parses"))
        })
        .collect()
}

fn tail_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_tail");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    for (name, b) in tail_boards() {
        g.bench_function(format!("default/{name}"), |bch| {
            bch.iter(|| black_box(solve(&b, Rungs::ALL, 2, 1_000_000)))
        });
    }
    g.finish();
}

/// Probing at every node of a 9×9 board with cages of 7 or more cells costs a probe pass
/// (tenths of a second) per node, far over a bench body's budget: such tail boards are benched
/// with the default policy only.
fn probe_everywhere_fits(b: &Board) -> bool {
    b.n < 9 || b.cages.iter().all(|c| c.cells.len() < 7)
}

fn tail_probe_everywhere_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_tail_probe_everywhere");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(5));
    for (name, b) in tail_boards()
        .into_iter()
        .filter(|(_, b)| probe_everywhere_fits(b))
    {
        g.bench_function(name, |bch| {
            bch.iter(|| {
                black_box(solve_with(
                    &b,
                    Rungs::ALL,
                    2,
                    1_000_000,
                    SearchPolicy::PROBE_EVERYWHERE,
                ))
            })
        });
    }
    g.finish();
}

/// Restarts (unit 256) on the tail set and on the open tail boards they decide within a
/// few thousand nodes (the plain search needs 30,815–770,350 on these).
fn tail_restart_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_tail_restarts");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    let open = boards_in(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/calcudoku/tail_open"
    ));
    let fast_open = ["board85", "board63", "board65"];
    let policy = SearchPolicy {
        restart_unit: 256,
        ..SearchPolicy::default()
    };
    for (name, b) in tail_boards().into_iter().chain(
        open.into_iter()
            .filter(|(n, _)| fast_open.iter().any(|f| n.ends_with(f))),
    ) {
        g.bench_function(name, |bch| {
            bch.iter(|| black_box(solve_with(&b, Rungs::ALL, 2, 1_000_000, policy)))
        });
    }
    g.finish();
}

/// The slowest boards of the 1,000-board 9×9 sets (cages up to 6 with hidden signs, up to 8
/// with signs shown and hidden) under the default policy, two per set
/// (`examples/calcudoku/tail_1000/`, saved by `calcudoku time --tail-out`).
fn tail_1000_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("calcudoku_tail_1000");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(5));
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/calcudoku/tail_1000");
    for (name, b) in boards_in(dir) {
        g.bench_function(name, |bch| {
            bch.iter(|| black_box(solve(&b, Rungs::ALL, 2, 1_000_000)))
        });
    }
    g.finish();
}

/// The line-block balance: one pass over every block and feature, on the fixpoint of the rungs
/// below the probe (boards of each order with cages up to 8 cells, so that blocks cut cages), and
/// the open tail boards it decides within a second under the default policy.
fn balance_benches(c: &mut Criterion) {
    use gridcensus::calcudoku::balance::Balance;
    use gridcensus::calcudoku::solver::Rung;
    let mut g = c.benchmark_group("calcudoku_balance");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    for n in 4..=9 {
        let set: Vec<Board> = (0..20)
            .map(|i| seeded_board(n, 8, false, 7000 * n as u64 + i).0)
            .collect();
        let states: Vec<(&Board, State, Balance)> = set
            .iter()
            .filter_map(|b| {
                let mut st = State::new(b);
                ladder(b, &mut st, Rungs::ALL.without(Rung::Probe), &mut Ctx::new()).ok()?;
                Some((b, st, Balance::new(b)))
            })
            .collect();
        g.throughput(Throughput::Elements(states.len() as u64));
        g.bench_function(format!("propagate/{n}"), |bch| {
            bch.iter(|| {
                for (b, st, bal) in &states {
                    let mut s = st.clone();
                    let mut q = gridcensus::calcudoku::balance::Quiet::default();
                    let _ = black_box(bal.propagate(b, &mut s, &mut q));
                }
            })
        });
    }
    let open = boards_in(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/calcudoku/tail_open"
    ));
    for (name, b) in open.into_iter().filter(|(n, _)| {
        ["board85", "board63", "board65"]
            .iter()
            .any(|f| n.ends_with(f))
    }) {
        g.bench_function(format!("default/{name}"), |bch| {
            bch.iter(|| black_box(solve(&b, Rungs::ALL, 2, 1_000_000)))
        });
    }
    g.finish();
}

criterion_group!(
    group,
    rung_benches,
    unique_benches,
    verifier_benches,
    cut_benches,
    generator_benches,
    tail_benches,
    tail_probe_everywhere_benches,
    tail_restart_benches,
    tail_1000_benches,
    balance_benches
);
criterion_main!(group);
