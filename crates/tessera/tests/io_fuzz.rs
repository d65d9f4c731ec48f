//! Structure-aware fuzzing of the image readers: valid `.npy` and PNG files, made small and
//! random, then mutated where readers trust what they read — an `.npy` header's shape, dtype,
//! order and length and its data's size; a PNG's IHDR (width, height, bit depth, color type),
//! its IDAT and the chunks' CRCs — plus random byte flips. Every case must end in an image or
//! an error, never a panic, and no single allocation may exceed what the file's size can
//! justify (measured by a global allocator recording the largest request of each thread).
//! Seeded; replay a failure with `TESSERA_SEED=<seed>`. Its own test binary, for the global
//! allocator.

#![cfg(feature = "io")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use tessera::io::{decode_image, Format, DEFLATE_MAX_EXPANSION};

/// The system allocator, recording the largest allocation each thread asks for.
struct LargestAllocation;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn record(bytes: usize) {
    // `try_with`: a thread being torn down has no slot left, and needs no record.
    let _ = LARGEST.try_with(|largest| largest.set(largest.get().max(bytes)));
}

// SAFETY: every call is forwarded to `System` unchanged; recording touches no heap memory.
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        record(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        record(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// The largest allocation `f` made on this thread.
fn largest_allocation_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|largest| largest.set(0));
    let result = f();
    (result, LARGEST.with(Cell::get))
}

const CASES: usize = 3000;
const DEFAULT_SEED: u64 = 0x7e55e7a;

fn seed() -> u64 {
    tessera::testing::test_seed("io fuzz", DEFAULT_SEED)
}

/// Allocations any read may make whatever the file: header text, small tables.
const SMALL_ALLOCATION: usize = 1 << 20;

/// Extents that break readers: zero, small, around 2^16, 2^31, 2^32 and 2^63, and past u64.
fn wild_extent(rng: &mut SmallRng) -> String {
    let choices = [
        "0",
        "1",
        "3",
        "65535",
        "100000",
        "2147483648",
        "4294967296",
        "4294967297",
        "9223372036854775808",
        "18446744073709551615",
        "18446744073709551616",
        "-1",
    ];
    if rng.random_bool(0.3) {
        rng.random_range(0..40u32).to_string()
    } else {
        choices[rng.random_range(0..choices.len())].to_string()
    }
}

fn npy_case(rng: &mut SmallRng) -> Vec<u8> {
    let dtypes = [
        ("|u1", 1),
        ("<u2", 2),
        (">u2", 2),
        ("<i4", 4),
        (">f4", 4),
        ("<f8", 8),
        ("|b1", 1),
        ("<u8", 8),
        ("|i1", 1),
        ("<c16", 16),
        ("<U4", 16),
        ("|O", 8),
        ("<u3", 3),
        ("x", 1),
    ];
    let (mut descr, item) = dtypes[rng.random_range(0..7)];
    let mut shape: Vec<String> = (0..rng.random_range(2..=3))
        .map(|_| rng.random_range(1..6u32).to_string())
        .collect();
    let elements: usize = shape.iter().map(|e| e.parse::<usize>().unwrap()).product();
    let mut data: Vec<u8> = (0..elements * item).map(|_| rng.random()).collect();
    let mut fortran = if rng.random_bool(0.5) {
        "True"
    } else {
        "False"
    }
    .to_string();
    for _ in 0..rng.random_range(1..=3) {
        match rng.random_range(0..5) {
            0 => {
                shape = (0..rng.random_range(0..=4))
                    .map(|_| wild_extent(rng))
                    .collect();
            }
            1 => {
                let i = rng.random_range(0..shape.len().max(1));
                if i < shape.len() {
                    shape[i] = wild_extent(rng);
                }
            }
            2 => descr = dtypes[rng.random_range(0..dtypes.len())].0,
            3 => fortran = ["True", "False", "1", "None"][rng.random_range(0..4)].to_string(),
            _ => data.truncate(rng.random_range(0..=data.len())),
        }
    }
    let trailing_comma = if shape.len() == 1 { "," } else { "" };
    let header = format!(
        "{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': ({}{trailing_comma}), }}",
        shape.join(", ")
    );
    let mut text = format!("{header:<117}\n").into_bytes();
    let version: u8 = if rng.random_bool(0.8) {
        1
    } else {
        rng.random_range(0..5)
    };
    let mut bytes = b"\x93NUMPY".to_vec();
    bytes.extend([version, 0]);
    let mut length = text.len() as u32;
    if rng.random_bool(0.1) {
        length = rng.random();
    }
    if version == 1 {
        bytes.extend((length as u16).to_le_bytes());
    } else {
        bytes.extend(length.to_le_bytes());
    }
    bytes.append(&mut text);
    bytes.extend(data);
    flip_bytes(rng, &mut bytes);
    bytes
}

