//! Numbrix census: the walk engine and the frontier counter held to OEIS and to each other;
//! count_solutions against a naive count; the census job's determinism.

use gridcensus::engine::run::run_simple;
use gridcensus::numbrix::census::census_job::{self, CensusJob, start_orbits};
use gridcensus::numbrix::census::frontier;
use gridcensus::numbrix::census::walk::{self, Geometry, count_solutions};
use gridcensus::reference::*;
use proptest::prelude::*;

#[test]
fn walk_squares_match_a096969_and_a120443() {
    for n in 1..=6 {
        let d = walk::directed_paths(n, n) as u128;
        assert_eq!(d, A096969_SQUARE_DIRECTED[n], "{n}x{n} directed");
        if n > 1 {
            assert_eq!(d / 2, A120443_SQUARE_PATHS[n], "{n}x{n} undirected");
        }
    }
}

#[test]
fn walk_rectangles_match_a332307() {
    for &(m, n, want) in A332307_RECT_PATHS.iter().filter(|r| r.0 * r.1 <= 30) {
        let d = walk::directed_paths(m, n) as u128;
        let undirected = if m * n == 1 { d } else { d / 2 };
        assert_eq!(undirected, want, "{m}x{n}");
        // Orientation does not matter.
        assert_eq!(walk::directed_paths(n, m) as u128, d, "{n}x{m}");
    }
}

#[test]
fn ladder_is_m2_minus_m_plus_2() {
    for m in 2..=12 {
        let want = a003682_ladder_paths(m as u64);
        assert_eq!(want, (m * m - m + 2) as u128);
        assert_eq!(walk::directed_paths(2, m) as u128, 2 * want, "walk 2x{m}");
        assert_eq!(frontier::undirected_paths(2, m), want, "frontier 2x{m}");
    }
    assert_eq!(
        (2..=8)
            .map(|m| walk::directed_paths(2, m) as u128 / 2)
            .collect::<Vec<_>>(),
        WRITEUP_NUMBRIX_LADDER
    );
}

#[test]
fn frontier_squares_match_a120443_to_9() {
    for n in 1..=9 {
        assert_eq!(
            frontier::undirected_paths(n, n),
            A120443_SQUARE_PATHS[n],
            "{n}x{n}"
        );
    }
}

#[test]
fn frontier_rectangles_match_a332307() {
    for &(m, n, want) in &A332307_RECT_PATHS {
        assert_eq!(frontier::undirected_paths(m, n), want, "{m}x{n}");
        assert_eq!(frontier::undirected_paths(n, m), want, "{n}x{m}");
    }
}

#[test]
fn walk_equals_frontier_where_both_run() {
    for m in 1..=5 {
        for n in m..=(30 / m).min(10) {
            let d = walk::directed_paths(m, n) as u128;
            let f = frontier::undirected_paths(m, n);
            let want = if m * n == 1 { f } else { 2 * f };
            assert_eq!(d, want, "{m}x{n}");
        }
    }
}

#[test]
fn one_sweep_equals_separate_sweeps() {
    let s = frontier::sweep(4, 9).unwrap();
    for l in 1..=9 {
        assert_eq!(
            s.counts[l - 1],
            frontier::sweep(4, l).unwrap().counts[l - 1]
        );
    }
}

#[test]
fn symmetric_starts_have_equal_counts() {
    // The orbit weighting rests on this: starts in one symmetry orbit have equal counts.
    let g = Geometry::new(4, 5);
    let per: Vec<u64> = (0..20)
        .map(|s| walk::directed_from_prefix(&g, &[s]).paths)
        .collect();
    for (r, c) in [(0usize, 0usize), (1, 2), (0, 3)] {
        let s = r * 5 + c;
        let images = [s, (3 - r) * 5 + c, r * 5 + (4 - c), (3 - r) * 5 + (4 - c)];
        for i in images {
            assert_eq!(per[i], per[s], "cell {s} vs {i}");
        }
    }
    let weighted: u64 = start_orbits(4, 5).iter().map(|&(s, w)| w * per[s]).sum();
    assert_eq!(weighted, per.iter().sum::<u64>());
}

/// Naive count: every permutation-free walk by plain DFS, checked against the givens at the end.
fn naive_count(rows: usize, cols: usize, givens: &[u32]) -> u64 {
    let n = rows * cols;
    let mut count = 0;
    let mut path = Vec::with_capacity(n);
    let mut used = vec![false; n];
    fn dfs(
        rows: usize,
        cols: usize,
        givens: &[u32],
        path: &mut Vec<usize>,
        used: &mut Vec<bool>,
        count: &mut u64,
    ) {
        let n = rows * cols;
        if path.len() == n {
            let ok = path
                .iter()
                .enumerate()
                .all(|(i, &c)| givens[c] == 0 || givens[c] as usize == i + 1);
            *count += ok as u64;
            return;
        }
        let last = *path.last().unwrap();
        let (r, c) = (last / cols, last % cols);
        let mut nb = Vec::new();
        if r > 0 {
            nb.push(last - cols);
        }
        if r + 1 < rows {
            nb.push(last + cols);
        }
        if c > 0 {
            nb.push(last - 1);
        }
        if c + 1 < cols {
            nb.push(last + 1);
        }
        for x in nb {
            if !used[x] {
                used[x] = true;
                path.push(x);
                dfs(rows, cols, givens, path, used, count);
                path.pop();
                used[x] = false;
            }
        }
    }
    for s in 0..n {
        used[s] = true;
        path.push(s);
        dfs(rows, cols, givens, &mut path, &mut used, &mut count);
        path.pop();
        used[s] = false;
    }
    count
}

