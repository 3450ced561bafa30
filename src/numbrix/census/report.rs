//! Report sections of the Numbrix census and sampler.

use super::census_job::{CENSUS_FILE, CensusTable, read_census};
use super::sampler_job::{SAMPLER_FILE, read_sampler};
use crate::reference::*;
use crate::report::{Check, Section};
use anyhow::Result;
use num_bigint::BigUint;
use std::fmt::Write as _;
use std::path::Path;

pub fn sections(results: &Path) -> Result<Vec<Section>> {
    Ok(vec![census_section(results)?, sampler_section(results)?])
}

fn get(t: &CensusTable, r: usize, c: usize, m: &str) -> Option<(BigUint, BigUint)> {
    t.get(&(r, c, m.to_string()))
        .map(|row| (row.undirected.clone(), row.directed.clone()))
}

/// The committed census: frontier rows for every m ≤ n ≤ this side.
pub const EXPECTED_FRONTIER_SIDE: usize = 17;
/// The committed census: walk rows for every m ≤ n ≤ this side with at most
/// [`EXPECTED_WALK_CELLS`] cells (the 17-side rows came from a frontier-only run).
pub const EXPECTED_WALK_SIDE: usize = 16;
/// The committed census: walk rows for every m ≤ n with at most this many cells.
pub const EXPECTED_WALK_CELLS: usize = 49;

/// A120443(n) as an exact integer, where the reference lists it (n = 1..=16).
fn a120443(n: usize) -> Option<BigUint> {
    if n < A120443_SQUARE_PATHS.len() {
        Some(BigUint::from(A120443_SQUARE_PATHS[n]))
    } else if n == 16 {
        Some(A120443_16.parse().expect("reference decimal"))
    } else {
        None
    }
}

