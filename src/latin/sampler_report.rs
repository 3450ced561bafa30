//! Report section of the Latin sampler study: the table of `latin_samplers.csv`, a chart of each
//! row's total variation distance against its noise-floor band, and the checks of issue 3 §4.

use super::census_csv::{CENSUS_FILE, read_census, summarize};
use super::study::{CSV_COLUMNS, CSV_FILE, MAX_ORDER, MIN_ORDER};
use crate::report::{Chart, Check, Section, read_csv};
use anyhow::{Result, anyhow};
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

const TITLE: &str = "Latin samplers: Jacobson–Matthews readers held to the exact census";

/// One parsed row of `latin_samplers.csv`.
#[derive(Clone, Debug)]
pub struct Row {
    pub order: usize,
    pub sampler: String,
    pub t: Option<u64>,
    pub k: Option<u64>,
    pub draws: u64,
    pub mean: f64,
    pub exact_mean: f64,
    pub tv: f64,
    pub floor_mean: f64,
    pub floor_p95: f64,
    pub floor_sims: u64,
    /// `tv <= floor_p95` on the unrounded values (the CSV's `within_floor`).
    pub within: bool,
    pub chains: Option<f64>,
    pub moves: Option<f64>,
    pub seconds: f64,
}

impl Row {
    pub fn label(&self) -> String {
        match (self.t, self.k) {
            (Some(t), _) => format!("{} T={t}", self.sampler),
            (_, Some(k)) => format!("{} k={k}", self.sampler),
            _ => self.sampler.clone(),
        }
    }
    fn n3(&self) -> f64 {
        (self.order as f64).powi(3)
    }
}

pub fn read_rows(path: &Path) -> Result<Vec<Row>> {
    let mut rdr =
        csv::Reader::from_path(path).map_err(|e| anyhow!("cannot read {}: {e}", path.display()))?;
    let headers: Vec<String> = rdr.headers()?.iter().map(String::from).collect();
    if headers != CSV_COLUMNS {
        return Err(anyhow!(
            "{} has columns {headers:?}, expected {CSV_COLUMNS:?}",
            path.display()
        ));
    }
    let mut rows = Vec::new();
    for rec in read_csv(path)? {
        let f = |i: usize| -> Result<f64> {
            rec[i].parse().map_err(|_| {
                anyhow!(
                    "{}: bad number '{}' in {}",
                    path.display(),
                    &rec[i],
                    CSV_COLUMNS[i]
                )
            })
        };
        let o = |i: usize| -> Result<Option<f64>> {
            if rec[i].is_empty() {
                Ok(None)
            } else {
                f(i).map(Some)
            }
        };
        rows.push(Row {
            order: f(0)? as usize,
            sampler: rec[1].to_string(),
            t: o(2)?.map(|v| v as u64),
            k: o(3)?.map(|v| v as u64),
            draws: f(5)? as u64,
            mean: f(6)?,
            exact_mean: f(7)?,
            tv: f(8)?,
            floor_mean: f(9)?,
            floor_p95: f(10)?,
            floor_sims: f(11)? as u64,
            within: match &rec[12] {
                "true" => true,
                "false" => false,
                v => return Err(anyhow!("{}: bad within_floor '{v}'", path.display())),
            },
            chains: o(13)?,
            moves: o(14)?,
            seconds: 0.0, // filled from latin_samplers_timing.csv when present
        });
    }
    Ok(rows)
}

/// Wall-clock seconds per row come from the timing side file (a measurement, kept out of the
/// deterministic result file). Rows without a timing entry show 0.
fn fill_seconds(rows: &mut [Row], timing: &Path) {
    let Ok(recs) = read_csv(timing) else { return };
    for rec in recs {
        let key = (
            rec.get(0).unwrap_or(""),
            rec.get(1).unwrap_or(""),
            rec.get(2).unwrap_or(""),
            rec.get(3).unwrap_or(""),
        );
        let secs: f64 = rec.get(4).and_then(|v| v.parse().ok()).unwrap_or(0.0);
        for r in rows.iter_mut() {
            let t = r.t.map(|v| v.to_string()).unwrap_or_default();
            let k = r.k.map(|v| v.to_string()).unwrap_or_default();
            if (
                r.order.to_string().as_str(),
                r.sampler.as_str(),
                t.as_str(),
                k.as_str(),
            ) == key
            {
                r.seconds = secs;
            }
        }
    }
}

