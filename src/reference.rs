//! Published reference values, with their sources, in one place. Tests and the report hold
//! computed results to these. Values are copied from OEIS (ids given) or from the write-ups in
//! `../shared/seeds/`.

// ---------------------------------------------------------------------------------------------
// Latin squares (write-up 000; OEIS)
// ---------------------------------------------------------------------------------------------

/// A000315: reduced Latin squares of order n (index n, n = 1..=11).
pub const A000315_REDUCED_LATIN: [u128; 12] = [
    0,
    1,
    1,
    1,
    4,
    56,
    9_408,
    16_942_080,
    535_281_401_856,
    377_597_570_964_258_816,
    7_580_721_483_160_132_811_489_280,
    5_363_937_773_277_371_298_119_673_540_771_840,
];

/// A002860: Latin squares of order n (index n, n = 1..=9) = n!·(n−1)!·A000315(n).
pub const A002860_LATIN: [u128; 10] = [
    0,
    1,
    2,
    12,
    576,
    161_280,
    812_851_200,
    61_479_419_904_000,
    108_776_032_459_082_956_800,
    5_524_751_496_156_892_842_531_225_600,
];

/// A092237: maximum number of intercalates in a Latin square of order n (index n, n = 1..=8).
pub const A092237_MAX_INTERCALATES: [u64; 9] = [0, 0, 1, 0, 12, 4, 27, 42, 112];

/// A368182: number of distinct intercalate counts over Latin squares of order n (n = 1..=8).
pub const A368182_DISTINCT_COUNTS: [u64; 9] = [0, 1, 1, 1, 2, 2, 9, 23, 61];

/// Write-up 000, "The census it is held to": (order, mean intercalates, share without, max).
/// Mean to 3 decimals, share in percent to 2 decimals.
pub const WRITEUP_LATIN_TABLE: [(usize, f64, f64, u64); 3] = [
    (5, 3.571, 10.71, 4),
    (6, 8.265, 0.43, 27),
    (7, 10.529, 0.10, 42),
];

// ---------------------------------------------------------------------------------------------
// Calcudoku (write-up 000)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Numbrix (write-up 002; OEIS)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Kakurasu (write-up 003)
// ---------------------------------------------------------------------------------------------

/// Write-up 003: boards generated per size for its difficulty table.
pub const WRITEUP_KAKURASU_BOARDS_PER_SIZE: u64 = 200;

/// Write-up 003, the difficulty table: (size, intervals finish %, enumeration finishes %, rolls to
/// unique, search nodes when needed; `None` for the write-up's "—").
pub const WRITEUP_KAKURASU_DIFFICULTY: [(usize, f64, f64, f64, Option<f64>); 5] = [
    (4, 99.0, 100.0, 1.02, None),
    (5, 88.0, 99.5, 1.07, Some(1.0)),
    (6, 66.0, 95.5, 1.14, Some(1.3)),
    (7, 27.5, 76.5, 1.51, Some(3.7)),
    (8, 12.5, 43.5, 2.44, Some(12.2)),
];

/// Write-up 003: on 6×6 boards where a rule set stalls, the mean cells decided at the stall
/// (intervals, enumeration).
pub const WRITEUP_KAKURASU_6X6_STALL_CELLS: (f64, f64) = (12.3, 5.5);

/// Write-up 003, the census it folded by hand: ambiguous target vectors by size
/// (2×2: none; 3×3: exactly one, all lines 3, where {3} and {1,2} trade places).
pub const WRITEUP_KAKURASU_AMBIGUOUS: [(usize, u128); 2] = [(2, 0), (3, 1)];

// ---------------------------------------------------------------------------------------------
// end
// ---------------------------------------------------------------------------------------------
