//! Published reference values, with their sources, in one place. Tests and the report hold
//! computed results to these. Values are copied from OEIS (ids given) or from the three public
//! write-ups the project reproduces (cited by title in README.md): "Calcudoku: the obvious way to
//! read the Jacobson-Matthews chain is biased, and a census of 16.9 million Latin squares shows
//! where" (the Calcudoku write-up), "Numbrix" (the Numbrix write-up) and "Solving Kakurasu: every
//! line is a subset sum, and the size dial is the difficulty dial" (the Kakurasu write-up).

// ---------------------------------------------------------------------------------------------
// Latin squares (the Calcudoku write-up; OEIS)
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

/// The Calcudoku write-up, "The census it is held to": (order, mean intercalates, share without, max).
/// Mean to 3 decimals, share in percent to 2 decimals.
pub const WRITEUP_LATIN_TABLE: [(usize, f64, f64, u64); 3] = [
    (5, 3.571, 10.71, 4),
    (6, 8.265, 0.43, 27),
    (7, 10.529, 0.10, 42),
];

// ---------------------------------------------------------------------------------------------
// Calcudoku (the Calcudoku write-up)
// ---------------------------------------------------------------------------------------------

/// The Calcudoku write-up, "An intercalate is a second answer…": of 16,000 boards cut at random (orders
/// 4–7 × largest cage 2–5 × 1,000), 8,704 had more than one answer and on 6,658 of them a
/// certified intercalate flip was already one of the extra answers (76.5%).
pub const CALCUDOKU_RANDOM_CUTS: u64 = 16_000;
pub const CALCUDOKU_FLIP_EXPLAINED: (u64, u64) = (6_658, 8_704);
/// The Calcudoku write-up, "What an operation sign is worth": of the same 16,000 random cuts, 7,296 were
/// unique with signs and 6,711 without (hiding every sign costs 8.0% of the unique boards).
pub const CALCUDOKU_UNIQUE_SHOWN: u64 = 7_296;
pub const CALCUDOKU_UNIQUE_HIDDEN: u64 = 6_711;
/// The Calcudoku write-up: the generator's median time per 7×7 board (mostly solving), in ms.
pub const CALCUDOKU_WRITEUP_MEDIAN_MS_7X7: f64 = 206.0;
/// The Calcudoku write-up, "An intercalate is a second answer…": the printed rows of the random-cut table
/// (1,000 boards per row, squares from the Jacobson–Matthews chain): order, largest cage, unique
/// boards, non-unique boards explained by a certified flip, non-unique boards, and the mean
/// intercalates ± standard error of the cut squares of unique and of non-unique boards.
pub const CALCUDOKU_CUTS_BOARDS_PER_ROW: u64 = 1_000;
#[allow(clippy::type_complexity)]
pub const CALCUDOKU_CUTS_ROWS: [(usize, usize, u64, u64, u64, (f64, f64), (f64, f64)); 4] = [
    (6, 2, 580, 335, 420, (7.31, 0.16), (9.51, 0.25)),
    (6, 4, 397, 465, 603, (6.93, 0.18), (9.36, 0.20)),
    (7, 3, 433, 444, 567, (9.63, 0.16), (11.28, 0.16)),
    (7, 5, 317, 521, 683, (9.92, 0.19), (11.08, 0.14)),
];
/// The Calcudoku write-up, "What an operation sign is worth": per cage kind over the multi-cell cages of
/// its random cuts: cells, operation, cages, mean fillings with the sign, without it, bits the
/// sign carries (mean per-cage log2 of the ratio) and cages with no change at all.
#[allow(clippy::type_complexity)]
pub const CALCUDOKU_SIGN_ROWS: [(usize, &str, u64, f64, f64, f64, u64); 6] = [
    (2, "div", 350, 3.51, 9.23, 1.455, 0),
    (2, "mul", 300, 2.32, 5.30, 0.931, 131),
    (2, "sub", 1_059, 7.63, 10.09, 0.468, 472),
    (3, "mul", 624, 7.20, 10.61, 0.367, 458),
    (4, "mul", 294, 25.93, 27.39, 0.106, 277),
    (5, "mul", 118, 87.54, 89.97, 0.044, 117),
];
/// Same section: multi-cell cages whose fillings do not change with the sign hidden, of all
/// multi-cell cages cut (2,043 of 4,041, 50.6%).
pub const CALCUDOKU_SIGN_UNCHANGED: (u64, u64) = (2_043, 4_041);