fn census_section(results: &Path) -> Result<Section> {
    const TITLE: &str = "Numbrix census: Hamiltonian paths of m×n grids";
    let path = results.join(CENSUS_FILE);
    if !path.exists() {
        return Ok(Section::missing(TITLE, &path));
    }
    let t = read_census(&path)?;
    let mut s = Section::new(TITLE);
    s.body.push_str(
        "Undirected and directed Hamiltonian path counts (`results/numbrix_census.csv`) by two \
         independent engines: `walk`, the brute-force walk enumerator (the raw engine that also \
         re-proves puzzle answers), and `frontier`, a plug-DP transfer matrix. A directed path is a \
         Numbrix answer of the blank board.\n\n\
         | n | n×n undirected (frontier) | walk agrees | A120443 |\n| ---: | ---: | :---: | :---: |\n",
    );
    let max_side = t.keys().map(|k| k.1).max().unwrap_or(0);
    // Every expected row is present.
    let mut missing = Vec::new();
    let mut expected = 0;
    for m in 1..=EXPECTED_FRONTIER_SIDE {
        for n in m..=EXPECTED_FRONTIER_SIDE {
            expected += 1;
            if get(&t, m, n, "frontier").is_none() {
                missing.push(format!("{m}x{n} frontier"));
            }
            if m * n <= EXPECTED_WALK_CELLS && n <= EXPECTED_WALK_SIDE {
                expected += 1;
                if get(&t, m, n, "walk").is_none() {
                    missing.push(format!("{m}x{n} walk"));
                }
            }
        }
    }
    s.checks.push(Check::rows_present(
        format!(
            "frontier rows m ≤ n ≤ {EXPECTED_FRONTIER_SIDE} and walk rows m ≤ n ≤ \
             {EXPECTED_WALK_SIDE} of at most {EXPECTED_WALK_CELLS} cells present"
        ),
        expected,
        &missing,
    ));
    // n×n against A120443 and A096969.
    for n in 1..=max_side {
        let Some(want_u) = a120443(n) else {
            // Past the stored terms: the count is a result of this census, not a check.
            if let Some((u, d)) = get(&t, n, n, "frontier") {
                s.checks.push(Check::finding(
                    format!("{n}x{n} frontier undirected (past the stored A120443 terms)"),
                    format!("{u} undirected, {d} directed"),
                ));
                if n > 1 {
                    s.checks.push(Check::eq(
                        format!("{n}x{n} frontier directed = 2 × undirected"),
                        d.clone(),
                        &u * 2u32,
                    ));
                }
                let _ = writeln!(s.body, "| {n} | {u} | – | not stored |");
            }
            continue;
        };
        let want_d = if n == 1 {
            want_u.clone()
        } else {
            &want_u * 2u32
        };
        let Some((u, d)) = get(&t, n, n, "frontier") else {
            s.checks.push(Check::new(
                format!("{n}x{n} frontier present"),
                false,
                "missing",
            ));
            continue;
        };
        s.checks.push(Check::eq(
            format!("{n}x{n} frontier undirected = A120443({n})"),
            u.clone(),
            want_u.clone(),
        ));
        if n < A096969_SQUARE_DIRECTED.len() {
            s.checks.push(Check::eq(
                format!("{n}x{n} frontier directed = A096969({n})"),
                d,
                BigUint::from(A096969_SQUARE_DIRECTED[n]),
            ));
        } else {
            s.checks.push(Check::eq(
                format!("{n}x{n} frontier directed = 2·A120443({n})"),
                d,
                want_d.clone(),
            ));
        }
        let walk = get(&t, n, n, "walk");
        if let Some((wu, wd)) = &walk {
            s.checks.push(Check::eq(
                format!("{n}x{n} walk directed = A096969({n})"),
                wd.clone(),
                want_d.clone(),
            ));
            s.checks.push(Check::eq(
                format!("{n}x{n} walk undirected = A120443({n})"),
                wu.clone(),
                want_u.clone(),
            ));
        }
        let _ = writeln!(
            s.body,
            "| {n} | {u} | {} | {} |",
            match &walk {
                Some((wu, _)) if *wu == u => "yes",
                Some(_) => "NO",
                None => "–",
            },
            if u == want_u { "yes" } else { "NO" }
        );
    }
    // The 2×m ladder against A003682 and the write-up's figures.
    let mut ladder = Vec::new();
    for m in 2..=max_side.min(12) {
        for method in ["walk", "frontier"] {
            if let Some((u, _)) = get(&t, 2, m, method) {
                let want = a003682_ladder_paths(m as u64);
                s.checks.push(Check::eq(
                    format!("2x{m} {method} = m²−m+2 (A003682)"),
                    u.clone(),
                    BigUint::from(want),
                ));
                if method == "walk" && m <= 8 {
                    ladder.push(u128::try_from(&u).unwrap_or(u128::MAX));
                }
            }
        }
    }
    if ladder.len() == WRITEUP_NUMBRIX_LADDER.len() {
        s.checks.push(Check::new(
            "2×m walk census for m = 2..8 reproduces the write-up's 4, 8, 14, 22, 32, 44, 58",
            ladder == WRITEUP_NUMBRIX_LADDER,
            format!("got {ladder:?}"),
        ));
    }
    // Rectangles against A332307, both methods.
    for &(m, n, want) in &A332307_RECT_PATHS {
        for method in ["walk", "frontier"] {
            if let Some((u, _)) = get(&t, m, n, method) {
                s.checks.push(Check::eq(
                    format!("{m}x{n} {method} = A332307({m},{n})"),
                    u,
                    BigUint::from(want),
                ));
            }
        }
    }
    // Directed = 2 × undirected and walk == frontier wherever both ran.
    let mut both = 0;
    let mut agree = 0;
    let mut directed_ok = true;
    for row in t.values() {
        let cells = row.rows * row.cols;
        let want = if cells == 1 {
            row.undirected.clone()
        } else {
            &row.undirected * 2u32
        };
        directed_ok &= row.directed == want;
        if row.method == "walk"
            && let Some((fu, fd)) = get(&t, row.rows, row.cols, "frontier")
        {
            both += 1;
            agree += (fu == row.undirected && fd == row.directed) as usize;
        }
    }
    s.checks.push(Check::new(
        "directed = 2 × undirected on every grid of more than one cell (A096969 = 2·A120443)",
        directed_ok,
        format!("{} rows", t.len()),
    ));
    s.checks.push(Check::new(
        "walk census = frontier census on every grid both ran",
        both > 0 && agree == both,
        format!("{agree} of {both} grids agree"),
    ));
    let _ = write!(
        s.body,
        "\nThe walk engine and the frontier counter agree on {agree} of {both} grids where both ran; \
         the full rectangle table (m ≤ n ≤ {max_side}) is in the CSV. Largest square: {}.\n",
        (1..=max_side)
            .rev()
            .find_map(|n| get(&t, n, n, "frontier")
                .map(|x| format!("{n}×{n} has {} undirected Hamiltonian paths", x.0)))
            .unwrap_or_else(|| "–".into())
    );
    Ok(s)
}

