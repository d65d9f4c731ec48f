//! 8-bit photos and the wider images pipelines compute on: an 8-bit image widened to u16
//! (×257, so 255 becomes 65535) or to f32 in [0, 1], and f32 images in [0, 1] narrowed back to
//! 8 bits for a PNG file.

use crate::ir::Type;
use crate::lang::buffer::{AnyBuffer, Buffer};

/// `image` (8 bits per sample) as an image of `ty` spanning the same range: u16 scaled by 257,
/// f32 scaled to [0, 1]; `None` for any other type.
pub fn widen_8_bit(image: &Buffer<u8>, ty: Type) -> Option<AnyBuffer> {
    let (mins, extents) = (image.mins(), image.extents());
    if ty == Type::u16() {
        Some(Buffer::from_fn(&mins, &extents, |c| u16::from(image.get(c)) * 257).into())
    } else if ty == Type::f32() {
        Some(Buffer::from_fn(&mins, &extents, |c| f32::from(image.get(c)) / 255.0).into())
    } else {
        None
    }
}

/// `image`, whose values span [0, 1], in 8 bits: scaled by 255 and rounded, values outside
/// [0, 1] clamped to it (and NaN to 0).
pub fn narrow_unit_float_to_8_bit(image: &Buffer<f32>) -> Buffer<u8> {
    // `as` saturates and maps NaN to 0.
    Buffer::from_fn(&image.mins(), &image.extents(), |c| {
        (image.get(c).clamp(0.0, 1.0) * 255.0).round() as u8
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_byte() -> Buffer<u8> {
        Buffer::from_fn(&[3, -2], &[16, 16], |c| ((c[1] + 2) * 16 + c[0] - 3) as u8)
    }

    #[test]
    fn eight_bits_widen_to_the_whole_u16_range() {
        let image = every_byte();
        let wide: Buffer<u16> = widen_8_bit(&image, Type::u16())
            .and_then(|b| b.into_typed().ok())
            .expect("u16");
        assert_eq!(wide.mins(), image.mins());
        image.for_each_coord(|c| {
            let v = image.get(c) as u32;
            assert_eq!(wide.get(c) as u32, v * 65535 / 255, "at {c:?}");
        });
        assert!(widen_8_bit(&image, Type::i32()).is_none());
    }

    #[test]
    fn eight_bits_round_trip_through_unit_floats() {
        let image = every_byte();
        let unit: Buffer<f32> = widen_8_bit(&image, Type::f32())
            .and_then(|b| b.into_typed().ok())
            .expect("f32");
        image.for_each_coord(|c| {
            let v = unit.get(c);
            assert!((0.0..=1.0).contains(&v), "{v} at {c:?}");
            assert!((v * 255.0 - image.get(c) as f32).abs() < 1e-4, "at {c:?}");
        });
        assert_eq!(narrow_unit_float_to_8_bit(&unit), image);
        let outside = Buffer::from_fn(&[0], &[4], |c| [-0.5, 1.5, f32::NAN, 0.5][c[0] as usize]);
        assert_eq!(
            narrow_unit_float_to_8_bit(&outside).data(),
            &[0, 255, 0, 128]
        );
    }
}