/// The Calcudoku write-up, "Repair, don't reject": the repair generator's bank, 40 boards per order:
/// (order, mean intercalates of the squares, standard error), each within two SE of the exact mean.
pub const CALCUDOKU_WRITEUP_BANK: [(usize, f64, f64); 3] =
    [(5, 3.70, 0.17), (6, 8.18, 0.70), (7, 11.03, 0.81)];
/// The Calcudoku write-up, "What an operation sign is worth": boards of its shipped bank (tightened
/// with signs shown) that still have exactly one answer with every sign hidden (19 of 20).
pub const CALCUDOKU_WRITEUP_BANK_SIGNLESS: (u64, u64) = (19, 20);
/// The Calcudoku write-up, "Repair, don't reject": repairs placed by a certified flip without a search,
/// out of all repairs (64.6%).
pub const CALCUDOKU_WRITEUP_REPAIRS_BY_FLIP: (u64, u64) = (93, 144);
/// The Calcudoku write-up, "Repair, don't reject": 7×7 generator time per board in ms (JavaScript):
/// (median with the flip check, worst with it, median without, worst without).
pub const CALCUDOKU_WRITEUP_REPAIR_MS: (f64, f64, f64, f64) = (206.0, 26_448.0, 224.0, 12_514.0);
/// The Calcudoku write-up, "Repair, don't reject": mean search nodes per 7×7 board with and without the
/// flip check.
pub const CALCUDOKU_WRITEUP_REPAIR_NODES: (u64, u64) = (20_566, 18_622);
/// The Calcudoku write-up, "The ladder, priced rung by rung": boards priced (its shipped bank).
pub const CALCUDOKU_WRITEUP_PRICING_BOARDS: u64 = 20;
/// The Calcudoku write-up, "The ladder, priced rung by rung": (rung, cells settled climbing, boards
/// finished climbing, boards finished without it), over its 20 boards (630 cells).
pub const CALCUDOKU_WRITEUP_PRICING: [(&str, u64, u64, u64); 6] = [
    ("cage", 43, 0, 20),
    ("single", 122, 4, 20),
    ("hidden", 257, 9, 20),
    ("must", 411, 13, 20),
    ("subset", 453, 14, 20),
    ("probe", 630, 20, 14),
];
/// The Calcudoku write-up, same table: search nodes without single / hidden / must, and with every rung.
pub const CALCUDOKU_WRITEUP_PRICING_NODES: [(&str, u64); 4] = [
    ("single", 149),
    ("hidden", 229),
    ("must", 459),
    ("all", 149),
];

// ---------------------------------------------------------------------------------------------
// Numbrix (the Numbrix write-up; OEIS)
// ---------------------------------------------------------------------------------------------

// numbrix census (OEIS)

/// A120443: undirected Hamiltonian paths of the n×n grid graph (index n, n = 1..=15;
/// a(16) exceeds u128). Source: oeis.org/A120443 data (terms 9.. from J. L. Jacobsen 2007).
pub const A120443_SQUARE_PATHS: [u128; 16] = [
    0,
    1,
    4,
    20,
    276,
    4_324,
    229_348,
    13_535_280,
    3_023_313_284,
    745_416_341_496,
    730_044_829_512_632,
    786_671_485_270_308_848,
    3_452_664_855_804_347_354_220,
    16_652_005_717_670_534_681_315_580,
    331_809_088_406_733_654_427_925_292_528,
    7_263_611_367_960_266_490_262_600_117_251_524,
];

/// A120443(16), past u128 (so kept as a decimal): undirected Hamiltonian paths of the 16×16 grid.
/// Source: oeis.org/A120443 data (terms to 17 from J. L. Jacobsen, the b-file to 18 by
/// O. R. Bellwood).
pub const A120443_16: &str = "662634717384979793238814101377988786884";

/// A096969: directed Hamiltonian paths of the n×n grid (numberings 1..n² with successive
/// numbers adjacent), index n, n = 1..=15. Source: oeis.org/A096969 data; = 2·A120443(n), n > 1.
pub const A096969_SQUARE_DIRECTED: [u128; 16] = [
    0,
    1,
    8,
    40,
    552,
    8_648,
    458_696,
    27_070_560,
    6_046_626_568,
    1_490_832_682_992,
    1_460_089_659_025_264,
    1_573_342_970_540_617_696,
    6_905_329_711_608_694_708_440,
    33_304_011_435_341_069_362_631_160,
    663_618_176_813_467_308_855_850_585_056,
    14_527_222_735_920_532_980_525_200_234_503_048,
];

