//! Census benches: the whole order-7 census (all threads, and one thread), one order-8 work unit
//! (a 3-row rectangle class: the automatically chosen kernel, and the portable scalar kernel for
//! comparison), and the construction of the order-8 job (candidate lists and rectangle classes).
use criterion::{Criterion, criterion_group, criterion_main};
use gridcensus::engine::{Job, Unit, run::run_simple};
use gridcensus::latin::census::{CensusJob, Kernel};
use std::hint::black_box;

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("latin_census");
    g.sample_size(10);
    g.bench_function("order7_all_threads", |b| {
        b.iter(|| {
            let job = CensusJob::new(7).unwrap();
            black_box(run_simple(&job, None).unwrap())
        })
    });
    g.bench_function("order7_one_thread", |b| {
        b.iter(|| {
            let job = CensusJob::new(7).unwrap();
            black_box(run_simple(&job, Some(1)).unwrap())
        })
    });
    let job8 = CensusJob::new(8).unwrap();
    let mid = job8.unit_count() / 2;
    let unit = Unit {
        index: mid,
        master_seed: 0,
    };
    g.bench_function("order8_one_unit", |b| {
        b.iter(|| black_box(job8.run_unit(unit).unwrap()))
    });
    let scalar8 = CensusJob::new(8)
        .unwrap()
        .with_kernel(Kernel::Scalar)
        .unwrap();
    g.bench_function("order8_one_unit_scalar", |b| {
        b.iter(|| black_box(scalar8.run_unit(unit).unwrap()))
    });
    g.bench_function("order8_job_construction", |b| {
        b.iter(|| black_box(CensusJob::new(8).unwrap().unit_count()))
    });
    g.finish();
}

criterion_group!(group, benches);
criterion_main!(group);
