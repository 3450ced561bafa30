//! The exact Latin census, held to an independent brute-force enumerator (orders 1–6), to OEIS
//! and the write-up (orders 1–7), and the engine's promises exercised through the binary:
//! thread-count and shard invariance, kill-and-resume, and refusal of bad input.

use gridcensus::engine::run::run_simple;
use gridcensus::engine::{Histogram, Job, Partial};
use gridcensus::latin::census::{CensusJob, Kernel, cycle_classes};
use gridcensus::latin::wide::{Row, compatible_rows, count_completions, next_first_symbol};
use gridcensus::reference::{
    A000315_REDUCED_LATIN, A092237_MAX_INTERCALATES, A368182_DISTINCT_COUNTS, WRITEUP_LATIN_TABLE,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------------------------
// An independent enumerator: plain cell-by-cell backtracking over every reduced square (first
// row and first column 0..n), intercalates counted by a quadruple loop. Shares no code with
// src/latin/census.rs.
// ---------------------------------------------------------------------------------------------

fn brute_force_histogram(n: usize) -> Vec<u64> {
    let mut grid = vec![vec![0usize; n]; n];
    for (i, row) in grid.iter_mut().enumerate() {
        row[0] = i;
    }
    grid[0] = (0..n).collect();
    let mut hist = Vec::new();
    fill(n, 1, 1, &mut grid, &mut hist);
    if n == 1 {
        hist = vec![1];
    }
    while hist.last() == Some(&0) {
        hist.pop();
    }
    hist
}

fn fill(n: usize, r: usize, c: usize, grid: &mut Vec<Vec<usize>>, hist: &mut Vec<u64>) {
    if r == n {
        let k = count_intercalates(grid);
        if hist.len() <= k {
            hist.resize(k + 1, 0);
        }
        hist[k] += 1;
        return;
    }
    let (nr, nc) = if c + 1 == n { (r + 1, 1) } else { (r, c + 1) };
    for s in 0..n {
        let clash = (0..c).any(|j| grid[r][j] == s) || (0..r).any(|i| grid[i][c] == s);
        if !clash {
            grid[r][c] = s;
            fill(n, nr, nc, grid, hist);
        }
    }
}

fn count_intercalates(g: &[Vec<usize>]) -> usize {
    let n = g.len();
    let mut k = 0;
    for r1 in 0..n {
        for r2 in r1 + 1..n {
            for c1 in 0..n {
                for c2 in c1 + 1..n {
                    if g[r1][c1] == g[r2][c2] && g[r1][c2] == g[r2][c1] {
                        k += 1;
                    }
                }
            }
        }
    }
    k
}

fn census(n: usize, threads: Option<usize>) -> Histogram {
    let job = CensusJob::new(n).unwrap();
    job.finish(run_simple(&job, threads).unwrap()).unwrap()
}

#[test]
fn brute_force_sanity() {
    // The enumerator itself, against OEIS, before it is used as a yardstick.
    for n in 1..=6 {
        let h = brute_force_histogram(n);
        assert_eq!(
            h.iter().map(|&c| c as u128).sum::<u128>(),
            A000315_REDUCED_LATIN[n]
        );
        assert_eq!(h.len() as u64 - 1, A092237_MAX_INTERCALATES[n], "order {n}");
    }
    // Order 4: the Klein four-group table has 12 intercalates, the three cyclic tables 4 each.
    assert_eq!(
        brute_force_histogram(4),
        vec![0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 1]
    );
}

#[test]
fn exact_histograms_orders_1_to_6_match_brute_force() {
    for n in 1..=6 {
        assert_eq!(census(n, Some(2)).0, brute_force_histogram(n), "order {n}");
    }
}

#[test]
fn orders_1_to_7_match_oeis_and_the_writeup() {
    for n in 1..=7 {
        let h = census(n, None);
        assert_eq!(h.total(), A000315_REDUCED_LATIN[n], "A000315({n})");
        assert_eq!(
            h.0.len() as u64 - 1,
            A092237_MAX_INTERCALATES[n],
            "A092237({n})"
        );
        let distinct = h.0.iter().filter(|&&c| c > 0).count() as u64;
        assert_eq!(distinct, A368182_DISTINCT_COUNTS[n], "A368182({n})");
    }
    for &(n, mean, share_pct, max) in &WRITEUP_LATIN_TABLE {
        let h = census(n, None);
        let total = h.total() as f64;
        let sum: f64 =
            h.0.iter()
                .enumerate()
                .map(|(k, &c)| k as f64 * c as f64)
                .sum();
        assert_eq!(
            format!("{:.3}", sum / total),
            format!("{mean:.3}"),
            "mean, order {n}"
        );
        let share = 100.0 * h.0[0] as f64 / total;
        assert_eq!(
            format!("{share:.2}"),
            format!("{share_pct:.2}"),
            "share, order {n}"
        );
        assert_eq!(h.0.len() as u64 - 1, max);
    }
}

/// Census units of order n, in the census job's unit order, each as the three fixed rows of its
/// representative rectangle (identity, cycle-type representative, row 2) and its weight.
fn rectangle_units(job: &CensusJob) -> Vec<(Vec<Row>, u64)> {
    let n = job.order();
    (0..job.unit_count())
        .map(|i| {
            let (rows, w) = job.unit_rectangle(i).expect("a unit rectangle");
            (rows.iter().map(|r| Row::new(n, r)).collect(), w)
        })
        .collect()
}

fn wide_unit_histogram(n: usize, rows: &[Row], weight: u64) -> Histogram {
    let mut h = Histogram::default();
    for (k, &c) in count_completions(n, rows).iter().enumerate() {
        if c > 0 {
            h.add(k, c * weight);
        }
    }
    h
}

/// The scalar kernel, the SIMD kernel (when the CPU has it) and the independent wide kernel
/// agree unit by unit on every unit of orders 3–7 and on a spread sample of order-8 units.
#[test]
fn census_kernels_agree_unit_by_unit() {
    let simd = CensusJob::new(3).unwrap().kernel() == Kernel::Avx2;
    if !simd {
        eprintln!(
            "NOTE: this CPU lacks AVX2/SSSE3/POPCNT: the SIMD kernel is NOT tested here; \
             the scalar kernel is held to the independent wide kernel only"
        );
    }
    for n in 3..=8usize {
        let scalar = CensusJob::new(n)
            .unwrap()
            .with_kernel(Kernel::Scalar)
            .unwrap();
        let auto = CensusJob::new(n).unwrap();
        let wide = rectangle_units(&scalar);
        assert!(scalar.unit_rectangle(scalar.unit_count()).is_none());
        let row1 = |i: u64| scalar.unit_rectangle(i).unwrap().0[1].clone();
        let units: Vec<u64> = if n < 8 {
            (0..scalar.unit_count()).collect()
        } else {
            // Every 20th unit, the last, and the first unit of every row-1 cycle type that
            // represents a class (a class is represented by its member of the earliest type).
            let mut v: Vec<u64> = (0..scalar.unit_count())
                .step_by(20)
                .chain([scalar.unit_count() - 1])
                .chain((1..scalar.unit_count()).filter(|&i| row1(i) != row1(i - 1)))
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let all_types: std::collections::BTreeSet<Vec<u8>> =
            (0..scalar.unit_count()).map(row1).collect();
        let sampled: std::collections::BTreeSet<Vec<u8>> = units.iter().map(|&i| row1(i)).collect();
        assert_eq!(sampled, all_types, "n={n}: the sample misses a cycle type");
        for &i in &units {
            let unit = gridcensus::engine::Unit {
                index: i,
                master_seed: 0,
            };
            let s = scalar.run_unit(unit).unwrap();
            if simd {
                assert_eq!(
                    s,
                    auto.run_unit(unit).unwrap(),
                    "scalar vs SIMD, n={n} unit {i}"
                );
            }
            let (rows, w) = &wide[i as usize];
            assert_eq!(
                s,
                wide_unit_histogram(n, rows, *w),
                "census vs wide, n={n} unit {i}"
            );
        }
    }
}

/// The whole census by rectangle classes equals the wide kernel's census by (cycle type, row 2
/// from the leading first-symbol group), which uses no class reduction, at orders 3–7.
#[test]
fn class_census_equals_the_wide_census_without_classes() {
    for n in 3..=7usize {
        let id: Vec<u8> = (0..n as u8).collect();
        let mut weighted = Histogram::default();
        for class in cycle_classes(n) {
            let fixed = vec![Row::new(n, &id), Row::new(n, &class.representative)];
            let f = next_first_symbol(n, &fixed).unwrap();
            for row2 in compatible_rows(n, &fixed, Some(f)) {
                let mut rows = fixed.clone();
                rows.push(row2);
                weighted.merge(wide_unit_histogram(n, &rows, class.derangements));
            }
        }
        let want: Vec<u64> = weighted
            .0
            .iter()
            .map(|&c| {
                assert_eq!(c % (n as u64 - 1), 0);
                c / (n as u64 - 1)
            })
            .collect();
        let mut want = want;
        while want.last() == Some(&0) {
            want.pop();
        }
        assert_eq!(census(n, Some(2)).0, want, "order {n}");
    }
}

/// Every rectangle (identity, representative, row 2) belongs to a class whose representative has
/// the same completion histogram (wide kernel): all pairs at orders 3–6, a spread sample at 7.
#[test]
fn class_members_have_the_representatives_completions() {
    for n in 3..=7usize {
        let job = CensusJob::new(n).unwrap();
        let reps = rectangle_units(&job);
        let rep_counts: Vec<Vec<u64>> = reps.iter().map(|(r, _)| count_completions(n, r)).collect();
        let id: Vec<u8> = (0..n as u8).collect();
        let mut checked = 0;
        for (t, class) in cycle_classes(n).iter().enumerate() {
            let fixed = vec![Row::new(n, &id), Row::new(n, &class.representative)];
            let rows = compatible_rows(n, &fixed, None);
            let step = if n < 7 { 1 } else { 7 };
            for row2 in rows.iter().step_by(step) {
                let u = job
                    .unit_of_rectangle(t, &row2.symbols(n))
                    .expect("every compatible row is in a class");
                let mut rect = fixed.clone();
                rect.push(*row2);
                assert_eq!(
                    count_completions(n, &rect),
                    rep_counts[u as usize],
                    "order {n}, type {t}, row 2 {:?} vs unit {u}",
                    row2.symbols(n)
                );
                checked += 1;
            }
        }
        assert!(
            checked > reps.len() || n < 5,
            "order {n}: {checked} members checked"
        );
        // A row that repeats a symbol of row 0 in some column is in no class.
        assert_eq!(job.unit_of_rectangle(0, &id), None);
    }
}

/// The class weights add up to the number of (derangement, compatible row) pairs:
/// Σ_types N(type) · #rows(type), the rows counted by the wide kernel's enumeration.
#[test]
fn class_weights_sum_to_the_derangement_row_pairs() {
    for n in 3..=8usize {
        let job = CensusJob::new(n).unwrap();
        let id: Vec<u8> = (0..n as u8).collect();
        let pairs: u64 = cycle_classes(n)
            .iter()
            .map(|c| {
                let fixed = [Row::new(n, &id), Row::new(n, &c.representative)];
                c.derangements * compatible_rows(n, &fixed, None).len() as u64
            })
            .sum();
        let weights: u64 = (0..job.unit_count())
            .map(|i| job.unit_rectangle(i).unwrap().1)
            .sum();
        assert_eq!(weights, pairs, "order {n}");
    }
    // The unit counts this decomposition gives (one per isotopy class of 3-row rectangles).
    let counts: Vec<u64> = (3..=8)
        .map(|n| CensusJob::new(n).unwrap().unit_count())
        .collect();
    assert_eq!(counts, [1, 2, 3, 16, 56, 370]);
}

// ---------------------------------------------------------------------------------------------
// The binary.
// ---------------------------------------------------------------------------------------------

const BIN: &str = env!("CARGO_BIN_EXE_gridcensus");

fn gc(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run gridcensus")
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn census_run(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["latin", "census", "--no-progress", "--results", p(dir)];
    args.extend_from_slice(extra);
    gc(&args)
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    if !dir.exists() {
        return out;
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Bad input: exit code 2, a one-line message, and the results directory untouched.
fn refused(dir: &Path, args: &[&str], what: &str) {
    let before = snapshot(dir);
    let out = gc(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{what}: expected exit 2, stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.trim().is_empty(), "{what}: no message");
    assert_eq!(
        snapshot(dir),
        before,
        "{what}: files were written or changed"
    );
}

#[test]
fn same_bytes_at_1_and_2_threads() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    ok(&census_run(
        a.path(),
        &["--orders", "1-7", "--threads", "1"],
    ));
    ok(&census_run(
        b.path(),
        &["--orders", "1-7", "--threads", "2"],
    ));
    for f in ["latin_census.csv", "latin_census_summary.csv"] {
        let (x, y) = (read(&a.path().join(f)), read(&b.path().join(f)));
        assert_eq!(x, y, "{f}");
        assert!(x.len() > 100);
    }
}

#[test]
fn three_shards_merged_equal_an_unsharded_run_and_bad_merges_are_refused() {
    let whole = tempfile::tempdir().unwrap();
    ok(&census_run(whole.path(), &["--orders", "6"]));
    let sh = tempfile::tempdir().unwrap();
    for i in 0..3 {
        let shard = format!("{i}/3");
        ok(&census_run(
            sh.path(),
            &["--orders", "6", "--shard", &shard],
        ));
    }
    // A shard writes only its partial file, no result.
    assert!(!sh.path().join("latin_census.csv").exists());
    let parts = files_in(&sh.path().join("partials"));
    assert_eq!(parts.len(), 3, "{parts:?}");
    let merged = tempfile::tempdir().unwrap();
    let mut args = vec!["merge", "--results", p(merged.path())];
    args.extend(parts.iter().map(|f| p(f)));
    ok(&gc(&args));
    for f in ["latin_census.csv", "latin_census_summary.csv"] {
        assert_eq!(
            read(&merged.path().join(f)),
            read(&whole.path().join(f)),
            "{f}"
        );
    }

    // Refusals write nothing: the merged results stay as they are.
    let out = merged.path();
    let (p0, p1, p2) = (p(&parts[0]), p(&parts[1]), p(&parts[2]));
    refused(
        out,
        &["merge", "--results", p(out), p0, p1],
        "missing shard",
    );
    refused(
        out,
        &["merge", "--results", p(out), p0, p0, p1, p2],
        "duplicate shard",
    );
    // A truncated partial file, and a corrupt one (valid JSON framing, garbage inside).
    let bad = tempfile::tempdir().unwrap();
    let text = read(&parts[1]);
    let truncated = bad.path().join("truncated.json");
    std::fs::write(&truncated, &text[..text.len() / 2]).unwrap();
    refused(
        out,
        &["merge", "--results", p(out), p0, p(&truncated), p2],
        "truncated partial",
    );
    let corrupt = bad.path().join("corrupt.json");
    let s = String::from_utf8(text.clone()).unwrap();
    std::fs::write(&corrupt, s.replacen("\"units\":[", "\"units\":[\"x\",", 1)).unwrap();
    refused(
        out,
        &["merge", "--results", p(out), p0, p(&corrupt), p2],
        "corrupt partial",
    );
    let garbage = bad.path().join("garbage.json");
    std::fs::write(&garbage, b"not json at all\n").unwrap();
    refused(
        out,
        &["merge", "--results", p(out), p(&garbage)],
        "garbage partial",
    );
    // Partials from different jobs: order 5 and order 6.
    let other = tempfile::tempdir().unwrap();
    ok(&census_run(
        other.path(),
        &["--orders", "5", "--shard", "1/3"],
    ));
    let p5 = files_in(&other.path().join("partials"));
    refused(
        out,
        &["merge", "--results", p(out), p0, p(&p5[0]), p2],
        "order 5 with order 6",
    );
    // The same job split two ways: 1/3 of order 6 next to 0/2 of order 6.
    let two = tempfile::tempdir().unwrap();
    ok(&census_run(
        two.path(),
        &["--orders", "6", "--shard", "0/2"],
    ));
    let half = files_in(&two.path().join("partials"));
    refused(
        out,
        &["merge", "--results", p(out), p(&half[0]), p1],
        "mixed shard counts",
    );
}

#[test]
fn bad_arguments_exit_2_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    ok(&census_run(dir.path(), &["--orders", "1-5"]));
    let d = p(dir.path());
    let base = ["latin", "census", "--no-progress", "--results", d];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        let mut v = base.to_vec();
        v.extend_from_slice(extra);
        v
    };
    refused(dir.path(), &with(&["--orders", "0"]), "--orders 0");
    refused(dir.path(), &with(&["--orders", "20"]), "--orders 20");
    refused(dir.path(), &with(&["--orders", "10"]), "--orders 10");
    refused(dir.path(), &with(&["--orders", "3-x"]), "--orders 3-x");
    refused(
        dir.path(),
        &with(&["--orders", "6", "--shard", "3/2"]),
        "--shard 3/2",
    );
    refused(
        dir.path(),
        &with(&["--orders", "6", "--shard", "0/0"]),
        "--shard 0/0",
    );
    refused(
        dir.path(),
        &with(&["--orders", "6", "--threads", "0"]),
        "--threads 0",
    );
    refused(
        dir.path(),
        &with(&["--orders", "5-6", "--shard", "0/2"]),
        "two orders, one shard",
    );
    // A malformed existing result table is refused before any work, and left as it is.
    std::fs::write(
        dir.path().join("latin_census.csv"),
        b"order,intercalates\n1,0\n",
    )
    .unwrap();
    refused(
        dir.path(),
        &with(&["--orders", "4"]),
        "malformed latin_census.csv",
    );
}

/// The journal of a shard run (default location under the results directory).
fn journal_of(dir: &Path) -> Option<PathBuf> {
    let j = dir.join(".journal");
    if !j.exists() {
        return None;
    }
    files_in(&j)
        .into_iter()
        .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
}

fn lines(path: &Path) -> usize {
    std::fs::read(path)
        .map(|b| b.iter().filter(|&&c| c == b'\n').count())
        .unwrap_or(0)
}

#[test]
fn killed_run_resumes_to_identical_bytes_and_refuses_other_parameters() {
    // A job of a second or more on one thread: one shard of order 8.
    let shard = ["--orders", "8", "--shard", "0/4", "--threads", "1"];
    let reference = tempfile::tempdir().unwrap();
    ok(&census_run(reference.path(), &shard));
    let want = files_in(&reference.path().join("partials"));
    assert_eq!(want.len(), 1);
    let want_bytes = read(&want[0]);

    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args([
            "latin",
            "census",
            "--no-progress",
            "--results",
            p(dir.path()),
        ])
        .args(shard)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a few units are journaled (header + 3 lines), then SIGKILL the child.
    let start = Instant::now();
    let journal = loop {
        if let Some(j) = journal_of(dir.path())
            && lines(&j) >= 4
        {
            break j;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child finished before it could be killed"
        );
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no journal lines"
        );
        std::thread::sleep(Duration::from_millis(2));
    };
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    assert!(lines(&journal) >= 4);
    assert!(
        !dir.path().join("partials").exists() || files_in(&dir.path().join("partials")).is_empty(),
        "a killed run wrote its partial"
    );

    // Resuming with other parameters is refused and leaves the journal as it is.
    let jp = p(&journal).to_string();
    refused(
        dir.path(),
        &[
            "latin",
            "census",
            "--no-progress",
            "--results",
            p(dir.path()),
            "--orders",
            "7",
            "--resume",
            "--journal",
            &jp,
        ],
        "resume with another order",
    );
    refused(
        dir.path(),
        &[
            "latin",
            "census",
            "--no-progress",
            "--results",
            p(dir.path()),
            "--orders",
            "8",
            "--shard",
            "1/50",
            "--resume",
            "--journal",
            &jp,
        ],
        "resume with another shard",
    );

    // The real resume ends with the bytes of the uninterrupted run.
    let mut args = vec![
        "latin",
        "census",
        "--no-progress",
        "--results",
        p(dir.path()),
        "--resume",
    ];
    args.extend_from_slice(&shard);
    ok(&gc(&args));
    let got = files_in(&dir.path().join("partials"));
    assert_eq!(got.len(), 1);
    assert_eq!(read(&got[0]), want_bytes, "resumed partial differs");
    assert!(
        !journal.exists(),
        "journal not removed after the partial was written"
    );
}
