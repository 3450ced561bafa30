//! The shipped bank: at least 64 boards of sizes 4..10, each unique under the ladder with
//! search, consistent with the answer recorded nowhere else (re-solved here), and without a
//! reversal certificate.

use gridcensus::numbrix::bank::read_bank;
use gridcensus::numbrix::certificate;
use gridcensus::numbrix::ladder::Rungs;
use gridcensus::numbrix::search::{self, Count, Limits};
use std::path::Path;

#[test]
fn bank_boards_are_unique() {
    let bank = read_bank(Path::new("examples/numbrix/bank")).unwrap();
    assert!(bank.len() >= 64, "{} boards", bank.len());
    let mut sizes = std::collections::BTreeSet::new();
    for (name, b) in &bank {
        sizes.insert(b.rows);
        assert!((4..=10).contains(&b.rows) && b.rows == b.cols, "{name}");
        // Decide with the ladder without the probe, and with pin+link only (more search).
        for rungs in [Rungs::DEFAULT, Rungs(0b00_0011)] {
            let v = search::count(
                b,
                rungs,
                Limits {
                    cap: 2,
                    node_cap: 5_000_000,
                },
            );
            assert_eq!(v.count, Count::Exact(1), "{name} with {}", rungs.names());
            assert!(b.is_answer(&v.answers[0]));
            assert!(certificate::find(b, &v.answers[0]).is_none(), "{name}");
        }
    }
    assert_eq!(
        sizes.into_iter().collect::<Vec<_>>(),
        (4..=10).collect::<Vec<_>>()
    );
}