fn opt(v: Option<f64>, d: usize) -> String {
    v.map(|x| format!("{x:.d$}")).unwrap_or_else(|| "—".into())
}

pub fn sections(results: &Path) -> Result<Vec<Section>> {
    let path = results.join(CSV_FILE);
    if !path.exists() {
        return Ok(vec![Section::missing(TITLE, &path)]);
    }
    let mut rows = read_rows(&path)?;
    fill_seconds(&mut rows, &results.join(super::study::TIMING_FILE));
    let census = read_census(&results.join(CENSUS_FILE))?;
    let mut s = Section::new(TITLE);
    s.body.push_str(
        "Each row draws D Latin squares with one sampler and compares the histogram of their \
         intercalate counts with the exact census distribution (`results/latin_samplers.csv`). \
         TV is the total variation distance; the noise floor is the TV of D perfect draws from the \
         exact distribution, simulated R times (mean / 95th percentile, nearest rank). Readers of \
         the Jacobson–Matthews chain start from the cyclic square: *wait-for-proper* runs T moves \
         and then steps until proper; *fixed-time* runs exactly T moves and keeps the square only \
         if proper (else a new chain); *thinned* keeps every k-th proper state of one long chain \
         after a burn-in; *exact* draws from the census. Seconds are summed wall-clock time of the \
         row's work units (one thread).\n\n\
         | order | sampler | draws | mean intercalates | exact | TV | floor mean / p95 | within floor | chains / square | moves / square | seconds |\n\
         | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |\n",
    );
    for r in &rows {
        let _ = writeln!(
            s.body,
            "| {} | {} | {} | {:.3} | {:.3} | {:.4} | {:.4} / {:.4} | {} | {} | {} | {:.2} |",
            r.order,
            r.label(),
            r.draws,
            r.mean,
            r.exact_mean,
            r.tv,
            r.floor_mean,
            r.floor_p95,
            if r.within { "yes" } else { "**no**" },
            opt(r.chains, 2),
            opt(r.moves, 0),
            r.seconds
        );
    }
    let total_seconds: f64 = rows.iter().map(|r| r.seconds).sum();
    let _ = writeln!(
        s.body,
        "\nSum of row seconds: {total_seconds:.1} s (thread-seconds; noise-floor simulations not included)."
    );

    // Presence of every order of the default study.
    for n in MIN_ORDER..=MAX_ORDER {
        let present = rows.iter().any(|r| r.order == n);
        s.checks.push(Check::new(
            format!("order {n} present"),
            present,
            if present {
                "rows present".to_string()
            } else {
                "missing: needs order {n} in latin_census.csv, then `gridcensus latin samplers`"
                    .replace("{n}", &n.to_string())
            },
        ));
    }
    // The exact mean of each order is the census mean.
    for n in MIN_ORDER..=MAX_ORDER {
        let Some(r) = rows.iter().find(|r| r.order == n) else {
            continue;
        };
        if let Some(h) = census.get(&n) {
            let m = summarize(n, h).mean;
            s.checks.push(Check::new(
                format!("order {n}: exact mean = census mean"),
                (r.exact_mean - m).abs() < 5e-5,
                format!("csv {:.4}, census {m:.6}", r.exact_mean),
            ));
        }
    }
    // Rows held to their 95th-percentile floor: (name, within).
    let mut floor_rows: Vec<(String, bool)> = Vec::new();
    for r in &rows {
        let name = format!("order {}: {}", r.order, r.label());
        let within = r.within;
        let detail = format!("TV {:.4}, floor p95 {:.4}", r.tv, r.floor_p95);
        match r.sampler.as_str() {
            "fixed-time" if r.t.unwrap_or(0) as f64 >= r.n3() => {
                floor_rows.push((format!("{name} (T ≥ n³)"), within));
                s.checks
                    .push(gross_bias_check(&format!("{name} (T ≥ n³)"), r));
            }
            "thinned" if r.moves.unwrap_or(0.0) >= r.n3() => {
                floor_rows.push((format!("{name} (≥ n³ moves per kept square)"), within));
                s.checks.push(gross_bias_check(
                    &format!("{name} (≥ n³ moves per kept square)"),
                    r,
                ));
            }
            "wait-for-proper" if r.t.unwrap_or(0) as f64 >= r.n3() && r.order >= 6 => {
                // The write-up's finding; reported either way, never hidden (issue 3 §4).
                s.checks.push(Check::new(
                    format!("{name} (T ≥ n³) outside the noise floor (write-up's finding; informational)"),
                    true,
                    if within {
                        format!("{detail}: DISAGREES with the write-up — inside the floor")
                    } else {
                        format!("{detail}: agrees with the write-up — outside the floor")
                    },
                ));
            }
            "naive" => {
                s.checks.push(Check::new(
                    format!("{name} outside the noise floor"),
                    !within,
                    detail,
                ));
            }
            _ => {}
        }
    }
    // How often a perfect sampler lands outside its floor: its TV and the R floor simulations
    // are exchangeable, so it exceeds the ⌈0.95·R⌉-th smallest of them with probability
    // (R − ⌈0.95·R⌉ + 1)/(R + 1) (3/41 ≈ 7.3% at R = 40; ties only lower it), before any bias.
    if !floor_rows.is_empty() {
        let m = floor_rows.len();
        let outside: Vec<&str> = floor_rows
            .iter()
            .filter(|r| !r.1)
            .map(|r| r.0.as_str())
            .collect();
        let r = rows.iter().map(|r| r.floor_sims).max().unwrap_or(0);
        let above = r + 1 - ((0.95 * r as f64).ceil() as u64).max(1);
        let chance = above as f64 / (r + 1) as f64;
        let allowed = binomial_upper_quantile(m as u64, chance, 1e-3);
        let _ = writeln!(
            s.body,
            "\n{m} fixed-time and thinned rows (T ≥ n³) are held to their 95th-percentile floor and {} of \
             them fall outside it{}. With R = {r} floor simulations, even a perfect sampler lands above the \
             nearest-rank 95th percentile with probability {above}/{} ≈ {:.1}% per row, so about {:.1} of \
             these rows are expected outside by chance alone. The check is therefore on the family: \
             more than {allowed} rows outside would happen by chance with probability below 0.1% \
             (Binomial({m}, {:.4}) tail). Each row is also checked against a gross-bias bound, \
             floor mean + 5σ̂ with σ̂ = (p95 − mean)/1.645; the biased readers sit far above it.",
            outside.len(),
            if outside.is_empty() {
                String::new()
            } else {
                format!(" ({})", outside.join("; "))
            },
            r + 1,
            100.0 * chance,
            m as f64 * chance,
            chance
        );
        s.checks.push(Check::new(
            "fixed-time and thinned rows (T ≥ n³) within the 95th-percentile floor, as a family",
            outside.len() as u64 <= allowed,
            format!(
                "{} of {m} rows outside; at most {allowed} expected by chance (p < 0.001)",
                outside.len()
            ),
        ));
    }
    s.charts.push(Chart {
        file: "latin_samplers_tv.svg".into(),
        svg: tv_chart(&rows)?,
        caption: "total variation of each row against its noise-floor band".into(),
    });
    Ok(vec![s])
}