/// A003682: undirected Hamiltonian paths of the 2×m ladder, a(m) = m² − m + 2 for m ≥ 2
/// (the write-up proves it: a path sweeps the columns from each end and is fixed by its turning
/// column); a(1) = 1.
pub fn a003682_ladder_paths(m: u64) -> u128 {
    if m <= 1 {
        m as u128
    } else {
        (m * m - m + 2) as u128
    }
}

/// A332307: undirected Hamiltonian paths of the m×n grid, (m, n, T(m, n)) with m ≤ n.
/// Source: oeis.org/A332307 data, antidiagonals 1..11 (m + n ≤ 12), plus T(6,7) and T(7,7)
/// from its example table.
pub const A332307_RECT_PATHS: [(usize, usize, u128); 38] = [
    (1, 1, 1),
    (1, 2, 1),
    (1, 3, 1),
    (2, 2, 4),
    (1, 4, 1),
    (2, 3, 8),
    (1, 5, 1),
    (2, 4, 14),
    (3, 3, 20),
    (1, 6, 1),
    (2, 5, 22),
    (3, 4, 62),
    (1, 7, 1),
    (2, 6, 32),
    (3, 5, 132),
    (4, 4, 276),
    (1, 8, 1),
    (2, 7, 44),
    (3, 6, 336),
    (4, 5, 1_006),
    (1, 9, 1),
    (2, 8, 58),
    (3, 7, 688),
    (4, 6, 3_610),
    (5, 5, 4_324),
    (1, 10, 1),
    (2, 9, 74),
    (3, 8, 1_578),
    (4, 7, 12_010),
    (5, 6, 26_996),
    (1, 11, 1),
    (2, 10, 92),
    (3, 9, 3_190),
    (4, 8, 38_984),
    (5, 7, 109_722),
    (6, 6, 229_348),
    (6, 7, 1_620_034),
    (7, 7, 13_535_280),
];

/// The Numbrix write-up: the 2×m ladder counts its engine printed for m = 2..=8.
pub const WRITEUP_NUMBRIX_LADDER: [u128; 7] = [4, 8, 14, 22, 32, 44, 58];

// ---------------------------------------------------------------------------------------------
// Kakurasu (the Kakurasu write-up)
// ---------------------------------------------------------------------------------------------

/// The Kakurasu write-up: boards generated per size for its difficulty table.
pub const WRITEUP_KAKURASU_BOARDS_PER_SIZE: u64 = 200;

/// The Kakurasu write-up, the difficulty table: (size, intervals finish %, enumeration finishes %, rolls to
/// unique, search nodes when needed; `None` for the write-up's "—").
pub const WRITEUP_KAKURASU_DIFFICULTY: [(usize, f64, f64, f64, Option<f64>); 5] = [
    (4, 99.0, 100.0, 1.02, None),
    (5, 88.0, 99.5, 1.07, Some(1.0)),
    (6, 66.0, 95.5, 1.14, Some(1.3)),
    (7, 27.5, 76.5, 1.51, Some(3.7)),
    (8, 12.5, 43.5, 2.44, Some(12.2)),
];

/// The Kakurasu write-up: on 6×6 boards where a rule set stalls, the mean cells decided at the stall
/// (intervals, enumeration).
pub const WRITEUP_KAKURASU_6X6_STALL_CELLS: (f64, f64) = (12.3, 5.5);

/// The Kakurasu write-up, the census it folded by hand: ambiguous target vectors by size
/// (2×2: none; 3×3: exactly one, all lines 3, where {3} and {1,2} trade places).
pub const WRITEUP_KAKURASU_AMBIGUOUS: [(usize, u128); 2] = [(2, 0), (3, 1)];

// ---------------------------------------------------------------------------------------------
// end
// ---------------------------------------------------------------------------------------------

/// Numbrix write-up (002), removal ablation without the edge rung on 12 boards: the same cells
/// pinned on 11 of 12, bookkeeping +42%, probes +43% (sampled figures: compared as findings).
pub const NUMBRIX_ABLATION_WITHOUT_EDGE: ((u32, u32), f64, f64) = ((11, 12), 42.0, 43.0);

/// Numbrix write-up (002): printed numbers a 10×10 needs with the probe as adversary (one
/// figure, no distribution given).
pub const NUMBRIX_PROBE_ADVERSARY_10X10: u32 = 12;
