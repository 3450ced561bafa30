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

/// Write-up 000, "An intercalate is a second answer…": of 16,000 boards cut at random (orders
/// 4–7 × largest cage 2–5 × 1,000), 8,704 had more than one answer and on 6,658 of them a
/// certified intercalate flip was already one of the extra answers (76.5%).
pub const CALCUDOKU_RANDOM_CUTS: u64 = 16_000;
pub const CALCUDOKU_FLIP_EXPLAINED: (u64, u64) = (6_658, 8_704);
/// Write-up 000, "What an operation sign is worth": of the same 16,000 random cuts, 7,296 were
/// unique with signs and 6,711 without (hiding every sign costs 8.0% of the unique boards).
pub const CALCUDOKU_UNIQUE_SHOWN: u64 = 7_296;
pub const CALCUDOKU_UNIQUE_HIDDEN: u64 = 6_711;
/// Write-up 000: the generator's median time per 7×7 board (mostly solving), in ms.
pub const CALCUDOKU_WRITEUP_MEDIAN_MS_7X7: f64 = 206.0;

// ---------------------------------------------------------------------------------------------
// Numbrix (write-up 002; OEIS)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Kakurasu (write-up 003)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// end
// ---------------------------------------------------------------------------------------------