fn sampler_section(results: &Path) -> Result<Section> {
    const TITLE: &str = "Numbrix backbite sampler held to exact uniformity";
    let path = results.join(SAMPLER_FILE);
    if !path.exists() {
        return Ok(Section::missing(TITLE, &path));
    }
    let rows = read_sampler(&path)?;
    let census = read_census(&results.join(CENSUS_FILE)).ok();
    let mut s = Section::new(TITLE);
    s.body.push_str(
        "Each draw starts from the boustrophedon snake and makes the given number of backbite \
         moves per cell (`results/numbrix_sampler.csv`). The drawn paths (undirected, keyed by edge set) are held \
         to every Hamiltonian path of the grid listed by the walk engine. `neighbour` is the \
         write-up's move (a uniform grid neighbour of the end); `compass` picks one of four \
         directions and refuses steps off the grid, which makes the chain symmetric. A sampler is \
         judged uniform when its TV distance from uniform is within the 95th percentile of the \
         TVs of simulated perfect samplers with the same number of draws; the same test is run \
         against the end-degree weighting ∝ deg(a)·deg(b) for which the neighbour chain is \
         reversible.\n\n\
         | grid | paths | variant | moves/cell | draws | accepted | turns (snake) | TV uniform | floor mean / p95 | uniform? (floor percentile) | TV end-degree | floor p95 | end-degree? |\n\
         | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: | ---: | ---: | :---: |\n",
    );
    for r in rows.iter().filter(|r| r.paths > 0) {
        let _ = writeln!(
            s.body,
            "| {}×{} | {} | {} | {} | {} | {:.1}% | {:.2} ({}) | {:.4} | {:.4} / {:.4} | {} ({:.0}%) | {:.4} | {:.4} | {} |",
            r.rows,
            r.cols,
            r.paths,
            r.variant,
            r.moves_per_cell,
            r.draws,
            100.0 * r.acceptance_rate,
            r.mean_turns,
            r.snake_turns,
            r.tv_uniform,
            r.floor_uniform_mean,
            r.floor_uniform_p95,
            if r.uniform { "yes" } else { "**no**" },
            100.0 * r.uniform_percentile,
            r.tv_end_degree,
            r.floor_end_degree_p95,
            if r.matches_end_degree { "yes" } else { "no" },
        );
        // The listed path count is the census count.
        if let Some(t) = &census {
            let (m, n) = (r.rows.min(r.cols), r.rows.max(r.cols));
            if let Some((u, _)) = get(t, m, n, "frontier") {
                s.checks.push(Check::eq(
                    format!("{}x{} {}: listed paths = census", r.rows, r.cols, r.variant),
                    BigUint::from(r.paths as u128),
                    u,
                ));
            }
        }
        s.checks.push(Check::new(
            format!(
                "{}x{} {}: every draw was a Hamiltonian path of the census",
                r.rows, r.cols, r.variant
            ),
            r.distinct_paths <= r.paths && r.draws > 0,
            format!("{} distinct of {} paths", r.distinct_paths, r.paths),
        ));
    }
    let verdict = |v: &str| {
        rows.iter()
            .filter(|r| r.variant == v && r.paths > 0)
            .map(|r| {
                format!(
                    "{}×{} at {}/cell: {}",
                    r.rows,
                    r.cols,
                    r.moves_per_cell,
                    if r.uniform { "uniform" } else { "not uniform" }
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let large: Vec<_> = rows.iter().filter(|r| r.paths == 0).collect();
    if !large.is_empty() {
        s.body.push_str(
            "\nPast the census (no exact distribution to hold the draws to): move statistics and \
             distinct draws, the write-up's 10×10 figures (200 draws, 200 different answers, about \
             seven in ten moves accepted, the snake's 18 turns tripled).\n\n\
             | grid | variant | moves/cell | draws | distinct | accepted | mean turns (snake) |\n\
             | --- | --- | ---: | ---: | ---: | ---: | ---: |\n",
        );
        if let Some(r) = large
            .iter()
            .find(|r| (r.rows, r.cols, r.variant.as_str()) == (10, 10, "neighbour"))
        {
            s.checks.push(Check::new(
                "10x10 neighbour (write-up): every draw a different answer",
                r.distinct_paths == r.draws,
                format!("{} distinct of {} draws", r.distinct_paths, r.draws),
            ));
            s.checks.push(Check::new(
                "10x10 neighbour (write-up): about seven in ten moves accepted",
                (r.acceptance_rate - 0.7).abs() < 0.05,
                format!("{:.1}% accepted", 100.0 * r.acceptance_rate),
            ));
            s.checks.push(Check::new(
                "10x10 neighbour (write-up): 16 moves per cell about triple the snake's turns",
                (2.5..=3.5).contains(&(r.mean_turns / r.snake_turns as f64)),
                format!("{:.2} turns vs the snake's {}", r.mean_turns, r.snake_turns),
            ));
        }
        for r in large {
            let _ = writeln!(
                s.body,
                "| {}×{} | {} | {} | {} | {} | {:.1}% | {:.2} ({}) |",
                r.rows,
                r.cols,
                r.variant,
                r.moves_per_cell,
                r.draws,
                r.distinct_paths,
                100.0 * r.acceptance_rate,
                r.mean_turns,
                r.snake_turns
            );
        }
    }
    let _ = write!(
        s.body,
        "\nVerdicts. neighbour (write-up's move): {}. compass: {}.\n\n\
         Each verdict is a test at the 5% level: a perfect sampler fails about one size in twenty, \
         so the floor percentile matters more than a single verdict. A perfect sampler's \
         percentiles spread evenly over 0–100%; a biased one sits at 100%.\n",
        verdict("neighbour"),
        verdict("compass")
    );
    Ok(s)
}
