//! Studies through the engine: determinism across thread counts, and the facts they measure
//! on small runs (parity law, pin wall, ruler redundancy after link).

use gridcensus::engine::run::run_simple;
use gridcensus::numbrix::studies::*;

fn job<S: Study>(study: S, sizes: Vec<usize>, per_size: u64) -> StudyJob<S> {
    StudyJob {
        study,
        sizes,
        per_size,
        seed: 7,
    }
}

#[test]
fn studies_are_deterministic_across_threads() {
    let j = job(Clues, vec![4, 5], 3);
    let a = to_csv(&run_simple(&j, Some(1)).unwrap().0).unwrap();
    let b = to_csv(&run_simple(&j, Some(2)).unwrap().0).unwrap();
    assert_eq!(a, b);
    let j = job(Ablation { reveal: 0.3 }, vec![5], 3);
    let a = to_csv(&run_simple(&j, Some(1)).unwrap().0).unwrap();
    let b = to_csv(&run_simple(&j, Some(2)).unwrap().0).unwrap();
    assert_eq!(a, b);
}

#[test]
fn parity_law_and_pin_wall_hold() {
    let p = run_simple(&job(Parity, vec![3, 4, 5], 20), None).unwrap().0;
    assert!(p.iter().all(|r| r.law_holds && r.corollary_holds));
    let w = run_simple(&job(PinWall, vec![3, 4], 5), None).unwrap().0;
    for r in &w {
        assert_eq!(r.clues, r.rows * r.cols - 1);
        assert!(!r.finishes_with_one_fewer);
    }
}

#[test]
fn ruler_adds_nothing_after_link_and_more_rungs_pin_more() {
    let recs = run_simple(&job(Climb { reveal: 0.25 }, vec![5, 6], 6), None)
        .unwrap()
        .0;
    for w in recs.chunks(CLIMB.len()) {
        let get = |name: &str| w.iter().find(|r| r.ladder == name).unwrap();
        assert_eq!(get("pin+link").pairs, get("pin+link+ruler").pairs);
        assert!(get("+block").pairs <= get("pin+link").pairs);
        assert!(get("+edge").pairs <= get("+block").pairs);
        assert!(get("+probe").pairs <= get("+edge").pairs);
    }
}
