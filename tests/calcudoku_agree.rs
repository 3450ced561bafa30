//! Agreement between the ladder+search count and the independent verifier on random boards,
//! hidden signs never removing an answer, and the intercalate-flip certificate.

use gridcensus::calcudoku::certificate::certified_flips;
use gridcensus::calcudoku::generate::random_board;
use gridcensus::calcudoku::{Count, Rungs, solve, verify_count};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

const CAP: u64 = 50;

fn count_of(c: Count) -> u64 {
    match c {
        Count::Exact(k) | Count::AtLeast(k) => k,
        Count::Unknown => panic!("node cap hit"),
    }
}

#[test]
fn ladder_search_agrees_with_verifier() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xca1c);
    let mut boards = 0;
    let mut unique = 0;
    for n in 3..=6 {
        let count = if n == 6 { 200 } else { 300 };
        for _ in 0..count {
            let max_cage = rng.random_range(2..=5);
            let hide = rng.random_bool(0.5);
            let (board, square) = random_board(n, max_cage, hide, &mut rng);
            let (vc, vsols) = verify_count(&board, CAP);
            let out = solve(&board, Rungs::ALL, CAP, u64::MAX);
            assert_eq!(count_of(out.count), vc, "board:\n{}", board.to_text());
            if vc < CAP {
                assert!(vsols.contains(&square));
                for s in &out.solutions {
                    assert!(vsols.contains(s));
                }
            }
            boards += 1;
            unique += (vc == 1) as u32;
        }
    }
    assert!(boards >= 1000);
    eprintln!("{boards} boards, {unique} unique");
}

#[test]
fn hiding_signs_never_removes_an_answer() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x51c9);
    let (mut more, mut total) = (0, 0);
    for _ in 0..400 {
        let n = rng.random_range(3..=5);
        let max_cage = rng.random_range(2..=5);
        let (shown, _) = random_board(n, max_cage, false, &mut rng);
        let hidden = shown.with_hidden_signs(true);
        let (cs, ss) = verify_count(&shown, 10_000);
        let (ch, sh) = verify_count(&hidden, 10_000);
        assert!(ch >= cs);
        if ch < 10_000 {
            for s in &ss {
                assert!(
                    sh.contains(s),
                    "hidden signs lost an answer:\n{}",
                    shown.to_text()
                );
            }
        }
        let os = solve(&shown, Rungs::ALL, 2, u64::MAX);
        let oh = solve(&hidden, Rungs::ALL, 2, u64::MAX);
        assert!(count_of(oh.count) >= count_of(os.count));
        more += (ch > cs) as u32;
        total += 1;
    }
    // Not a sample claim: just make sure hiding does something on these boards.
    assert!(more > 0, "hiding never added an answer in {total} boards");
}

#[test]
fn every_certified_flip_is_a_solution() {
    use gridcensus::calcudoku::verify::verify_grid;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(0xf11b);
    let (mut boards, mut certified, mut flips, mut nonunique, mut explained) = (0, 0, 0, 0, 0);
    for n in 4..=7 {
        for _ in 0..1000 {
            let max_cage = rng.random_range(2..=5);
            let hide = rng.random_bool(0.5);
            let (board, square) = random_board(n, max_cage, hide, &mut rng);
            let fs = certified_flips(&board, &square);
            for f in &fs {
                let g = f.apply(n, &square);
                assert_ne!(g, square);
                assert!(
                    verify_grid(&board, &g),
                    "flip {} is not a solution",
                    f.describe()
                );
                flips += 1;
            }
            let out = solve(&board, Rungs::ALL, 2, u64::MAX);
            let k = count_of(out.count);
            // The converse is a theorem: a surviving flip means the board is not unique.
            if !fs.is_empty() {
                assert!(k >= 2, "certified flip but unique:\n{}", board.to_text());
                certified += 1;
            }
            if k >= 2 {
                nonunique += 1;
                explained += (!fs.is_empty()) as u32;
            }
            boards += 1;
        }
    }
    assert!(certified > 0 && flips > 0);
    eprintln!(
        "{boards} boards: {certified} with a certified flip ({flips} flips); \
         {explained} of {nonunique} non-unique boards explained by a flip"
    );
}
