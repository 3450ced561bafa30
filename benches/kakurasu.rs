//! Kakurasu benches: each rule set's fixpoint per size, full unique solves (search with
//! enumeration, capped at 2) per size, and the independent row verifier. Each iteration runs a
//! fixed set of generated unique boards, so criterion's throughput is boards per second.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::kakurasu::Board;
use gridcensus::kakurasu::generate::unique_board;
use gridcensus::kakurasu::rules::{RuleSet, State, fixpoint};
use gridcensus::kakurasu::search::count;
use gridcensus::kakurasu::verify::count_solutions_by_rows;
use rand::SeedableRng;
use std::hint::black_box;
use std::time::Duration;

const BOARDS: usize = 32;

fn boards(n: usize) -> Vec<Board> {
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(1000 + n as u64);
    (0..BOARDS)
        .map(|_| unique_board(n, &mut rng, 100_000).unwrap().board)
        .collect()
}

fn benches(c: &mut Criterion) {
    let sets: Vec<(usize, Vec<Board>)> = (4..=9).map(|n| (n, boards(n))).collect();
    for rule in [RuleSet::Intervals, RuleSet::Enumeration] {
        let mut g = c.benchmark_group(format!("kakurasu_fixpoint_{rule}"));
        g.throughput(Throughput::Elements(BOARDS as u64));
        for (n, bs) in &sets {
            g.bench_with_input(BenchmarkId::from_parameter(n), bs, |b, bs| {
                b.iter(|| {
                    for board in bs {
                        black_box(fixpoint(board, State::empty(board.n), rule));
                    }
                })
            });
        }
        g.finish();
    }
    let mut g = c.benchmark_group("kakurasu_unique_solve");
    g.throughput(Throughput::Elements(BOARDS as u64));
    for (n, bs) in &sets {
        g.bench_with_input(BenchmarkId::from_parameter(n), bs, |b, bs| {
            b.iter(|| {
                for board in bs {
                    assert_eq!(count(board, RuleSet::Enumeration, 2).count, 1);
                }
            })
        });
    }
    g.finish();
    // The verifier sweeps row candidates with pruning only: about 1 s per 9×9 board (measured
    // once: 36.8 s for the 32 boards), too slow for a criterion group, so sizes 4..8 here.
    let mut g = c.benchmark_group("kakurasu_verifier");
    g.throughput(Throughput::Elements(BOARDS as u64));
    for (n, bs) in sets.iter().filter(|(n, _)| *n <= 8) {
        g.bench_with_input(BenchmarkId::from_parameter(n), bs, |b, bs| {
            b.iter(|| {
                for board in bs {
                    assert_eq!(count_solutions_by_rows(&board.rows, &board.cols, 2), 1);
                }
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = group;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(group);
