//! The line-block balance at every search node decides like the verifier: on random boards
//! (orders 4–7, signs shown, hidden and per-cage unsigned, weak and full rung sets) the count at
//! caps 1–4 with the balance from the first node equals the independent verifier's, every answer
//! is a distinct verified solution, and the balance does cut the search on some boards.

use gridcensus::calcudoku::generate::{seeded_board, seeded_mixed_board};
use gridcensus::calcudoku::solver::{Count, Rungs, SearchPolicy, solve_with};
use gridcensus::calcudoku::verify::verify_grid;
use gridcensus::calcudoku::{Board, verify_count};

fn board(seed: u64) -> Board {
    let n = 4 + (seed % 4) as usize;
    let max_cage = 2 + (seed % 5) as usize;
    if seed % 5 == 2 {
        // Every other cage unsigned.
        return seeded_mixed_board(n, max_cage, seed);
    }
    seeded_board(n, max_cage, seed % 5 == 1, seed).0
}

#[test]
fn balance_counts_like_the_verifier() {
    let on = SearchPolicy {
        balance_from: 0,
        ..SearchPolicy::default()
    };
    let off = SearchPolicy {
        balance_from: u64::MAX,
        ..SearchPolicy::default()
    };
    let mut fewer = 0;
    for seed in 0..500u64 {
        let b = board(seed);
        // Weak rungs on most boards, so that they need search.
        let rungs = if seed % 4 == 0 {
            Rungs::parse("all").unwrap()
        } else {
            Rungs::parse("cage,single").unwrap()
        };
        let cap = 1 + seed % 4;
        let (want, _) = verify_count(&b, cap);
        let expect = if want >= cap {
            Count::AtLeast(cap)
        } else {
            Count::Exact(want)
        };
        let out = solve_with(&b, rungs, cap, 1_000_000, on);
        assert_eq!(
            out.count,
            expect,
            "seed {seed} cap {cap}\n{}",
            b.unsigned_text()
        );
        for (i, s) in out.solutions.iter().enumerate() {
            assert!(verify_grid(&b, s), "seed {seed}: invalid answer");
            assert!(
                !out.solutions[..i].contains(s),
                "seed {seed}: an answer returned twice"
            );
        }
        assert_eq!(out.solutions.len() as u64, want.min(cap), "seed {seed}");
        let plain = solve_with(&b, rungs, cap, 1_000_000, off);
        assert_eq!(plain.count, expect, "seed {seed}: without the balance");
        if out.nodes < plain.nodes {
            fewer += 1;
        }
    }
    assert!(
        fewer >= 20,
        "the balance cut the search on only {fewer} boards"
    );
}
