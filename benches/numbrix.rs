//! Numbrix solver benches on the shipped bank (examples/numbrix/bank, `make bank`):
//! * `numbrix_rung/<rung>/<s>x<s>`: one call of each rung on every bank board of that size,
//!   from the state with the printed numbers placed and pin+link run to a fixpoint (so each rung
//!   has real candidates to work on); throughput in boards.
//! * `numbrix_decide/<s>x<s>`: the full uniqueness decision (search, cap 2, with the decision
//!   ladder pin+link+edge at every node) of every bank board of that size; throughput in
//!   boards/s. `numbrix_decide/full_ladder/<s>x<s>`: the same with the whole default ladder.
//! * `numbrix_decide_10x10/<file>`: each 10×10 bank board on its own, for the median decision.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::numbrix::bank::read_bank;
use gridcensus::numbrix::board::Board;
use gridcensus::numbrix::ladder::{Ctx, Rung, Rungs, State, Work, climb, run_once};
use gridcensus::numbrix::search::{self, Limits};
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

criterion_group!(group, benches);
criterion_main!(group);