#[test]
fn count_solutions_blank_is_directed_census() {
    for (r, c) in [
        (1, 1),
        (1, 4),
        (2, 2),
        (2, 5),
        (3, 3),
        (3, 5),
        (4, 4),
        (5, 5),
        (4, 6),
    ] {
        let n = r * c;
        assert_eq!(
            count_solutions(r, c, &vec![0; n], u64::MAX),
            walk::directed_paths(r, c),
            "{r}x{c}"
        );
    }
}

#[test]
fn count_solutions_rejects_bad_givens() {
    assert_eq!(count_solutions(2, 2, &[1, 1, 0, 0], 10), 0); // duplicate
    assert_eq!(count_solutions(2, 2, &[5, 0, 0, 0], 10), 0); // out of range
    assert_eq!(count_solutions(2, 2, &[0, 0, 0], 10), 0); // wrong shape
    assert_eq!(count_solutions(2, 2, &[1, 0, 0, 2], 10), 0); // 1 and 2 not adjacent
    assert_eq!(count_solutions(3, 3, &[2, 0, 0, 0, 0, 0, 0, 0, 0], 10), 0); // parity law
    assert_eq!(count_solutions(4, 4, &[0; 16], 7), 7); // cap
}

fn board_strategy() -> impl Strategy<Value = (usize, usize, Vec<u32>)> {
    (1usize..=4, 1usize..=4, any::<u64>(), 0usize..=6).prop_map(|(r, c, seed, k)| {
        // Print k numbers taken from a real answer (so most boards are solvable), sometimes
        // one of them corrupted.
        let n = r * c;
        let g = Geometry::new(r, c);
        let mut answers: Vec<Vec<u8>> = Vec::new();
        for s in 0..n {
            walk::for_each_path(&g, &[s as u8], |p| answers.push(p.to_vec()));
        }
        let mut x = seed;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize
        };
        let ans = &answers[next() % answers.len()];
        let mut givens = vec![0u32; n];
        for _ in 0..k.min(n) {
            let i = next() % n;
            givens[ans[i] as usize] = i as u32 + 1;
        }
        if next() % 4 == 0 {
            let cell = next() % n;
            let v = (next() % n) as u32 + 1;
            if !givens.contains(&v) {
                givens[cell] = v;
            }
        }
        (r, c, givens)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn count_solutions_matches_naive((r, c, givens) in board_strategy()) {
        prop_assert_eq!(count_solutions(r, c, &givens, u64::MAX), naive_count(r, c, &givens));
    }
}

#[test]
fn census_job_is_thread_count_independent() {
    let job = CensusJob::new(7, 25).unwrap();
    let one =
        census_job::census_csv(&census_job::finish(&run_simple(&job, Some(1)).unwrap()).unwrap());
    let two =
        census_job::census_csv(&census_job::finish(&run_simple(&job, Some(2)).unwrap()).unwrap());
    assert_eq!(one, two);
    let text = String::from_utf8(one).unwrap();
    assert!(text.contains("\n5,5,25,walk,4324,8648,"));
    assert!(text.contains("\n7,7,49,frontier,13535280,27070560,"));
}

#[test]
fn count_solutions_matches_filtered_census_on_5x5_and_4x6() {
    for (r, c) in [(5usize, 5usize), (4, 6), (3, 7)] {
        let n = r * c;
        let g = Geometry::new(r, c);
        let mut answers: Vec<Vec<u8>> = Vec::new();
        for s in 0..n {
            walk::for_each_path(&g, &[s as u8], |p| answers.push(p.to_vec()));
        }
        let mut x = 12345u64 + n as u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) as usize
        };
        for case in 0..60 {
            let ans = answers[next() % answers.len()].clone();
            let k = 1 + case % 8;
            let mut givens = vec![0u32; n];
            for _ in 0..k {
                let i = next() % n;
                givens[ans[i] as usize] = i as u32 + 1;
            }
            let want = answers
                .iter()
                .filter(|p| {
                    p.iter().enumerate().all(|(i, &cell)| {
                        givens[cell as usize] == 0 || givens[cell as usize] as usize == i + 1
                    })
                })
                .count() as u64;
            assert!(want >= 1);
            assert_eq!(
                count_solutions(r, c, &givens, u64::MAX),
                want,
                "{r}x{c} {givens:?}"
            );
            assert_eq!(count_solutions(r, c, &givens, 2), want.min(2));
        }
    }
}

#[test]
fn walk_only_job_counts_one_rectangle() {
    let job = CensusJob::walk_only(5, 5).unwrap();
    let t = census_job::finish(&run_simple(&job, Some(2)).unwrap()).unwrap();
    assert_eq!(t.len(), 1);
    let row = t.values().next().unwrap();
    assert_eq!(
        (
            row.rows,
            row.cols,
            row.directed.to_string(),
            row.undirected.to_string()
        ),
        (5, 5, "8648".to_string(), "4324".to_string())
    );
}
