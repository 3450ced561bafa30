//! Sampler benches: Jacobson–Matthews moves (throughput in moves per second, one core), one
//! fixed-time draw, one naive backtracking square.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::latin::jm::JmChain;
use gridcensus::latin::samplers::{fixed_time, naive_square};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("latin_sampler");
    const MOVES: u64 = 100_000;
    for n in [5usize, 6, 7, 8] {
        g.throughput(Throughput::Elements(MOVES));
        g.bench_function(format!("jm_moves_order{n}"), |b| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            let mut chain = JmChain::cyclic(n);
            b.iter(|| {
                chain.run(MOVES, &mut rng);
                black_box(chain.is_proper())
            })
        });
    }
    g.throughput(Throughput::Elements(1));
    g.bench_function("fixed_time_draw_order8_T512", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut chain = JmChain::cyclic(8);
        b.iter(|| {
            black_box(fixed_time(&mut chain, 512, 100_000, &mut rng).unwrap());
            black_box(chain.intercalates())
        })
    });
    g.bench_function("naive_square_order8", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        b.iter(|| black_box(naive_square(8, &mut rng)))
    });
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
