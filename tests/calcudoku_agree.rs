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
