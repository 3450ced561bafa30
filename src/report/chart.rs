//! Small SVG chart helpers over plotters, shared by the report sections.

use anyhow::{Result, anyhow};
use plotters::prelude::*;

/// A vertical bar chart of `(x, y)` points (x integer categories), as an SVG string.
pub fn bars(
    title: &str,
    x_label: &str,
    y_label: &str,
    points: &[(i64, f64)],
    log_y: bool,
) -> Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 420)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("chart: {e}"))?;
        let x_min = points.iter().map(|p| p.0).min().unwrap_or(0);
        let x_max = points.iter().map(|p| p.0).max().unwrap_or(1) + 1;
        let y_max = points.iter().map(|p| p.1).fold(0.0f64, f64::max).max(1e-12);
        let mut builder = ChartBuilder::on(&root);
        builder
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70);
        if log_y {
            let y_min = points
                .iter()
                .map(|p| p.1)
                .filter(|&v| v > 0.0)
                .fold(f64::MAX, f64::min)
                .min(y_max)
                / 2.0;
            let mut chart = builder
                .build_cartesian_2d(x_min..x_max, (y_min..y_max * 2.0).log_scale())
                .map_err(|e| anyhow!("chart: {e}"))?;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .draw()
                .map_err(|e| anyhow!("chart: {e}"))?;
            chart
                .draw_series(points.iter().filter(|p| p.1 > 0.0).map(|&(x, y)| {
                    Rectangle::new([(x, y_min), (x + 1, y)], BLUE.mix(0.6).filled())
                }))
                .map_err(|e| anyhow!("chart: {e}"))?;
        } else {
            let mut chart = builder
                .build_cartesian_2d(x_min..x_max, 0.0..y_max * 1.05)
                .map_err(|e| anyhow!("chart: {e}"))?;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .draw()
                .map_err(|e| anyhow!("chart: {e}"))?;
            chart
                .draw_series(
                    points.iter().map(|&(x, y)| {
                        Rectangle::new([(x, 0.0), (x + 1, y)], BLUE.mix(0.6).filled())
                    }),
                )
                .map_err(|e| anyhow!("chart: {e}"))?;
        }
        root.present().map_err(|e| anyhow!("chart: {e}"))?;
    }
    Ok(svg)
}
