//! Image files: reading and writing `.npy` (any numeric dtype, shape [H, W] or [H, W, C], C
//! or Fortran order, either endianness) and `.png` (8/16-bit gray, gray+alpha, RGB, RGBA;
//! palettes and low bit depths are expanded to 8 bits) to and from `AnyBuffer`s with the
//! coordinates of `io::layout`. Images read are copied to buffers dense in x (compiled
//! pipelines require stride 1 in dimension 0; files store channels or, in Fortran order, y
//! fastest). Every failure is one line naming the file.
//!
//! Headers are not trusted: a header claiming more data than the file can hold is refused
//! before anything is allocated, so a small file cannot make the reader ask for terabytes.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Cursor, Read, Seek, Write};
use std::path::{Path, PathBuf};

use npyz::{DType, TypeChar, WriterBuilder};

use super::layout::{file_order_values, file_shape, from_file_order};
use crate::error::{Error, Result};
use crate::ir::Type;
use crate::lang::buffer::{any_buffer_dispatch, AnyBuffer, Buffer};
use crate::lang::scalar::Scalar;
use crate::runtime::huge_pages;

/// The image read from a file, laid out dense in x (as pipelines take their inputs): the file
/// data itself when it already is, else a copy.
fn read_buffer<T: Scalar>(
    data: Vec<T>,
    shape: &[usize],
    column_major: bool,
) -> std::result::Result<AnyBuffer, String>
where
    AnyBuffer: From<Buffer<T>>,
{
    let view = from_file_order(data, shape, column_major).map_err(|e| e.to_string())?;
    if view.dims().first().is_none_or(|d| d.stride == 1) {
        return Ok(view.into());
    }
    Buffer::try_from_fn(&view.mins(), &view.extents(), |c| view.get(c))
        .map(AnyBuffer::from)
        .map_err(|e| format!("cannot lay the image out dense in x ({e})"))
}

/// The file formats, chosen by extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// NumPy's `.npy`: any element type and dimension count.
    Npy,
    /// PNG: 8- or 16-bit gray, gray-alpha, RGB or RGBA.
    Png,
}

impl Format {
    /// The format of `path`, by its extension; an error names an unknown one.
    pub fn of(path: &Path) -> Result<Format> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("npy") => Ok(Format::Npy),
            Some("png") => Ok(Format::Png),
            _ => Err(Error::Io(format!(
                "{}: unknown image format; use a .npy or .png file",
                path.display()
            ))),
        }
    }

    /// Whether images of element type `ty` can be stored in this format.
    pub fn check_type(self, path: &Path, ty: Type) -> Result<()> {
        if self == Format::Png && ty != Type::u8() && ty != Type::u16() {
            return Err(Error::Io(format!(
                "{}: PNG stores u8 or u16 images, not {ty}; write a .npy file instead",
                path.display()
            )));
        }
        Ok(())
    }
}

fn io_error(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {what}", path.display()))
}

/// Decodes an image file's contents held in memory: `bytes` in `format`.
pub fn decode_image(bytes: &[u8], format: Format) -> Result<AnyBuffer> {
    let reader = Cursor::new(bytes);
    match format {
        Format::Npy => read_npy(reader, bytes.len() as u64),
        Format::Png => read_png(reader, bytes.len() as u64),
    }
    .map_err(Error::Io)
}

/// Writes `image` to the file `path` (format by extension), replacing any file there; see
/// `OutputFile` to check the path before computing the image.
pub fn write_image(path: &Path, image: &AnyBuffer) -> Result<()> {
    OutputFile::open(path, image.ty())?.write(image)
}

/// Reads an image file (format by extension).
pub fn read_image(path: &Path) -> Result<AnyBuffer> {
    let format = Format::of(path)?;
    let file = File::open(path).map_err(|e| io_error(path, format!("cannot open: {e}")))?;
    let file_bytes = file
        .metadata()
        .map_err(|e| io_error(path, format!("cannot read its size: {e}")))?
        .len();
    let reader = BufReader::new(file);
    match format {
        Format::Npy => read_npy(reader, file_bytes),
        Format::Png => read_png(reader, file_bytes),
    }
    .map_err(|msg| io_error(path, msg))
}