/// A row is grossly biased if its TV exceeds the floor mean by more than five estimated floor
/// standard deviations, σ̂ = (p95 − mean)/1.645 (a perfect sampler essentially never does).
fn gross_bias_check(name: &str, r: &Row) -> Check {
    let sigma = ((r.floor_p95 - r.floor_mean) / 1.645).max(0.0);
    let bound = r.floor_mean + 5.0 * sigma;
    Check::new(
        format!("{name}: no gross bias (TV ≤ floor mean + 5σ̂)"),
        r.tv <= bound,
        format!(
            "TV {:.4}, bound {bound:.4}; p95 floor {:.4} ({})",
            r.tv,
            r.floor_p95,
            if r.within { "inside" } else { "outside" }
        ),
    )
}

/// Smallest k with P(Binomial(m, p) > k) < alpha.
pub fn binomial_upper_quantile(m: u64, p: f64, alpha: f64) -> u64 {
    let mut pmf = (1.0 - p).powi(m as i32); // P(X = 0)
    let mut cdf = pmf;
    let mut k = 0;
    while 1.0 - cdf >= alpha && k < m {
        pmf *= (m - k) as f64 / (k + 1) as f64 * p / (1.0 - p);
        k += 1;
        cdf += pmf;
    }
    k
}

fn color(sampler: &str) -> RGBColor {
    match sampler {
        "naive" => RGBColor(200, 40, 40),
        "wait-for-proper" => RGBColor(230, 140, 0),
        "fixed-time" => RGBColor(30, 120, 200),
        "thinned" => RGBColor(40, 160, 80),
        _ => RGBColor(90, 90, 90),
    }
}