fn flip_bytes(rng: &mut SmallRng, bytes: &mut [u8]) {
    if rng.random_bool(0.2) && !bytes.is_empty() {
        for _ in 0..rng.random_range(1..4) {
            let i = rng.random_range(0..bytes.len());
            bytes[i] = rng.random();
        }
    }
}

/// A small valid PNG: gray, gray+alpha, RGB, RGBA or palette, at a depth its color allows.
fn valid_png(rng: &mut SmallRng) -> Vec<u8> {
    use png::{BitDepth, ColorType};
    let (color, depths): (ColorType, &[BitDepth]) = match rng.random_range(0..5) {
        0 => (
            ColorType::Grayscale,
            &[
                BitDepth::One,
                BitDepth::Two,
                BitDepth::Four,
                BitDepth::Eight,
                BitDepth::Sixteen,
            ],
        ),
        1 => (
            ColorType::GrayscaleAlpha,
            &[BitDepth::Eight, BitDepth::Sixteen],
        ),
        2 => (ColorType::Rgb, &[BitDepth::Eight, BitDepth::Sixteen]),
        3 => (ColorType::Rgba, &[BitDepth::Eight, BitDepth::Sixteen]),
        _ => (
            ColorType::Indexed,
            &[
                BitDepth::One,
                BitDepth::Two,
                BitDepth::Four,
                BitDepth::Eight,
            ],
        ),
    };
    let depth = depths[rng.random_range(0..depths.len())];
    let (w, h) = (rng.random_range(1..12u32), rng.random_range(1..12u32));
    let row_bytes = (w as usize * color.samples() * depth as usize).div_ceil(8);
    let pixels: Vec<u8> = (0..row_bytes * h as usize).map(|_| rng.random()).collect();
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, w, h);
    encoder.set_color(color);
    encoder.set_depth(depth);
    if color == ColorType::Indexed {
        encoder.set_palette((0..768).map(|i| i as u8).collect::<Vec<u8>>());
    }
    let mut writer = encoder.write_header().expect("a valid header");
    writer.write_image_data(&pixels).expect("valid data");
    writer.finish().expect("a valid file");
    bytes
}

/// The whole chunks of a PNG after its 8-byte signature: (offset of the length field, type,
/// data length).
fn chunks(bytes: &[u8]) -> Vec<(usize, [u8; 4], usize)> {
    let mut found = Vec::new();
    let mut at = 8;
    while at + 12 <= bytes.len() {
        let length = u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
        if at + 12 + length > bytes.len() {
            break;
        }
        let kind: [u8; 4] = bytes[at + 4..at + 8].try_into().unwrap();
        found.push((at, kind, length));
        at += 12 + length;
    }
    found
}

/// Recomputes the CRC of the chunk at `at` (so a mutation inside it is read, not refused).
fn fix_crc(bytes: &mut [u8], at: usize, length: usize) {
    let end = at + 8 + length;
    let crc = crc32fast::hash(&bytes[at + 4..end]);
    bytes[end..end + 4].copy_from_slice(&crc.to_be_bytes());
}

