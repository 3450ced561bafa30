//! The repair-and-tighten generator: every seed becomes a unique board (proved by the ladder +
//! search and by the independent verifier), the square is never replaced, and tighten's result is
//! locally maximal (no single merge, under any label, keeps the answer unique).

use gridcensus::calcudoku::board::Board;
use gridcensus::calcudoku::repair::{
    RepairOptions, generate_filter, generate_repair, labels_for, merge_candidates,
};
use gridcensus::calcudoku::squares::SquareSource;
use gridcensus::calcudoku::{Count, Rungs, solve, verify_count};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn opts(max_cage: usize, use_flips: bool) -> RepairOptions {
    RepairOptions {
        max_cage,
        node_cap: 1_000_000,
        use_flips,
    }
}

#[test]
fn repair_terminates_with_a_unique_board_for_every_seed() {
    let mut boards = 0;
    let mut by_flip = 0;
    let mut splits = 0;
    for n in 4..=7 {
        let seeds = if n == 7 { 60 } else { 100 };
        for seed in 0..seeds {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed * 31 + n as u64);
            let max_cage = 2 + (seed as usize % 4);
            let g = generate_repair(n, SquareSource::Uniform, &opts(max_cage, true), &mut rng);
            // The board's answer is the square it was cut from, and it is the only one.
            assert!(g.board.is_solution(&g.square));
            let o = solve(&g.board, Rungs::ALL, 2, u64::MAX);
            assert_eq!(o.count, Count::Exact(1), "board:\n{}", g.board.to_text());
            let (vc, vs) = verify_count(&g.board, 2);
            assert_eq!(vc, 1, "verifier disagrees:\n{}", g.board.to_text());
            assert_eq!(vs[0], g.square);
            assert!(g.board.cages.iter().all(|k| k.cells.len() <= max_cage));
            boards += 1;
            by_flip += g.stats.splits_by_flip;
            splits += g.stats.splits;
            assert_eq!(
                g.stats.splits,
                g.stats.splits_by_flip + g.stats.splits_by_search + g.stats.splits_capped
            );
        }
    }
    assert_eq!(boards, 360);
    // The flip check must be doing something on random cuts (not a sample claim).
    assert!(by_flip > 0 && splits > by_flip, "{by_flip} of {splits}");
}

/// No single merge of neighbouring cages (union within the size bound), under any label the
/// union admits, leaves the board unique: checked with the independent verifier.
fn assert_locally_maximal(b: &Board, square: &[u8], max_cage: usize) {
    let n = b.n;
    for (i, j) in merge_candidates(n, &b.cages, max_cage) {
        let mut cells: Vec<u8> = b.cages[i]
            .cells
            .iter()
            .chain(&b.cages[j].cells)
            .copied()
            .collect();
        cells.sort_unstable();
        for cand in labels_for(square, &cells) {
            let mut cages: Vec<_> = b
                .cages
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != i && k != j)
                .map(|(_, c)| c.clone())
                .collect();
            cages.push(cand.clone());
            let merged = Board::new(n, cages, false).unwrap();
            let (vc, _) = verify_count(&merged, 2);
            assert!(
                vc >= 2,
                "merge of cages {i} and {j} as {:?} keeps it unique:\n{}",
                cand.op,
                b.to_text()
            );
        }
    }
}

#[test]
fn tighten_is_locally_maximal() {
    for n in 4..=6 {
        for seed in 0..12u64 {
            let max_cage = 3 + (seed as usize % 3);
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1000 + seed);
            let g = generate_repair(
                n,
                SquareSource::Uniform,
                &opts(max_cage, seed % 2 == 0),
                &mut rng,
            );
            assert_locally_maximal(&g.board, &g.square, max_cage);
        }
    }
}

#[test]
fn generator_is_deterministic_and_filter_keeps_only_unique() {
    let run = |seed| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        generate_repair(6, SquareSource::Uniform, &opts(4, true), &mut rng)
            .board
            .to_text()
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    for _ in 0..20 {
        let f = generate_filter(5, SquareSource::Uniform, &opts(4, true), 10_000, &mut rng)
            .expect("a unique cut within 10,000 draws");
        assert_eq!(verify_count(&f.board, 2).0, 1);
        assert!(f.board.is_solution(&f.square));
    }
}
