//! The automatic scheduler's pipeline analysis runs on every app, sized by estimates from the
//! app's default output and input sizes and its parameters' defaults, and finds as many Funcs
//! as `tessera apps` lists stages.

use std::time::Instant;

use tessera::autoschedule::{PipelineAnalysis, Producer};
use tessera::Result;
use tessera_apps::app::complete_params;
use tessera_apps::{apps, App};

/// The analysis of `app` at its default size.
fn analysis_at_default_size(app: &dyn App) -> Result<PipelineAnalysis> {
    let pipeline = app.build()?;
    let description = app.description();
    let (width, height) = description.default_size;
    let from_zero =
        |extents: Vec<i64>| -> Vec<(i64, i64)> { extents.into_iter().map(|e| (0, e)).collect() };
    let output = description.output.extents(width, height);
    pipeline.output.set_estimates(&from_zero(output))?;
    for (image, extents) in pipeline.inputs.iter().zip(app.input_extents(width, height)) {
        image.set_estimates(&from_zero(extents))?;
    }
    let params = complete_params(description.params, &[]);
    PipelineAnalysis::new(&pipeline.output, &params)
}

#[test]
fn the_analysis_runs_on_every_app_and_counts_its_stages() {
    for app in apps() {
        let start = Instant::now();
        let analysis =
            analysis_at_default_size(*app).unwrap_or_else(|e| panic!("{}: {e}", app.name()));
        let took = start.elapsed();
        // `tessera apps` counts Funcs by name before lowering makes names unique, so it counts
        // once each of pyramid_blend's four distinct Funcs that share a name with another
        // (boundary-condition Funcs such as `gA_2$repeat_edge`), which the analysis, like
        // lowering, tells apart.
        let merged_by_name = if app.name() == "pyramid_blend" { 4 } else { 0 };
        assert_eq!(
            analysis.graph.funcs.len(),
            app.stage_count().unwrap() + merged_by_name,
            "{}",
            app.name()
        );
        // Every Func and input has a required region, none of them empty.
        let producers = (analysis.graph.funcs.iter().map(|f| Producer::Func(f.name))).chain(
            analysis
                .graph
                .inputs
                .iter()
                .map(|i| Producer::Image(i.name)),
        );
        for p in producers {
            let region = analysis.footprints.required(p);
            let region = region.unwrap_or_else(|| panic!("{}: {p} has no region", app.name()));
            assert!(
                region.iter().all(|s| s.extent() >= 1),
                "{}: {p}",
                app.name()
            );
        }
        let stages = analysis.graph.stages().count();
        eprintln!(
            "{:<16} {:>3} Funcs {:>3} stages {:>4} edges  analysed in {:.1} ms",
            app.name(),
            analysis.graph.funcs.len(),
            stages,
            analysis.graph.edges.len(),
            took.as_secs_f64() * 1e3
        );
    }
}
