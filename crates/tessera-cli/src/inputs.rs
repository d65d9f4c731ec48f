//! The input images of `tessera run` and `bench`: the files `--input` names (`FILE`, or
//! `NAME=FILE` per input), read with `tessera::io`, or the app's built-in test images; checked against
//! the app before anything runs.

use std::path::Path;

use tessera::io;
use tessera::prelude::*;
use tessera_apps::input_files::input_files;
use tessera_apps::App;

/// An app's input images, ready to run, with the output region they give.
pub struct LoadedInputs {
    /// One image per input of the app, in its declared order.
    pub images: Vec<AnyBuffer>,
    /// Where the images came from, for messages: the files, or "the built-in test image".
    pub source: String,
    /// The output region `(mins, extents)`.
    pub mins: Vec<i64>,
    pub extents: Vec<i64>,
}

/// The images `--input` arguments `arguments` name for `app`, or, with none, its built-in
/// test images for an output of `size` (the app's default size when `None`); an error names
/// the input or file that does not fit.
pub fn load_inputs(
    app: &dyn App,
    arguments: &[String],
    size: Option<(i64, i64)>,
) -> Result<LoadedInputs, String> {
    let description = app.description();
    let files = input_files(description, arguments).map_err(|e| e.to_string())?;
    let (images, source) = match files {
        Some(files) => {
            let images = files
                .iter()
                .map(|file| io::read_image(Path::new(file)))
                .collect::<Result<Vec<_>>>()
                .map_err(|e| e.to_string())?;
            (images, files.join(", "))
        }
        None => {
            let (w, h) = size.unwrap_or(description.default_size);
            let images = app
                .default_inputs(w, h)
                .map_err(|e| format!("the built-in test image: {e}"))?;
            (images, "the built-in test image".to_string())
        }
    };
    let (mins, extents) = app
        .check_inputs(&images)
        .map_err(|e| format!("{source}: {e}"))?;
    Ok(LoadedInputs {
        images,
        source,
        mins,
        extents,
    })
}