/// An output image file, opened before the image is computed so that a path that cannot be
/// written (a missing directory, no permission, a format that cannot hold the image's type)
/// fails before a long computation, not after. An existing file keeps its contents until
/// `write` replaces them; a file `open` created is removed again unless an image was written
/// to it in full.
pub struct OutputFile {
    path: PathBuf,
    file: File,
    format: Format,
    created: bool,
    written: bool,
}

impl OutputFile {
    /// Opens `path` for writing an image of element type `ty` (format by extension).
    pub fn open(path: &Path, ty: Type) -> Result<OutputFile> {
        let format = Format::of(path)?;
        format.check_type(path, ty)?;
        let created = !path.exists();
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| io_error(path, format!("cannot create: {e}")))?;
        Ok(OutputFile {
            path: path.to_path_buf(),
            file,
            format,
            created,
            written: false,
        })
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// Replaces the file's contents with `image`.
    pub fn write(mut self, image: &AnyBuffer) -> Result<()> {
        let result = self
            .write_contents(image)
            .map_err(|msg| io_error(&self.path, msg));
        self.written = result.is_ok();
        result
    }

    fn write_contents(&mut self, image: &AnyBuffer) -> std::result::Result<(), String> {
        self.file
            .set_len(0)
            .map_err(|e| format!("cannot truncate ({e})"))?;
        let mut writer = BufWriter::new(&mut self.file);
        match self.format {
            Format::Npy => write_npy(&mut writer, image),
            Format::Png => write_png(&mut writer, image),
        }?;
        writer.flush().map_err(|e| format!("cannot write ({e})"))
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.created && !self.written {
            // Best effort: the error that stopped the run is the one the user needs to see.
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The file shape of an image, checked to be [H, W] or [H, W, C].
fn image_shape(shape: &[u64]) -> std::result::Result<Vec<usize>, String> {
    if !(2..=3).contains(&shape.len()) {
        return Err(format!(
            "the array has shape {shape:?}; images have shape [H, W] or [H, W, C]"
        ));
    }
    shape
        .iter()
        .map(|&e| usize::try_from(e).map_err(|_| format!("extent {e} is too large")))
        .collect()
}

/// The bytes of a `.npy` file's preamble (magic, version, header length) and header text,
/// read after checking the claimed header length against the file's, and the array shape the
/// header gives, checked so that its element count fits in 64 bits. npyz trusts both: it
/// allocates the header length it reads, and multiplies extents without overflow checks.
fn read_npy_header(
    reader: &mut impl Read,
    file_bytes: u64,
) -> std::result::Result<(Vec<u8>, Vec<u64>), String> {
    let invalid = |why: &dyn std::fmt::Display| format!("not a valid .npy file ({why})");
    let mut preamble = [0u8; 8];
    reader.read_exact(&mut preamble).map_err(|e| invalid(&e))?;
    if &preamble[..6] != b"\x93NUMPY" {
        return Err(invalid(&"magic not found"));
    }
    let length_bytes = match preamble[6] {
        1 => 2,
        2 | 3 => 4,
        major => return Err(invalid(&format_args!("unknown format version {major}"))),
    };
    let mut length = [0u8; 4];
    reader
        .read_exact(&mut length[..length_bytes])
        .map_err(|e| invalid(&e))?;
    let header_bytes = u32::from_le_bytes(length) as u64;
    let prefix_bytes = 8 + length_bytes as u64 + header_bytes;
    if prefix_bytes > file_bytes {
        return Err(format!(
            "the header claims {header_bytes} bytes but the file holds {file_bytes} bytes in all"
        ));
    }
    let mut prefix = preamble.to_vec();
    prefix.extend_from_slice(&length[..length_bytes]);
    let text_start = prefix.len();
    prefix.resize(prefix_bytes as usize, 0);
    reader
        .read_exact(&mut prefix[text_start..])
        .map_err(|e| invalid(&e))?;
    let shape = std::str::from_utf8(&prefix[text_start..])
        .ok()
        .and_then(|text| header_shape(text.trim_end()))
        .ok_or_else(|| invalid(&"its header gives no shape as a tuple of extents"))?;
    if shape
        .iter()
        .filter(|&&e| e != 0)
        .try_fold(1u64, |n, &e| n.checked_mul(e))
        .is_none()
    {
        return Err(format!(
            "the header claims shape {shape:?}, more elements than 2^64, but the file holds {file_bytes} bytes"
        ));
    }
    Ok((prefix, shape))
}

/// The `'shape'` entry of a `.npy` header's dictionary, if it is a tuple or list of
/// non-negative integers that fit in 64 bits.
fn header_shape(text: &str) -> Option<Vec<u64>> {
    use py_literal::Value;
    let Ok(Value::Dict(entries)) = text.parse::<Value>() else {
        return None;
    };
    let (_, shape) = entries
        .iter()
        .find(|(key, _)| matches!(key, Value::String(k) if k == "shape"))?;
    let (Value::Tuple(extents) | Value::List(extents)) = shape else {
        return None;
    };
    extents
        .iter()
        .map(|e| match e {
            Value::Integer(n) => u64::try_from(n).ok(),
            _ => None,
        })
        .collect()
}

fn read_npy(mut reader: impl Read, file_bytes: u64) -> std::result::Result<AnyBuffer, String> {
    let (prefix, claimed_shape) = read_npy_header(&mut reader, file_bytes)?;
    let prefix_bytes = prefix.len() as u64;
    let file = npyz::NpyFile::new(Cursor::new(prefix).chain(reader))
        .map_err(|e| format!("not a valid .npy file ({e})"))?;
    let shape = image_shape(file.shape())?;
    let column_major = file.order() == npyz::Order::Fortran;
    let DType::Plain(ty) = file.dtype() else {
        return Err(format!(
            "the array has the structured dtype {}; Tessera reads plain numeric arrays",
            file.dtype().descr()
        ));
    };
    let data_bytes = file_bytes - prefix_bytes;
    let claimed_bytes = file.len().checked_mul(ty.size_field());
    if claimed_bytes.is_none_or(|claimed| claimed > data_bytes) {
        let claimed = claimed_bytes.map_or("more than 2^64".to_string(), |bytes| bytes.to_string());
        return Err(format!(
            "the header claims shape {claimed_shape:?} of {ty} ({claimed} bytes of data), but the file holds {file_bytes} bytes in all, {data_bytes} after its header"
        ));
    }
    fn typed<T: Scalar + npyz::Deserialize, R: Read>(
        file: npyz::NpyFile<R>,
        shape: &[usize],
        column_major: bool,
    ) -> std::result::Result<AnyBuffer, String>
    where
        AnyBuffer: From<Buffer<T>>,
    {
        let cannot_read = |e: &dyn std::fmt::Display| format!("cannot read the array data ({e})");
        let reader = file.data::<T>().map_err(|e| cannot_read(&e))?;
        // Read into memory on huge pages, as the buffers Tessera makes itself are. The size
        // was checked against the file's.
        let mut data = huge_pages::try_vec_with_capacity(reader.len() as usize).map_err(|_| {
            format!(
                "out of memory: the array data needs {} bytes",
                reader.len() as u128 * std::mem::size_of::<T>() as u128
            )
        })?;
        for value in reader {
            data.push(value.map_err(|e| cannot_read(&e))?);
        }
        read_buffer(data, shape, column_major)
    }
    match (ty.type_char(), ty.size_field()) {
        (TypeChar::Bool, 1) => typed::<bool, _>(file, &shape, column_major),
        (TypeChar::Uint, 1) => typed::<u8, _>(file, &shape, column_major),
        (TypeChar::Uint, 2) => typed::<u16, _>(file, &shape, column_major),
        (TypeChar::Uint, 4) => typed::<u32, _>(file, &shape, column_major),
        (TypeChar::Uint, 8) => typed::<u64, _>(file, &shape, column_major),
        (TypeChar::Int, 1) => typed::<i8, _>(file, &shape, column_major),
        (TypeChar::Int, 2) => typed::<i16, _>(file, &shape, column_major),
        (TypeChar::Int, 4) => typed::<i32, _>(file, &shape, column_major),
        (TypeChar::Int, 8) => typed::<i64, _>(file, &shape, column_major),
        (TypeChar::Float, 2) => typed::<half::f16, _>(file, &shape, column_major),
        (TypeChar::Float, 4) => typed::<f32, _>(file, &shape, column_major),
        (TypeChar::Float, 8) => typed::<f64, _>(file, &shape, column_major),
        _ => Err(format!(
            "the array has dtype {ty}; Tessera reads bool, integer and float16/32/64 arrays"
        )),
    }
}

fn write_npy(writer: &mut impl Write, image: &AnyBuffer) -> std::result::Result<(), String> {
    fn typed<T: Scalar + npyz::AutoSerialize>(
        writer: &mut impl Write,
        b: &Buffer<T>,
    ) -> std::io::Result<()> {
        let shape: Vec<u64> = file_shape(b.dims()).iter().map(|&e| e as u64).collect();
        let mut out = npyz::WriteOptions::new()
            .default_dtype()
            .shape(&shape)
            .writer(writer)
            .begin_nd()?;
        out.extend(file_order_values(b))?;
        out.finish()
    }
    any_buffer_dispatch!(image, b => typed(writer, b)).map_err(|e| format!("cannot write ({e})"))
}

/// How many times its size deflate can expand data at most (a run of one byte repeated:
/// 258 bytes from one length code and one distance code, 2 bits in all at best). A PNG's
/// pixel data cannot be larger than this many times the whole file.
pub const DEFLATE_MAX_EXPANSION: u64 = 1032;

fn read_png(
    reader: impl BufRead + Seek,
    file_bytes: u64,
) -> std::result::Result<AnyBuffer, String> {
    let mut decoder = png::Decoder::new(reader);
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut png = decoder
        .read_info()
        .map_err(|e| format!("not a valid PNG file ({e})"))?;
    let info = png.info();
    let (w, h) = (info.width as u64, info.height as u64);
    let bits_per_pixel = info.color_type.samples() as u64 * info.bit_depth as u64;
    // Each row is a filter byte and its pixels, in whole bytes.
    let pixel_bytes = (w * bits_per_pixel)
        .div_ceil(8)
        .checked_add(1)
        .and_then(|row| row.checked_mul(h));
    if pixel_bytes.is_none_or(|bytes| bytes > file_bytes.saturating_mul(DEFLATE_MAX_EXPANSION)) {
        let claimed = pixel_bytes.map_or("more than 2^64".to_string(), |b| b.to_string());
        return Err(format!(
            "the header claims a {w} x {h} image ({claimed} bytes of pixel data), more than a file of {file_bytes} bytes can hold"
        ));
    }
    let (color, depth) = png.output_color_type();
    let size = png
        .output_buffer_size()
        .ok_or_else(|| "the PNG image is too large".to_string())?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(size)
        .map_err(|_| format!("out of memory: the decoded image needs {size} bytes"))?;
    bytes.resize(size, 0);
    let frame = png
        .next_frame(&mut bytes)
        .map_err(|e| format!("cannot decode the PNG image ({e})"))?;
    bytes.truncate(frame.buffer_size());
    let (w, h) = (frame.width as usize, frame.height as usize);
    let channels = color.samples();
    let mut shape = vec![h, w];
    if channels > 1 {
        shape.push(channels);
    }
    // Rows are tightly packed once expanded to 8 or 16 bits per sample.
    match depth {
        png::BitDepth::Eight => read_buffer(bytes, &shape, false),
        png::BitDepth::Sixteen => {
            let samples = bytes
                .chunks_exact(2)
                .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
                .collect();
            read_buffer(samples, &shape, false)
        }
        other => Err(format!(
            "the PNG image has {other:?}-bit samples after expansion; expected 8 or 16"
        )),
    }
}

fn write_png(writer: &mut impl Write, image: &AnyBuffer) -> std::result::Result<(), String> {
    let shape = file_shape(image.dims());
    let channels = match shape.len() {
        2 => 1,
        3 => shape[2],
        _ => 0,
    };
    let color = match channels {
        1 => png::ColorType::Grayscale,
        2 => png::ColorType::GrayscaleAlpha,
        3 => png::ColorType::Rgb,
        4 => png::ColorType::Rgba,
        _ => {
            return Err(format!(
                "PNG stores images of shape [H, W] or [H, W, C] with C in 1..=4, not {shape:?}; write a .npy file instead"
            ))
        }
    };
    let (h, w) = (shape[0], shape[1]);
    let (Ok(w32), Ok(h32)) = (u32::try_from(w), u32::try_from(h)) else {
        return Err(format!("a {w} x {h} image is too large for PNG"));
    };
    if w32 == 0 || h32 == 0 {
        return Err(format!("PNG cannot store an empty ({w} x {h}) image"));
    }
    let (depth, data) = match image {
        AnyBuffer::U8(b) => (png::BitDepth::Eight, file_order_values(b)),
        AnyBuffer::U16(b) => (
            png::BitDepth::Sixteen,
            file_order_values(b)
                .iter()
                .flat_map(|v| v.to_be_bytes())
                .collect(),
        ),
        other => {
            return Err(format!(
                "PNG stores u8 or u16 images, not {}; write a .npy file instead",
                other.ty()
            ))
        }
    };
    let mut encoder = png::Encoder::new(writer, w32, h32);
    encoder.set_color(color);
    encoder.set_depth(depth);
    let mut png = encoder
        .write_header()
        .map_err(|e| format!("cannot write the PNG header ({e})"))?;
    png.write_image_data(&data)
        .map_err(|e| format!("cannot write the PNG data ({e})"))?;
    png.finish()
        .map_err(|e| format!("cannot finish the PNG file ({e})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tempfile::TempDir;

    fn round_trip(name: &str, image: AnyBuffer) -> AnyBuffer {
        let dir = TempDir::new().expect("temp dir");
        let path = dir.path().join(name);
        write_image(&path, &image).expect("write");
        read_image(&path).expect("read")
    }

    fn ramp<T: Scalar>(extents: &[i64], value: impl Fn(i64) -> T) -> Buffer<T> {
        let mut i = 0;
        Buffer::from_fn(&vec![0; extents.len()], extents, |_| {
            i += 1;
            value(i * 7919)
        })
    }

    /// Each of `images`, written to a file `name` and read back, is the same image.
    fn assert_round_trips(name: &str, images: Vec<AnyBuffer>) {
        for image in images {
            let back = round_trip(name, image.clone());
            assert!(
                same_image(&image, &back),
                "{} {:?}",
                image.ty(),
                image.dims()
            );
        }
    }

    fn err(result: Result<AnyBuffer>) -> String {
        match result {
            Ok(b) => panic!("expected an error, read {:?}", b.dims()),
            Err(e) => e.to_string(),
        }
    }

    /// Same extents and the same element at every coordinate.
    fn same_image(a: &AnyBuffer, b: &AnyBuffer) -> bool {
        let extents: Vec<i64> = a.dims().iter().map(|d| d.extent).collect();
        let mut same = a.ty() == b.ty()
            && b.dims()
                .iter()
                .map(|d| d.extent)
                .eq(extents.iter().copied());
        crate::lang::buffer::for_each_coord_in(&vec![0; extents.len()], &extents, &mut |c| {
            same &= a.get_value(c) == b.get_value(c);
        });
        same
    }

    #[test]
    fn npy_round_trips_every_dtype_and_shape() {
        let images: Vec<AnyBuffer> = vec![
            ramp::<u8>(&[5, 3], |v| v as u8).into(),
            ramp::<u16>(&[4, 6, 3], |v| v as u16).into(),
            ramp::<u32>(&[2, 2], |v| v as u32).into(),
            ramp::<u64>(&[2, 2], |v| v as u64 * 1_000_000_007).into(),
            ramp::<i8>(&[3, 2], |v| v as i8).into(),
            ramp::<i16>(&[3, 2], |v| -(v as i16)).into(),
            ramp::<i32>(&[3, 2, 2], |v| -(v as i32)).into(),
            ramp::<i64>(&[3, 2], |v| -v).into(),
            ramp::<half::f16>(&[3, 4], |v| half::f16::from_f32(v as f32 / 3.0)).into(),
            ramp::<f32>(&[7, 5, 4], |v| v as f32 / 3.0).into(),
            ramp::<f64>(&[1, 1], |v| v as f64 / 7.0).into(),
            ramp::<bool>(&[3, 3], |v| v % 3 == 0).into(),
        ];
        assert_round_trips("image.npy", images);
    }

    #[test]
    fn png_round_trips_gray_and_color_at_8_and_16_bits() {
        let images: Vec<AnyBuffer> = vec![
            ramp::<u8>(&[5, 3], |v| v as u8).into(),
            ramp::<u8>(&[4, 2, 3], |v| v as u8).into(),
            ramp::<u16>(&[6, 4], |v| v as u16).into(),
            ramp::<u16>(&[3, 5, 4], |v| v as u16).into(),
            ramp::<u16>(&[2, 2, 2], |v| v as u16).into(),
        ];
        assert_round_trips("image.png", images);
    }

    #[test]
    fn images_decoded_from_memory_equal_the_files_read() {
        let dir = TempDir::new().expect("temp dir");
        for (name, format) in [("m.npy", Format::Npy), ("m.png", Format::Png)] {
            let path = dir.path().join(name);
            let image = Buffer::<u16>::from_fn(&[0, 0], &[9, 4], |c| (c[0] * 1000 + c[1]) as u16);
            write_image(&path, &image.clone().into()).expect("write");
            let bytes = std::fs::read(&path).expect("read the bytes");
            let decoded = decode_image(&bytes, format).expect("decode");
            assert_eq!(decoded, read_image(&path).expect("read"));
            let decoded: Buffer<u16> = decoded.into_typed().expect("u16");
            for y in 0..4 {
                for x in 0..9 {
                    assert_eq!(
                        decoded.get(&[x, y]),
                        (x * 1000 + y) as u16,
                        "{name} at ({x}, {y})"
                    );
                }
            }
        }
        let e = decode_image(b"junk", Format::Png).expect_err("not a PNG");
        assert!(e.to_string().contains("not a valid PNG file"), "{e}");
    }

    #[test]
    fn npy_written_by_numpy_layouts_is_read_at_the_right_coordinates() {
        // '>u2' Fortran-order [H=2, W=3]: numpy's bytes for [[1, 2, 3], [4, 5, 6]].
        let header = "{'descr': '>u2', 'fortran_order': True, 'shape': (2, 3), }";
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        let padded = format!("{header:<117}\n");
        bytes.extend((padded.len() as u16).to_le_bytes());
        bytes.extend(padded.as_bytes());
        for v in [1u16, 4, 2, 5, 3, 6] {
            bytes.extend(v.to_be_bytes());
        }
        let dir = TempDir::new().expect("temp dir");
        let path = dir.path().join("f.npy");
        std::fs::write(&path, bytes).expect("write");
        let image = read_image(&path).expect("read");
        let expected = Buffer::<u16>::from_fn(&[0, 0], &[3, 2], |c| (c[1] * 3 + c[0] + 1) as u16);
        assert!(same_image(&image, &expected.into()));
    }

    #[test]
    fn unreadable_files_give_one_line_errors_naming_the_file() {
        let dir = TempDir::new().expect("temp dir");
        let at = |name: &str| dir.path().join(name);
        std::fs::write(at("junk.npy"), b"not an npy file").expect("write");
        std::fs::write(at("junk.png"), b"\x89PNG but not really").expect("write");
        let e = err(read_image(&at("missing.npy")));
        assert!(e.contains("missing.npy: cannot open"), "{e}");
        let e = err(read_image(&at("junk.npy")));
        assert!(e.contains("junk.npy: not a valid .npy file"), "{e}");
        let e = err(read_image(&at("junk.png")));
        assert!(e.contains("junk.png: not a valid PNG file"), "{e}");
        let e = err(read_image(&at("image.tiff")));
        assert!(e.contains("unknown image format"), "{e}");
        // A 1-D array is not an image.
        let one_d: Buffer<u8> = Buffer::new(&[4]);
        write_image(&at("line.npy"), &one_d.into()).expect("npy holds any shape");
        let e = err(read_image(&at("line.npy")));
        assert!(e.contains("images have shape [H, W] or [H, W, C]"), "{e}");
        // Truncated data.
        let full = at("full.npy");
        write_image(&full, &Buffer::<u16>::new(&[8, 8]).into()).expect("write");
        let bytes = std::fs::read(&full).expect("read");
        std::fs::write(at("cut.npy"), &bytes[..bytes.len() - 10]).expect("write");
        let e = err(read_image(&at("cut.npy")));
        assert!(
            e.contains("cut.npy: the header claims shape [8, 8] of <u2 (128 bytes of data), but the file holds 246 bytes in all, 118 after its header"),
            "{e}"
        );
        assert!(!e.contains('\n'), "{e}");
    }

    /// `.npy` bytes with `header` (a dict literal) and `data_bytes` zero bytes of data.
    fn npy_bytes(header: &str, data_bytes: usize) -> Vec<u8> {
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        let padded = format!("{header:<117}\n");
        bytes.extend((padded.len() as u16).to_le_bytes());
        bytes.extend(padded.as_bytes());
        bytes.resize(bytes.len() + data_bytes, 0);
        bytes
    }

    #[test]
    fn headers_claiming_more_data_than_the_file_holds_are_refused() {
        let dir = TempDir::new().expect("temp dir");
        let at = |name: &str| dir.path().join(name);
        let big = "{'descr': '<u2', 'fortran_order': False, 'shape': (100000, 100000), }";
        std::fs::write(at("big.npy"), npy_bytes(big, 17_000)).expect("write");
        let e = err(read_image(&at("big.npy")));
        assert!(
            e.contains("big.npy: the header claims shape [100000, 100000] of <u2 (20000000000 bytes of data), but the file holds 17128 bytes"),
            "{e}"
        );
        let huge = "{'descr': '<f4', 'fortran_order': True, 'shape': (2147483648, 2147483648, 4294967296), }";
        std::fs::write(at("huge.npy"), npy_bytes(huge, 64)).expect("write");
        let e = err(read_image(&at("huge.npy")));
        assert!(
            e.contains("huge.npy: the header claims shape [2147483648, 2147483648, 4294967296], more elements than 2^64"),
            "{e}"
        );
        // A header length past the end of the file.
        let mut long_header = npy_bytes(big, 0);
        long_header[8..10].copy_from_slice(&60_000u16.to_le_bytes());
        std::fs::write(at("long.npy"), long_header).expect("write");
        let e = err(read_image(&at("long.npy")));
        assert!(
            e.contains("long.npy: the header claims 60000 bytes but the file holds 128 bytes"),
            "{e}"
        );

        // A 1 x 1 PNG whose IHDR then claims 100000 x 100000 (with a valid CRC).
        let path = at("small.png");
        write_image(&path, &Buffer::<u8>::new(&[1, 1]).into()).expect("write");
        let mut bytes = std::fs::read(&path).expect("read");
        bytes[16..20].copy_from_slice(&100_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&100_000u32.to_be_bytes());
        let crc = crc32fast::hash(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        std::fs::write(&path, &bytes).expect("write");
        let e = err(read_image(&path));
        assert!(
            e.contains(&format!("small.png: the header claims a 100000 x 100000 image (10000100000 bytes of pixel data), more than a file of {} bytes can hold", bytes.len())),
            "{e}"
        );
    }

    #[test]
    fn png_refuses_what_it_cannot_store() {
        let dir = TempDir::new().expect("temp dir");
        let f32_image: AnyBuffer = Buffer::<f32>::new(&[2, 2]).into();
        let e = write_image(&dir.path().join("f.png"), &f32_image)
            .err()
            .map(|e| e.to_string());
        assert!(e
            .unwrap_or_default()
            .contains("PNG stores u8 or u16 images, not f32"));
        let five: AnyBuffer = Buffer::<u8>::new(&[2, 2, 5]).into();
        let e = write_image(&dir.path().join("c.png"), &five)
            .err()
            .map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("C in 1..=4"));
        let empty: AnyBuffer = Buffer::<u8>::new(&[0, 2]).into();
        let e = write_image(&dir.path().join("e.png"), &empty)
            .err()
            .map(|e| e.to_string());
        assert!(e.unwrap_or_default().contains("empty"));
    }
}
