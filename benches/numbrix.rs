//! Numbrix solver benches on the shipped bank (examples/numbrix/bank, `make bank`):
//! * `numbrix_rung/<rung>/<s>x<s>`: one call of each rung on every bank board of that size,
//!   from the state with the printed numbers placed and pin+link run to a fixpoint (so each rung
//!   has real candidates to work on); throughput in boards.
//! * `numbrix_decide/<s>x<s>`: the full uniqueness decision (search, cap 2, with the decision
//!   ladder pin+link+edge at every node) of every bank board of that size; throughput in
//!   boards/s. `numbrix_decide/full_ladder/<s>x<s>`: the same with the whole default ladder.
//! * `numbrix_decide_10x10/<file>`: each 10×10 bank board on its own, for the median decision.
//! * `numbrix_sparse/<s>x<s>/<factor>`: the walk search's decision (cap 2, default node cap) of
//!   20 random reveals at 1, 0.75 and 0.5 of the bank's clue density (the sparse study's boards,
//!   drawn here from a fixed seed); throughput in boards. `numbrix_sparse/second/<s>x<s>/<factor>`:
//!   the scan for a second answer next to the walk's first answer on the same boards.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::numbrix::bank::read_bank;
use gridcensus::numbrix::board::Board;
use gridcensus::numbrix::ladder::{Ctx, Rung, Rungs, State, Work, climb, run_once};
use gridcensus::numbrix::search::{self, Limits};
use gridcensus::numbrix::second;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

fn by_size() -> Vec<(usize, Vec<(String, Board)>)> {
    let bank = read_bank(Path::new("examples/numbrix/bank")).expect("run `make bank` first");
    let mut out: Vec<(usize, Vec<(String, Board)>)> = Vec::new();
    for (name, b) in bank {
        match out.iter_mut().find(|e| e.0 == b.rows) {
            Some(e) => e.1.push((name, b)),
            None => out.push((b.rows, vec![(name, b)])),
        }
    }
    out.sort_by_key(|e| e.0);
    out
}

fn benches(c: &mut Criterion) {
    let sizes = by_size();
    let limits = Limits {
        cap: 2,
        node_cap: 10_000_000,
    };
    let mut g = c.benchmark_group("numbrix_rung");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300));
    for (s, boards) in &sizes {
        let prepared: Vec<(Ctx, State)> = boards
            .iter()
            .map(|(_, b)| {
                let ctx = Ctx::of(b);
                let mut st = State::new(b).unwrap();
                climb(&ctx, &mut st, Rungs(0b00_0011), &mut Work::default());
                (ctx, st)
            })
            .collect();
        g.throughput(Throughput::Elements(prepared.len() as u64));
        for r in Rung::all() {
            g.bench_function(format!("{}/{s}x{s}", r.name()), |bch| {
                bch.iter(|| {
                    let mut w = Work::default();
                    for (ctx, st) in &prepared {
                        let mut t = st.clone();
                        black_box(run_once(r, ctx, &mut t, Rungs::DEFAULT, &mut w).is_ok());
                    }
                })
            });
        }
    }
    g.finish();
    let mut g = c.benchmark_group("numbrix_decide");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300));
    for (s, boards) in &sizes {
        let ctxs: Vec<Ctx> = boards.iter().map(|(_, b)| Ctx::of(b)).collect();
        g.throughput(Throughput::Elements(boards.len() as u64));
        g.bench_function(format!("{s}x{s}"), |bch| {
            bch.iter(|| {
                for ((_, b), ctx) in boards.iter().zip(&ctxs) {
                    black_box(search::count_in(ctx, b, Rungs::DECIDE, limits).count);
                }
            })
        });
        g.bench_function(format!("full_ladder/{s}x{s}"), |bch| {
            bch.iter(|| {
                for ((_, b), ctx) in boards.iter().zip(&ctxs) {
                    black_box(search::count_in(ctx, b, Rungs::DEFAULT, limits).count);
                }
            })
        });
    }
    g.finish();
    let mut g = c.benchmark_group("numbrix_decide_10x10");
    g.sample_size(10)
        .measurement_time(Duration::from_millis(500))
        .warm_up_time(Duration::from_millis(200));
    if let Some((_, boards)) = sizes.iter().find(|e| e.0 == 10) {
        for (name, b) in boards {
            let ctx = Ctx::of(b);
            let file = Path::new(name)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            g.bench_function(file, |bch| {
                bch.iter(|| black_box(search::count_in(&ctx, b, Rungs::DECIDE, limits).count))
            });
        }
    }
    g.finish();
}

fn sparse(c: &mut Criterion) {
    use gridcensus::numbrix::generate::board_of;
    use gridcensus::numbrix::path;
    use gridcensus::numbrix::studies::{BANK_DENSITY, SPARSE_FACTORS};
    use rand::SeedableRng;
    use rand::seq::SliceRandom;
    let mut g = c.benchmark_group("numbrix_sparse");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for s in [8usize, 10, 12] {
        let ctx = Ctx::new(s, s);
        for f in SPARSE_FACTORS {
            let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(s as u64);
            let boards: Vec<Board> = (0..20)
                .map(|_| {
                    let ans = path::random_answer(s, s, 16, &mut rng);
                    let k = ((s * s) as f64 * BANK_DENSITY * f).round() as usize;
                    let mut order: Vec<usize> = (0..s * s).collect();
                    order.shuffle(&mut rng);
                    let mut mask = vec![false; s * s];
                    for &c in &order[..k] {
                        mask[c] = true;
                    }
                    board_of(&ctx, &ans, &mask)
                })
                .collect();
            g.throughput(Throughput::Elements(boards.len() as u64));
            g.bench_function(format!("{s}x{s}/{f}"), |b| {
                b.iter(|| {
                    for bd in &boards {
                        black_box(search::count_in(&ctx, bd, Rungs::DECIDE, Limits::default()));
                    }
                })
            });
            // The scan for a second answer next to a first one (the walk's first answers).
            let firsts: Vec<(&Board, Vec<u32>)> = boards
                .iter()
                .filter_map(|bd| {
                    let lim = Limits {
                        cap: 1,
                        ..Limits::default()
                    };
                    let v = search::count_in(&ctx, bd, Rungs::DECIDE, lim);
                    v.answers.into_iter().next().map(|a| (bd, a))
                })
                .collect();
            g.throughput(Throughput::Elements(firsts.len() as u64));
            g.bench_function(format!("second/{s}x{s}/{f}"), |b| {
                b.iter(|| {
                    for (bd, a) in &firsts {
                        black_box(second::second_answer(&ctx.geo, bd, a, search::LOCAL_NODES));
                    }
                })
            });
        }
    }
    g.finish();
}

criterion_group!(group, benches, sparse);
criterion_main!(group);
