//! The benchmark pipelines of Tessera, one module per app (its doc states the app's exact
//! specification): each app is a declarative description (`description`), its algorithm
//! written once in the embedded language, its named schedules (`schedule`), deterministic
//! default inputs, and a naive plain-Rust reference the tests compare against; `app` holds
//! the behaviour every app shares.
//! `apps()` lists them all; the `tessera` command and the benchmarks find apps here by name.

pub mod app;
pub mod bilateral_grid;
pub mod blur;
pub mod camera_pipe;
pub mod checksum;
pub mod description;
pub mod harris;
pub mod histeq;
pub mod input_files;
pub mod interpolate;
pub mod local_laplacian;
pub mod multigrid;
pub mod params;
pub mod pyramid_blend;
pub mod schedule;
pub mod spec_math;
pub mod stencil_chain;
pub mod synthetic;
pub mod unsharp;

pub use app::{App, AppDefinition, AppPipeline, LoweredApp};
pub use description::{AppDescription, InputRule, InputSpec, ParamSpec, Shape};

use tessera::{Error, Result};

/// Every built-in app, in the order `tessera apps` lists them.
pub fn apps() -> &'static [&'static dyn App] {
    &[
        &blur::Blur,
        &histeq::Histeq,
        &unsharp::Unsharp,
        &harris::Harris,
        &interpolate::Interpolate,
        &bilateral_grid::BilateralGrid,
        &local_laplacian::LocalLaplacian::STANDARD,
        &camera_pipe::CameraPipe,
        &pyramid_blend::PyramidBlend,
        &multigrid::Multigrid,
        &stencil_chain::StencilChain,
    ]
}

/// The app called `name`, or an error listing the apps that exist.
pub fn find(name: &str) -> Result<&'static dyn App> {
    apps()
        .iter()
        .copied()
        .find(|a| a.name() == name)
        .ok_or_else(|| {
            let names: Vec<&str> = apps().iter().map(|a| a.name()).collect();
            Error::Definition(format!(
                "there is no app named `{name}`; the apps are: {}",
                names.join(", ")
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for app in apps() {
            assert_eq!(find(app.name()).map(|a| a.name()), Ok(app.name()));
        }
        let err = find("nope")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains(
                "blur, histeq, unsharp, harris, interpolate, bilateral_grid, local_laplacian"
            ),
            "{err}"
        );
    }

    #[test]
    fn stage_counts_match_the_specs() {
        let counts: Vec<(&str, usize)> = apps()
            .iter()
            .map(|a| (a.name(), a.stage_count().expect("the algorithm builds")))
            .collect();
        // The Func a boundary condition makes counts here; the specs do not count it (unsharp 4,
        // harris 11, interpolate ≈50). pyramid_blend's 49 stages come with a copy of each
        // input as level 0 and a clamped copy of each level resampled (14).
        assert_eq!(
            counts,
            vec![
                ("blur", 2),
                ("histeq", 5),
                ("unsharp", 5),
                ("harris", 12),
                ("interpolate", 49),
                ("bilateral_grid", 7),
                ("local_laplacian", 88),
                ("camera_pipe", 34),
                ("pyramid_blend", 66),
                ("multigrid", 55),
                ("stencil_chain", 33),
            ]
        );
    }
}
