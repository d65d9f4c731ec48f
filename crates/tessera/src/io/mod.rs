//! Images in and out of Tessera: how arrays in files map to buffer coordinates (`layout`),
//! the conversions between 8-bit photos and the u16 or float images pipelines compute on
//! (`photo`), and, with the default cargo feature `io`, reading and writing `.npy` and `.png`
//! files (`read_image`, `write_image`, `OutputFile`).

#[cfg(feature = "io")]
mod files;
pub mod layout;
pub mod photo;

#[cfg(feature = "io")]
pub use files::{decode_image, read_image, write_image, Format, OutputFile, DEFLATE_MAX_EXPANSION};