/// Each row's TV (a dot, log scale) over its noise-floor band (mean to 95th percentile).
pub fn tv_chart(rows: &[Row]) -> Result<String> {
    let mut svg = String::new();
    {
        let w = (200 + 22 * rows.len()).max(800) as u32;
        let root = SVGBackend::with_string(&mut svg, (w, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("chart: {e}"))?;
        let y_min = rows
            .iter()
            .flat_map(|r| [r.tv, r.floor_mean])
            .filter(|&v| v > 0.0)
            .fold(f64::MAX, f64::min)
            .min(1.0)
            / 2.0;
        let y_max = rows.iter().map(|r| r.tv).fold(0.01f64, f64::max) * 2.0;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Total variation vs exact census, with the noise-floor band (mean–p95)",
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(150)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..rows.len() as f64 - 0.5, (y_min..y_max).log_scale())
            .map_err(|e| anyhow!("chart: {e}"))?;
        let labels: Vec<String> = rows
            .iter()
            .map(|r| format!("n={} {}", r.order, r.label()))
            .collect();
        chart
            .configure_mesh()
            .x_labels(rows.len())
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                    labels[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .x_label_style(
                ("sans-serif", 10)
                    .into_font()
                    .transform(FontTransform::Rotate90),
            )
            .y_desc("total variation distance (log)")
            .disable_x_mesh()
            .draw()
            .map_err(|e| anyhow!("chart: {e}"))?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, r)| {
                let x = i as f64;
                Rectangle::new(
                    [
                        (x - 0.4, r.floor_mean.max(y_min)),
                        (x + 0.4, r.floor_p95.max(y_min)),
                    ],
                    RGBColor(160, 160, 160).mix(0.5).filled(),
                )
            }))
            .map_err(|e| anyhow!("chart: {e}"))?;
        for name in ["naive", "wait-for-proper", "fixed-time", "thinned", "exact"] {
            let c = color(name);
            chart
                .draw_series(
                    rows.iter()
                        .enumerate()
                        .filter(|(_, r)| r.sampler == name)
                        .map(|(i, r)| Circle::new((i as f64, r.tv.max(y_min)), 4, c.filled())),
                )
                .map_err(|e| anyhow!("chart: {e}"))?
                .label(name)
                .legend(move |(x, y)| Circle::new((x, y), 4, c.filled()));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| anyhow!("chart: {e}"))?;
        root.present().map_err(|e| anyhow!("chart: {e}"))?;
    }
    Ok(svg)
}
