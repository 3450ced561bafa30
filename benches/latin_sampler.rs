//! Sampler benches: Jacobson–Matthews moves (throughput in moves per second, one core), one
//! fixed-time draw, one naive backtracking square; and, in the same run, squares per second of
//! our unbiased readers (fixed-time T = n³, thinned k = n) against the peer crate
//! `latin-sampler` (its iterator mode, n³ burn-in then 3n² steps per square, and its one-shot
//! `sample`, a fresh chain of n³ steps per square) at orders 6–8. Both sides use Xoshiro256++.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::latin::jm::JmChain;
use gridcensus::latin::samplers::{fixed_time, naive_square};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;
use std::time::Duration;

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

/// Squares per second (throughput: one square per iteration), ours against the peer crate.
fn versus_peer(c: &mut Criterion) {
    use rand_09::SeedableRng as _;
    let mut g = c.benchmark_group("latin_vs_peer");
    g.throughput(Throughput::Elements(1));
    g.measurement_time(Duration::from_secs(4));
    g.sample_size(30);
    for n in [6usize, 7, 8] {
        let n3 = (n * n * n) as u64;
        g.bench_function(format!("ours_fixed_time_T=n^3_order{n}"), |b| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(10 + n as u64);
            let mut chain = JmChain::cyclic(n);
            b.iter(|| {
                black_box(fixed_time(&mut chain, n3, 100_000, &mut rng).unwrap());
                black_box(chain.intercalates())
            })
        });
        g.bench_function(format!("ours_thinned_k=n_order{n}"), |b| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(20 + n as u64);
            let mut chain = JmChain::cyclic(n);
            chain.run(10 * n3, &mut rng);
            b.iter(|| {
                let mut seen = 0;
                while seen < n {
                    chain.step(&mut rng);
                    seen += chain.is_proper() as usize;
                }
                black_box(chain.intercalates())
            })
        });
        g.bench_function(format!("peer_iterator_order{n}"), |b| {
            let rng = rand_09::rngs::SmallRng::seed_from_u64(30 + n as u64);
            let mut sampler =
                latin_sampler::Sampler::new(n, rng, latin_sampler::SamplerParams::default());
            black_box(sampler.next()); // the burn-in
            b.iter(|| black_box(sampler.next().unwrap()))
        });
        g.bench_function(format!("peer_one_shot_order{n}"), |b| {
            let mut rng = rand_09::rngs::SmallRng::seed_from_u64(40 + n as u64);
            let params = latin_sampler::SamplerParams::default();
            b.iter(|| black_box(latin_sampler::sample(n, &mut rng, &params)))
        });
    }
    g.finish();
}

criterion_group!(group, benches, versus_peer);
criterion_main!(group);
