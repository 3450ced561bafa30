//! Numbrix census benches: brute-force walk census (6×6, 7×7 on all threads), the frontier
//! counter (n×n sweeps, n = 8, 10, 12; 12 also with residue arithmetic), backbite moves per second, count_solutions.
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use gridcensus::engine::run::run_simple;
use gridcensus::numbrix::census::backbite::{Backbite, Variant};
use gridcensus::numbrix::census::census_job::{CensusJob, finish};
use gridcensus::numbrix::census::frontier;
use gridcensus::numbrix::census::walk::{self, Geometry};
use rand::SeedableRng;
use std::hint::black_box;

fn walk_census(c: &mut Criterion) {
    let mut g = c.benchmark_group("numbrix_walk_census");
    g.sample_size(10);
    g.bench_function("6x6_one_thread_no_symmetry", |b| {
        b.iter(|| black_box(walk::directed_paths(6, 6)))
    });
    // The census job restricted to squares/rectangles up to 36 resp. 49 cells (walk units use
    // start-orbit symmetry and prefix splitting); the frontier units of max side 6/7 are cheap.
    for (side, cells) in [(6usize, 36usize), (7, 49)] {
        g.bench_function(format!("job_walk_to_{cells}_cells_all_threads"), |b| {
            b.iter(|| {
                let job = CensusJob::new(side, cells).unwrap();
                black_box(finish(&run_simple(&job, None).unwrap()).unwrap())
            })
        });
    }
    for n in [6usize, 7] {
        g.bench_function(format!("{n}x{n}_all_threads"), |b| {
            b.iter(|| {
                let job = CensusJob::walk_only(n, n).unwrap();
                black_box(finish(&run_simple(&job, None).unwrap()).unwrap())
            })
        });
    }
    g.bench_function("7x7_one_start_orbit_corner", |b| {
        let geo = Geometry::new(7, 7);
        b.iter(|| black_box(walk::directed_from_prefix(&geo, &[0])))
    });
    g.finish();
}

fn frontier_counter(c: &mut Criterion) {
    let mut g = c.benchmark_group("numbrix_frontier");
    g.sample_size(10);
    for n in [8usize, 10, 12] {
        g.bench_function(format!("square_{n}"), |b| {
            b.iter(|| black_box(frontier::undirected_paths(n, n)))
        });
    }
    // The same sweep with residues modulo three primes (the arithmetic used past u128).
    g.bench_function("square_12_residues", |b| {
        b.iter(|| black_box(frontier::sweep_residues(12, 12).unwrap()))
    });
    g.finish();
}

fn backbite(c: &mut Criterion) {
    let mut g = c.benchmark_group("numbrix_backbite");
    for n in [5usize, 10] {
        for v in Variant::ALL {
            let moves = 16 * n * n;
            g.throughput(Throughput::Elements(moves as u64));
            g.bench_function(format!("{n}x{n}_{}_16_per_cell", v.name()), |b| {
                let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(9);
                b.iter(|| {
                    let mut bb = Backbite::snake(n, n);
                    for _ in 0..moves {
                        bb.step(&mut rng, v);
                    }
                    black_box(bb.turns())
                })
            });
        }
    }
    g.finish();
}

criterion_group!(group, walk_census, frontier_counter, backbite);
criterion_main!(group);