fn png_case(rng: &mut SmallRng) -> Vec<u8> {
    let mut bytes = valid_png(rng);
    for _ in 0..rng.random_range(1..=3) {
        let found = chunks(&bytes);
        // Mutations need both chunks; a file cut short may have lost them.
        let (Some(&(ihdr, _, ihdr_length)), Some(&(idat, _, idat_length))) =
            (found.first(), found.iter().find(|c| &c.1 == b"IDAT"))
        else {
            break;
        };
        match rng.random_range(0..6) {
            0 | 1 => {
                // Width or height: 0, small, 2^16, 100000, 2^31 - 1 (PNG's largest), 2^32 - 1.
                let field = ihdr + 8 + 4 * rng.random_range(0..2);
                let values = [0u32, 1, 7, 65536, 100_000, (1 << 31) - 1, u32::MAX];
                let value = values[rng.random_range(0..values.len())];
                bytes[field..field + 4].copy_from_slice(&value.to_be_bytes());
                fix_crc(&mut bytes, ihdr, ihdr_length);
            }
            2 => {
                // Bit depth and color type, valid or not.
                bytes[ihdr + 16] = [1, 2, 4, 8, 16, 0, 3, 32][rng.random_range(0..8)];
                bytes[ihdr + 17] = [0, 2, 3, 4, 6, 1, 7][rng.random_range(0..7)];
                fix_crc(&mut bytes, ihdr, ihdr_length);
            }
            3 => {
                // IDAT cut short, its length and CRC made consistent.
                let keep = rng.random_range(0..=idat_length);
                let data_end = idat + 8 + idat_length;
                bytes.drain(idat + 8 + keep..data_end);
                bytes[idat..idat + 4].copy_from_slice(&(keep as u32).to_be_bytes());
                fix_crc(&mut bytes, idat, keep);
            }
            4 => {
                // A wrong CRC in any chunk.
                let (at, _, length) = found[rng.random_range(0..found.len())];
                bytes[at + 8 + length] ^= 1 << rng.random_range(0..8);
            }
            _ => {
                // The file cut anywhere.
                let keep = rng.random_range(0..bytes.len());
                bytes.truncate(keep);
            }
        }
    }
    flip_bytes(rng, &mut bytes);
    bytes
}

/// Runs `read` on every case `make` produces; fails naming the seed and case on a panic or an
/// allocation above `justified(file bytes)`.
fn fuzz(
    what: &str,
    make: fn(&mut SmallRng) -> Vec<u8>,
    read: fn(&[u8]) -> tessera::Result<()>,
    justified: fn(usize) -> usize,
) {
    let seed = seed();
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut decoded = 0;
    for case in 0..CASES {
        let bytes = make(&mut rng);
        let outcome = std::panic::catch_unwind(|| largest_allocation_of(|| read(&bytes)));
        let Ok((result, largest)) = outcome else {
            panic!("{what} case {case} (TESSERA_SEED={seed}) panicked on {bytes:?}");
        };
        decoded += usize::from(result.is_ok());
        let limit = justified(bytes.len()).max(SMALL_ALLOCATION);
        assert!(
            largest <= limit,
            "{what} case {case} (TESSERA_SEED={seed}) allocated {largest} bytes from a file of {}: {result:?}",
            bytes.len()
        );
    }
    // The mutations must leave enough files valid to exercise the decoding paths too.
    assert!(
        decoded > CASES / 20,
        "only {decoded} of {CASES} {what} cases decoded"
    );
}

#[test]
fn npy_reader_survives_mutated_headers_and_data() {
    fuzz(
        ".npy",
        npy_case,
        |bytes| decode_image(bytes, Format::Npy).map(drop),
        // The data, and one copy of it laid out dense in x.
        |file_bytes| file_bytes,
    );
}

#[test]
fn png_reader_survives_mutated_chunks() {
    fuzz(
        "PNG",
        png_case,
        |bytes| decode_image(bytes, Format::Png).map(drop),
        // Deflate's largest expansion, then 1-bit palette indices expanded to 8-bit RGBA.
        |file_bytes| file_bytes * DEFLATE_MAX_EXPANSION as usize * 32,
    );
}
