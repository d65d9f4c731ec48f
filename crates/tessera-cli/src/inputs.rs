//! The input images of `tessera run` and `bench`: the files `--input` names (`FILE`, or
//! `NAME=FILE` per input), read with `tessera::io`, or the app's built-in test images; checked
//! against the app before anything runs. An 8-bit PNG (a photo) given to an input of u16 or
//! f32 is converted to it (`tessera::io::photo`), with a note on stderr.

use std::path::Path;

use tessera::io;
use tessera::io::photo::widen_8_bit;
use tessera::prelude::*;
use tessera_apps::input_files::input_files;
use tessera_apps::App;
use tessera_apps::InputSpec;

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
                .zip(description.inputs)
                .map(|(file, spec)| read_input(app, spec, file))
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

/// The image `file` holds, for the input `spec` of `app`: an 8-bit PNG given to an input of
/// u16 or f32 widened to it, as photos are (255 becomes 65535, or 1.0), with a note on stderr.
fn read_input(app: &dyn App, spec: &InputSpec, file: &str) -> Result<AnyBuffer> {
    let path = Path::new(file);
    let image = io::read_image(path)?;
    let AnyBuffer::U8(photo) = &image else {
        return Ok(image);
    };
    if io::Format::of(path)? != io::Format::Png {
        return Ok(image);
    }
    let Some(widened) = widen_8_bit(photo, spec.ty) else {
        return Ok(image);
    };
    let scaling = if spec.ty == Type::u16() {
        "scaled by 257, 0..=255 to 0..=65535"
    } else {
        "scaled to [0, 1]"
    };
    eprintln!(
        "note: {file} is an 8-bit PNG and input `{}` of app {} is {}: its values are {scaling}",
        spec.name,
        app.name(),
        spec.ty
    );
    Ok(widened)
}
