//! The engine on a toy sampling job (no puzzle): determinism across thread counts and shard
//! splits, resume from a torn journal, and every refusal of a bad merge or resume.

use gridcensus::engine::run::{RunOptions, Shard, run};
use gridcensus::engine::shard::{merge_files, write_partial_file};
use gridcensus::engine::{Histogram, Job, JobSpec, Unit};
use gridcensus::error::InputError;
use rand::Rng;

/// Each unit draws 1000 values from its own stream and histograms them mod 17.
struct Toy {
    units: u64,
    seed: u64,
}

impl Job for Toy {
    type Partial = Histogram;
    fn spec(&self) -> JobSpec {
        JobSpec::new("toy", serde_json::json!({ "units": self.units }), self.seed)
    }
    fn unit_count(&self) -> u64 {
        self.units
    }
    fn run_unit(&self, unit: Unit) -> anyhow::Result<Histogram> {
        let mut rng = unit.rng();
        let mut h = Histogram::default();
        for _ in 0..1000 {
            h.add((rng.next_u64() % 17) as usize, 1);
        }
        // A record of which unit ran, so that order-dependence would show.
        h.add(17 + (unit.index as usize % 5), 1);
        Ok(h)
    }
}

fn total(job: &Toy, opts: &RunOptions) -> Histogram {
    run(job, opts).unwrap().total()
}

#[test]
fn same_result_at_any_thread_count() {
    let job = Toy {
        units: 200,
        seed: 42,
    };
    let one = total(
        &job,
        &RunOptions {
            threads: Some(1),
            ..Default::default()
        },
    );
    for t in [2, 3, 8] {
        assert_eq!(
            total(
                &job,
                &RunOptions {
                    threads: Some(t),
                    ..Default::default()
                }
            ),
            one,
            "threads {t}"
        );
    }
    assert_eq!(one.total(), 200 * 1001);
    let other_seed = total(
        &Toy {
            units: 200,
            seed: 43,
        },
        &RunOptions::default(),
    );
    assert_ne!(other_seed, one, "the master seed must matter");
}

