//! How images are laid out in files and checksums: row-major with channels last, i.e. an
//! image with coordinates (x, y[, c]) is stored as an array of shape [H, W] or [H, W, C]
//! (numpy's convention for images). Tessera buffers view such data in place, with x stride C,
//! y stride W·C and c stride 1.

use crate::error::{Error, Result};
use crate::lang::buffer::{Buffer, Dim};
use crate::lang::scalar::Scalar;

/// The buffer dimension behind each file axis, slowest first: y, x, then c, ... .
fn file_axes(dimensions: usize) -> Vec<usize> {
    match dimensions {
        0 | 1 => (0..dimensions).collect(),
        _ => [1, 0].into_iter().chain(2..dimensions).collect(),
    }
}

/// The shape a file stores for buffer dimensions `dims`: [H, W] or [H, W, C].
pub fn file_shape(dims: &[Dim]) -> Vec<usize> {
    file_axes(dims.len())
        .into_iter()
        .map(|d| dims[d].extent as usize)
        .collect()
}

/// Calls `f` on every coordinate of `dims` in file order (y slowest, channels fastest).
pub fn for_each_coord_in_file_order(dims: &[Dim], mut f: impl FnMut(&[i64])) {
    if dims.iter().any(|d| d.extent <= 0) {
        return;
    }
    let axes = file_axes(dims.len());
    let mut coord: Vec<i64> = dims.iter().map(|d| d.min).collect();
    loop {
        f(&coord);
        let mut advanced = false;
        for &d in axes.iter().rev() {
            coord[d] += 1;
            if coord[d] < dims[d].min + dims[d].extent {
                advanced = true;
                break;
            }
            coord[d] = dims[d].min;
        }
        if !advanced {
            return;
        }
    }
}

/// The elements of `b` in file order.
pub fn file_order_values<T: Scalar>(b: &Buffer<T>) -> Vec<T> {
    let mut out = Vec::with_capacity(b.len());
    for_each_coord_in_file_order(b.dims(), |c| out.push(b.get(c)));
    out
}

/// A buffer (mins 0) viewing `data` of file shape `shape` ([H, W] or [H, W, C]), without
/// copying. The data is in file order, or in its transpose (first axis fastest, numpy's
/// Fortran order) when `column_major`.
pub fn from_file_order<T: Scalar>(
    data: Vec<T>,
    shape: &[usize],
    column_major: bool,
) -> Result<Buffer<T>> {
    let mut axes: Vec<(usize, usize)> = file_axes(shape.len()).into_iter().enumerate().collect();
    if !column_major {
        axes.reverse();
    }
    let mut dims = vec![
        Dim {
            min: 0,
            extent: 0,
            stride: 0
        };
        shape.len()
    ];
    let mut stride = 1i64;
    for (axis, d) in axes {
        dims[d] = Dim {
            min: 0,
            extent: shape[axis] as i64,
            stride,
        };
        stride *= shape[axis] as i64;
    }
    if data.len() as i64 != stride {
        return Err(Error::Buffer(format!(
            "an image of shape {shape:?} has {stride} elements, but the data holds {}",
            data.len()
        )));
    }
    Buffer::from_parts(data, dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_order_is_rows_of_pixels_of_channels() {
        // Shape [H=2, W=3, C=2]: element (x, y, c) sits at ((y * 3) + x) * 2 + c.
        let data: Vec<u16> = (0..12).collect();
        let b = from_file_order(data.clone(), &[2, 3, 2], false).expect("shape fits");
        assert_eq!(b.extents(), vec![3, 2, 2]);
        assert_eq!(b.get(&[2, 1, 1]), 11);
        assert_eq!(b.get(&[1, 0, 0]), 2);
        assert_eq!(file_shape(b.dims()), vec![2, 3, 2]);
        assert_eq!(file_order_values(&b), data);
    }

    #[test]
    fn two_dimensional_images_and_shifted_mins() {
        let b = Buffer::<i32>::from_fn(&[5, -1], &[3, 2], |c| (10 * c[1] + c[0]) as i32);
        assert_eq!(file_shape(b.dims()), vec![2, 3]);
        assert_eq!(file_order_values(&b), vec![-5, -4, -3, 5, 6, 7]);
        assert!(from_file_order(vec![0u8; 5], &[2, 3], false).is_err());
    }

    #[test]
    fn column_major_data_is_viewed_transposed() {
        // Shape [H=2, W=3] stored first-axis-fastest: element (x, y) sits at x * 2 + y.
        let b = from_file_order((0..6).collect::<Vec<u8>>(), &[2, 3], true).expect("fits");
        assert_eq!(b.get(&[2, 1]), 5);
        assert_eq!(b.get(&[1, 0]), 2);
        assert_eq!(file_order_values(&b), vec![0, 2, 4, 1, 3, 5]);
    }
}