#[test]
fn shards_merge_to_the_unsharded_total() {
    let dir = tempfile::tempdir().unwrap();
    let job = Toy {
        units: 101,
        seed: 7,
    };
    let whole = total(&job, &RunOptions::default());
    for n in [1u64, 2, 3, 7] {
        let mut files = Vec::new();
        for i in 0..n {
            let shard = Shard { index: i, count: n };
            let out = run(
                &job,
                &RunOptions {
                    shard,
                    threads: Some(2),
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(out.partials.len() as u64, shard.units(101).count() as u64);
            let path = dir.path().join(format!("p{n}-{i}.json"));
            write_partial_file(&path, &job.spec(), shard, out.units_total, out.partials).unwrap();
            files.push(path);
        }
        files.reverse(); // order of files must not matter
        let (_, _, merged) = merge_files::<Histogram>(&files).unwrap();
        assert_eq!(merged, whole, "{n} shards");
    }
}

fn is_input_error(e: &anyhow::Error) -> bool {
    e.downcast_ref::<InputError>().is_some()
}

#[test]
fn merge_refuses_missing_duplicate_mismatched_and_corrupt_partials() {
    let dir = tempfile::tempdir().unwrap();
    let write = |job: &Toy, i: u64, n: u64, name: &str| {
        let shard = Shard { index: i, count: n };
        let out = run(
            job,
            &RunOptions {
                shard,
                ..Default::default()
            },
        )
        .unwrap();
        let p = dir.path().join(name);
        write_partial_file(&p, &job.spec(), shard, out.units_total, out.partials).unwrap();
        p
    };
    let a = Toy { units: 10, seed: 1 };
    let b = Toy { units: 10, seed: 2 };
    let a0 = write(&a, 0, 2, "a0");
    let a1 = write(&a, 1, 2, "a1");
    let b1 = write(&b, 1, 2, "b1");
    let a0of3 = write(&a, 0, 3, "a0of3");
    let err = |files: &[std::path::PathBuf]| merge_files::<Histogram>(files).unwrap_err();

    let e = err(&[a0.clone()]);
    assert!(
        is_input_error(&e) && e.to_string().contains("missing"),
        "{e}"
    );
    let e = err(&[a0.clone(), a0.clone(), a1.clone()]);
    assert!(
        is_input_error(&e) && e.to_string().contains("duplicate"),
        "{e}"
    );
    let e = err(&[a0.clone(), b1.clone()]);
    assert!(
        is_input_error(&e) && e.to_string().contains("different jobs"),
        "{e}"
    );
    let e = err(&[a0.clone(), a0of3.clone()]);
    assert!(is_input_error(&e) && e.to_string().contains("split"), "{e}");

    let text = std::fs::read_to_string(&a1).unwrap();
    let torn = dir.path().join("torn");
    std::fs::write(&torn, &text[..text.len() / 2]).unwrap();
    let e = err(&[a0.clone(), torn]);
    assert!(
        is_input_error(&e) && e.to_string().contains("corrupt or truncated"),
        "{e}"
    );

    // A partial whose unit list was tampered with (a unit removed) is refused by its checksum;
    // with the checksum recomputed, by its unit list.
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["units"].as_array_mut().unwrap().pop();
    let short = dir.path().join("short");
    std::fs::write(&short, v.to_string()).unwrap();
    let e = err(&[a0.clone(), short.clone()]);
    assert!(
        is_input_error(&e) && e.to_string().contains("checksum"),
        "{e}"
    );
    v["checksum"] = serde_json::Value::String(gridcensus::engine::shard::fnv64(
        v["units"].to_string().as_bytes(),
    ));
    std::fs::write(&short, v.to_string()).unwrap();
    let e = err(&[a0.clone(), short]);
    assert!(
        is_input_error(&e) && e.to_string().contains("exactly its"),
        "{e}"
    );

    let (_, _, ok) = merge_files::<Histogram>(&[a1, a0]).unwrap();
    assert_eq!(ok, total(&a, &RunOptions::default()));
}

#[test]
fn resume_continues_a_torn_journal_and_refuses_other_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("j.jsonl");
    let job = Toy { units: 50, seed: 9 };
    let whole = total(&job, &RunOptions::default());
    let opts = RunOptions {
        journal: Some(journal.clone()),
        threads: Some(2),
        ..Default::default()
    };
    run(&job, &opts).unwrap();

    // Simulate a kill: keep the header and 20 units, then half a line.
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 51);
    let mut cut = lines[..21].join("\n") + "\n";
    cut.push_str(&lines[21][..lines[21].len() / 2]);
    std::fs::write(&journal, cut).unwrap();

    let resumed = run(
        &job,
        &RunOptions {
            resume: true,
            ..opts.clone()
        },
    )
    .unwrap();
    assert_eq!(resumed.units_resumed, 20);
    assert_eq!(resumed.total(), whole);

    // Other parameters: refused, and the journal is left as it was.
    let before = std::fs::read(&journal).unwrap();
    let other = Toy {
        units: 50,
        seed: 10,
    };
    let e = run(
        &other,
        &RunOptions {
            resume: true,
            ..opts.clone()
        },
    )
    .err()
    .unwrap();
    assert!(
        is_input_error(&e) && e.to_string().contains("cannot resume"),
        "{e}"
    );
    assert_eq!(std::fs::read(&journal).unwrap(), before);
}

#[test]
fn shard_and_thread_arguments_are_validated() {
    assert!("3/2".parse::<Shard>().is_err());
    assert!("0/0".parse::<Shard>().is_err());
    assert!("a/2".parse::<Shard>().is_err());
    assert_eq!(
        "1/4".parse::<Shard>().unwrap(),
        Shard { index: 1, count: 4 }
    );
    let e = run(
        &Toy { units: 3, seed: 0 },
        &RunOptions {
            threads: Some(0),
            ..Default::default()
        },
    )
    .err()
    .unwrap();
    assert!(is_input_error(&e));
}

#[test]
fn a_failing_unit_aborts_the_run() {
    struct Bad;
    impl Job for Bad {
        type Partial = Histogram;
        fn spec(&self) -> JobSpec {
            JobSpec::new("bad", serde_json::json!({}), 0)
        }
        fn unit_count(&self) -> u64 {
            20
        }
        fn run_unit(&self, unit: Unit) -> anyhow::Result<Histogram> {
            if unit.index == 13 {
                anyhow::bail!("unit 13 failed")
            } else {
                Ok(Histogram::default())
            }
        }
    }
    let e = run(&Bad, &RunOptions::default()).err().unwrap();
    assert!(e.to_string().contains("unit 13 failed"));
}
