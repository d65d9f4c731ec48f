//! `Buffer<T>`: an owning, strided, n-dimensional array with any min/extent/stride per
//! dimension (Halide's `halide_buffer_t` layout), plus `AnyBuffer` for buffers whose element
//! type is only known at run time. Coordinates are (x, y, c, ...) with x first; an `ndarray`
//! of shape `[H, W]` or `[H, W, C]` maps to (x, y[, c]) without reordering memory. Large
//! buffers are made on huge pages (`runtime::huge_pages`), and every buffer Tessera allocates
//! starts on a 64-byte boundary (as Halide's do), so that a vector row starting at an aligned
//! coordinate does not straddle two cache lines: a large `Vec` from the system allocator
//! starts 16 bytes into a page, which made every 64-byte load and store of unsharp split in
//! two (10% of its time).

use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder};

use super::scalar::Scalar;
use crate::error::{Error, Result};
use crate::eval::value::Value;
use crate::ir::Type;
use crate::runtime::huge_pages;

/// One dimension of a buffer: coordinates `[min, min + extent)`, elements `stride` apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Dim {
    /// The first coordinate.
    pub min: i64,
    /// The number of coordinates.
    pub extent: i64,
    /// The distance in elements between neighbours in this dimension.
    pub stride: i64,
}

/// An image of elements of type `T` over a box of coordinates, dense with x innermost unless
/// built from other dimensions (Halide's `Buffer<T>`): the inputs a pipeline reads and the
/// outputs it writes.
///
/// ```
/// use tessera::prelude::*;
///
/// // Buffer<float> image(4, 3); with a min of (10, 20): image.set_min({10, 20});
/// let mut image = Buffer::<f32>::with_mins(&[10, 20], &[4, 3]);
/// image.set(&[11, 21], 2.5); // image(11, 21) = 2.5f;
/// assert_eq!(image.get(&[11, 21]), 2.5); // image(11, 21)
/// assert_eq!((image.width(), image.height()), (4, 3)); // image.width(), image.height()
/// assert_eq!(image.mins(), vec![10, 20]); // image.min(0), image.min(1)
/// assert_eq!(image.try_get(&[0, 0]), None); // outside the box
///
/// // Buffer<int> ramp = Buffer<int>::make_with_shape_of(...), filled by a loop:
/// let ramp = Buffer::<i32>::from_fn(&[0, 0], &[4, 3], |c| (c[0] + 10 * c[1]) as i32);
/// assert_eq!(ramp.get(&[3, 2]), 23);
/// ```
#[derive(Debug)]
pub struct Buffer<T: Scalar> {
    dims: Vec<Dim>,
    /// Offset in the elements of the element at the all-`min` coordinate.
    base: usize,
    /// The elements are `storage[start..]`; the `start` elements before them only move the
    /// first one to a 64-byte boundary.
    storage: Vec<T>,
    start: usize,
}

/// The alignment in bytes of the first element of every buffer Tessera allocates.
pub const BUFFER_ALIGNMENT: usize = 64;

impl<T: Scalar> Clone for Buffer<T> {
    fn clone(&self) -> Buffer<T> {
        let (mut storage, start) =
            aligned_storage(self.data().len()).unwrap_or_else(|e| panic!("{e}"));
        storage.extend_from_slice(self.data());
        Buffer {
            dims: self.dims.clone(),
            base: self.base,
            storage,
            start,
        }
    }
}

impl<T: Scalar> PartialEq for Buffer<T> {
    fn eq(&self, other: &Buffer<T>) -> bool {
        self.dims == other.dims && self.base == other.base && self.data() == other.data()
    }
}

/// The most bytes one buffer may hold: 2^40 (1 TiB), or less where `isize` (which bounds
/// every Rust allocation) is smaller. It is far above any image the apps process (6400 x 4800
/// x 3 f32 is 369 MB), so a request above it is a mistake — a mistyped or overflowed size —
/// refused before any memory is asked for. Halide refuses buffers of 2^31 elements or more;
/// Tessera's bound is in bytes because bytes are what can run out.
pub const MAX_BUFFER_BYTES: u64 = if (isize::MAX as u64) < 1 << 40 {
    isize::MAX as u64
} else {
    1 << 40
};

/// The dimensions of a dense buffer over `[mins, mins + extents)`, x innermost. Fails on a
/// negative extent or when the strides overflow 64 bits.
pub fn dense_dims(mins: &[i64], extents: &[i64]) -> Result<Vec<Dim>> {
    if mins.len() != extents.len() {
        return Err(Error::Buffer(format!(
            "a buffer needs one min per extent, not mins {mins:?} and extents {extents:?}"
        )));
    }
    let mut stride = 1i64;
    let mut dims = Vec::with_capacity(extents.len());
    for (d, (&min, &extent)) in mins.iter().zip(extents).enumerate() {
        if extent < 0 {
            return Err(Error::Buffer(format!(
                "extent {extent} of dimension {d} (extents {extents:?}) is negative"
            )));
        }
        dims.push(Dim {
            min,
            extent,
            stride,
        });
        // A zero extent makes every later stride 0 too: the buffer holds no element.
        stride = stride
            .checked_mul(extent)
            .ok_or_else(|| too_large(extents, None))?;
    }
    Ok(dims)
}

/// The number of elements of a dense buffer over `extents` (checked by `dense_dims`), with
/// `element_bytes` bytes each: an error when they would exceed `MAX_BUFFER_BYTES`.
pub fn dense_len(extents: &[i64], element_bytes: usize) -> Result<usize> {
    let elements = extents
        .iter()
        .try_fold(1u64, |n, &e| n.checked_mul(u64::try_from(e).ok()?));
    let bytes = elements.and_then(|n| n.checked_mul(element_bytes as u64));
    match (elements, bytes) {
        (Some(elements), Some(bytes)) if bytes <= MAX_BUFFER_BYTES => {
            Ok(usize::try_from(elements).expect("MAX_BUFFER_BYTES fits in usize"))
        }
        _ => Err(too_large(extents, bytes)),
    }
}

fn too_large(extents: &[i64], bytes: Option<u64>) -> Error {
    let needs = bytes.map_or("more than 2^64 bytes".to_string(), |b| format!("{b} bytes"));
    Error::Buffer(format!(
        "a buffer of extents {extents:?} needs {needs}, more than the {MAX_BUFFER_BYTES} bytes one buffer may hold"
    ))
}

/// Storage for `len` elements of `T` (huge pages when large) and the index of the first one,
/// on a `BUFFER_ALIGNMENT` boundary: the elements before it are already pushed, the `len`
/// elements are for the caller to push without reallocating. An error says how many bytes
/// could not be had.
fn aligned_storage<T: Scalar>(len: usize) -> Result<(Vec<T>, usize)> {
    let element = std::mem::size_of::<T>();
    let padding = BUFFER_ALIGNMENT / element;
    let mut storage: Vec<T> = len
        .checked_add(padding)
        .and_then(|n| huge_pages::try_vec_with_capacity(n).ok())
        .ok_or_else(|| {
            Error::Buffer(format!(
                "out of memory: a buffer of {len} {} elements needs {} bytes",
                T::TYPE,
                len as u128 * element as u128
            ))
        })?;
    let misalignment = storage.as_ptr() as usize % BUFFER_ALIGNMENT;
    let start = ((BUFFER_ALIGNMENT - misalignment) % BUFFER_ALIGNMENT) / element;
    storage.resize(start, T::default());
    Ok((storage, start))
}

/// Whether two different coordinates of `dims` may address the same element. Exact for the
/// layouts whose dimensions nest — sorted by stride, each stride at least the span of the
/// dimensions inside it (dense, padded rows, transposed, ...); dimensions of extent 1 take
/// no part. Any other layout (a stride of 0, rows overlapping, strides interleaving) counts
/// as aliasing: a buffer written in parallel strips must not alias, and refusing a rare
/// layout that does not is safer than a race.
pub fn dims_alias(dims: &[Dim]) -> bool {
    if dims.iter().any(|d| d.extent == 0) {
        return false;
    }
    let mut spanning: Vec<&Dim> = dims.iter().filter(|d| d.extent > 1).collect();
    spanning.sort_by_key(|d| d.stride.unsigned_abs());
    // Elements the dimensions so far cover, from the first one to past the last.
    let mut span = 1u64;
    for d in spanning {
        let stride = d.stride.unsigned_abs();
        if stride < span {
            return true;
        }
        match stride.checked_mul(d.extent as u64) {
            Some(s) => span = s,
            None => return true,
        }
    }
    false
}

impl<T: Scalar> Buffer<T> {
    /// A dense zero-filled buffer with the given extents, mins at 0, x innermost. Panics when
    /// it cannot be allocated (`try_with_mins` returns an error instead).
    pub fn new(extents: &[i64]) -> Buffer<T> {
        let mins = vec![0; extents.len()];
        Buffer::with_mins(&mins, extents)
    }

    /// A dense zero-filled buffer over `[mins, mins + extents)`. Panics when it cannot be
    /// allocated (`try_with_mins` returns an error instead).
    pub fn with_mins(mins: &[i64], extents: &[i64]) -> Buffer<T> {
        Buffer::try_with_mins(mins, extents).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A dense zero-filled buffer over `[mins, mins + extents)`, or an error when an extent is
    /// negative, the buffer would exceed `MAX_BUFFER_BYTES` or memory runs out.
    pub fn try_with_mins(mins: &[i64], extents: &[i64]) -> Result<Buffer<T>> {
        let dims = dense_dims(mins, extents)?;
        let len = dense_len(extents, std::mem::size_of::<T>())?;
        let (mut storage, start) = aligned_storage(len)?;
        storage.resize(start + len, T::default());
        Ok(Buffer {
            dims,
            base: 0,
            storage,
            start,
        })
    }

    /// A buffer over `[mins, mins + extents)` whose element at each coordinate is `f(coord)`.
    /// Panics when it cannot be allocated (`try_from_fn` returns an error instead).
    pub fn from_fn(mins: &[i64], extents: &[i64], f: impl FnMut(&[i64]) -> T) -> Buffer<T> {
        Buffer::try_from_fn(mins, extents, f).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A buffer over `[mins, mins + extents)` whose element at each coordinate is `f(coord)`,
    /// or an error as for `try_with_mins`.
    pub fn try_from_fn(
        mins: &[i64],
        extents: &[i64],
        mut f: impl FnMut(&[i64]) -> T,
    ) -> Result<Buffer<T>> {
        let dims = dense_dims(mins, extents)?;
        let (mut storage, start) = aligned_storage(dense_len(extents, std::mem::size_of::<T>())?)?;
        // The buffer is dense and x-fastest, the order `for_each_coord_in` visits.
        for_each_coord_in(mins, extents, &mut |c| storage.push(f(c)));
        Ok(Buffer {
            dims,
            base: 0,
            storage,
            start,
        })
    }

    /// Wraps existing data with explicit dimensions (any non-negative strides). Fails when the
    /// dimensions address elements outside `data` (computed without overflow: dimensions
    /// whose offsets pass 2^63 are refused too). Data not starting on a `BUFFER_ALIGNMENT`
    /// boundary is copied once to memory that does.
    pub fn from_parts(data: Vec<T>, dims: Vec<Dim>) -> Result<Buffer<T>> {
        let mut max_offset = 0i64;
        for (i, d) in dims.iter().enumerate() {
            if d.extent < 0 || d.stride < 0 {
                return Err(Error::Buffer(format!(
                    "dimension {i} has extent {} and stride {}; both must be >= 0",
                    d.extent, d.stride
                )));
            }
            if d.extent > 0 {
                max_offset = (d.extent - 1)
                    .checked_mul(d.stride)
                    .and_then(|span| max_offset.checked_add(span))
                    .ok_or_else(|| {
                        Error::Buffer(format!(
                            "dimensions {dims:?} address elements past 2^63, but the data holds {} elements",
                            data.len()
                        ))
                    })?;
            }
        }
        let empty = dims.iter().any(|d| d.extent == 0);
        if !empty && max_offset as u64 >= data.len() as u64 {
            return Err(Error::Buffer(format!(
                "dimensions address element {max_offset} but the data holds {} elements",
                data.len()
            )));
        }
        if (data.as_ptr() as usize).is_multiple_of(BUFFER_ALIGNMENT) {
            return Ok(Buffer {
                dims,
                base: 0,
                storage: data,
                start: 0,
            });
        }
        let (mut storage, start) = aligned_storage(data.len())?;
        storage.extend_from_slice(&data);
        Ok(Buffer {
            dims,
            base: 0,
            storage,
            start,
        })
    }

    /// Its dimensions, innermost first as stored.
    pub fn dims(&self) -> &[Dim] {
        &self.dims
    }
    /// Its number of dimensions (Halide's `dimensions()`).
    pub fn dimensions(&self) -> usize {
        self.dims.len()
    }
    /// Dimension `i` (Halide's `dim(i)`).
    pub fn dim(&self, i: usize) -> Dim {
        self.dims[i]
    }
    /// The extent of dimension 0 (Halide's `width()`).
    pub fn width(&self) -> i64 {
        self.dims.first().map_or(1, |d| d.extent)
    }
    /// The extent of dimension 1 (Halide's `height()`).
    pub fn height(&self) -> i64 {
        self.dims.get(1).map_or(1, |d| d.extent)
    }
    /// The extent of dimension 2 (Halide's `channels()`).
    pub fn channels(&self) -> i64 {
        self.dims.get(2).map_or(1, |d| d.extent)
    }
    /// The min coordinate of each dimension.
    pub fn mins(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.min).collect()
    }
    /// The extent of each dimension.
    pub fn extents(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.extent).collect()
    }
    /// Number of elements the dimensions cover.
    pub fn len(&self) -> usize {
        self.dims.iter().map(|d| d.extent as usize).product()
    }
    /// Whether it holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The elements as stored, from the first one.
    pub fn data(&self) -> &[T] {
        &self.storage[self.start..]
    }
    /// The elements as stored, writable.
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.storage[self.start..]
    }
    /// Offset of `base` in the data: the element at the all-`min` coordinate.
    pub fn base_offset(&self) -> usize {
        self.base
    }

    /// Whether `coord` lies inside the buffer.
    pub fn contains(&self, coord: &[i64]) -> bool {
        coord.len() == self.dims.len()
            && coord
                .iter()
                .zip(&self.dims)
                .all(|(&c, d)| c >= d.min && c < d.min + d.extent)
    }

    fn offset(&self, coord: &[i64]) -> usize {
        assert!(
            self.contains(coord),
            "coordinate {coord:?} is outside the buffer (mins {:?}, extents {:?})",
            self.mins(),
            self.extents()
        );
        let off: i64 = coord
            .iter()
            .zip(&self.dims)
            .map(|(&c, d)| (c - d.min) * d.stride)
            .sum();
        self.base + off as usize
    }

    /// The element at `coord` (panics when outside: use `contains` or `try_get` to check).
    pub fn get(&self, coord: &[i64]) -> T {
        self.data()[self.offset(coord)]
    }
    /// The element at `coord`, or `None` outside the box.
    pub fn try_get(&self, coord: &[i64]) -> Option<T> {
        self.contains(coord).then(|| self.get(coord))
    }

    /// The index in `data()` of the element `offset` elements past the element at the mins,
    /// i.e. of the coordinate `c` inside the buffer with `Σ_d (c_d - min_d) * stride_d ==
    /// offset` (how flattened code addresses a buffer). `None` when no coordinate inside the
    /// buffer lies at that offset, so padding between rows is out of range too. Dimensions are
    /// decomposed from the largest stride down, which is exact for every non-overlapping
    /// layout (dense, padded, transposed).
    pub fn flat_data_index(&self, offset: i64) -> Option<usize> {
        if offset < 0 || self.is_empty() {
            return None;
        }
        let mut rest = offset;
        let mut peel = |d: &Dim| {
            if d.stride > 0 {
                rest -= (rest / d.stride).min(d.extent - 1) * d.stride;
            }
        };
        // The usual layouts have strides growing with the dimension: no sort needed.
        if self.dims.windows(2).all(|w| w[0].stride <= w[1].stride) {
            self.dims.iter().rev().for_each(&mut peel);
        } else {
            let mut order: Vec<&Dim> = self.dims.iter().collect();
            order.sort_by_key(|d| std::cmp::Reverse(d.stride));
            order.into_iter().for_each(&mut peel);
        }
        (rest == 0).then(|| self.base + offset as usize)
    }
    /// The element `offset` elements past the element at the mins (see `flat_data_index`).
    pub fn get_flat(&self, offset: i64) -> Option<T> {
        self.flat_data_index(offset).map(|i| self.data()[i])
    }
    /// Stores `v` `offset` elements past the element at the mins (see `flat_data_index`);
    /// returns `false`, storing nothing, when the offset addresses no element of the buffer.
    #[must_use]
    pub fn set_flat(&mut self, offset: i64, v: T) -> bool {
        match self.flat_data_index(offset) {
            Some(i) => {
                self.data_mut()[i] = v;
                true
            }
            None => false,
        }
    }
    /// Sets the element at `coord` (Halide's `buf(x, y) = v`); panics outside the box.
    pub fn set(&mut self, coord: &[i64], v: T) {
        let o = self.offset(coord);
        self.data_mut()[o] = v;
    }

    /// Calls `f` on every coordinate, x fastest.
    pub fn for_each_coord(&self, mut f: impl FnMut(&[i64])) {
        for_each_coord_in(&self.mins(), &self.extents(), &mut f)
    }

    /// The same elements, with each dimension's min shifted by `delta`.
    pub fn translated(mut self, delta: &[i64]) -> Buffer<T> {
        for (d, &t) in self.dims.iter_mut().zip(delta) {
            d.min += t;
        }
        self
    }

    /// A copy of the elements as an `ndarray` with axes reversed ([.., y, x]), x contiguous.
    pub fn to_ndarray(&self) -> ArrayD<T> {
        let shape: Vec<usize> = self.dims.iter().rev().map(|d| d.extent as usize).collect();
        let mut out = Vec::with_capacity(self.len());
        let mins = self.mins();
        let extents = self.extents();
        for_each_coord_in(&mins, &extents, &mut |c| out.push(self.get(c)));
        // `out` is x-fastest, which is C order for the reversed shape.
        ArrayD::from_shape_vec(IxDyn(&shape), out).expect("shape matches element count")
    }

    /// A buffer viewing an `ndarray` of shape [.., y, x] as coordinates (x, y, ..) with mins 0.
    /// Any memory layout (including non-contiguous) is accepted; the data is copied once.
    pub fn from_ndarray(a: ArrayViewD<'_, T>) -> Buffer<T> {
        let extents: Vec<i64> = a.shape().iter().rev().map(|&e| e as i64).collect();
        let dims = dense_dims(&vec![0; extents.len()], &extents)
            .expect("an ndarray's shape fits in memory, so its strides do");
        let (mut storage, start) = aligned_storage(a.len()).unwrap_or_else(|e| panic!("{e}"));
        // The standard layout is C order for the reversed shape: x fastest.
        storage.extend(a.as_standard_layout().iter().copied());
        Buffer {
            dims,
            base: 0,
            storage,
            start,
        }
    }

    /// An `ndarray` view of the elements with axes reversed, when strides are non-negative.
    pub fn as_ndarray(&self) -> ArrayViewD<'_, T> {
        let shape: Vec<usize> = self.dims.iter().rev().map(|d| d.extent as usize).collect();
        let strides: Vec<usize> = self.dims.iter().rev().map(|d| d.stride as usize).collect();
        ArrayViewD::from_shape(
            IxDyn(&shape).strides(IxDyn(&strides)),
            &self.data()[self.base..],
        )
        .expect("buffer strides fit its data")
    }
}

/// Calls `f` on every coordinate of the box `[mins, mins + extents)`, the first dimension
/// fastest. A zero-dimensional box has one (empty) coordinate.
pub fn for_each_coord_in(mins: &[i64], extents: &[i64], f: &mut dyn FnMut(&[i64])) {
    if extents.iter().any(|&e| e <= 0) {
        return;
    }
    let mut c = mins.to_vec();
    loop {
        f(&c);
        let mut d = 0;
        loop {
            if d == c.len() {
                return;
            }
            c[d] += 1;
            if c[d] < mins[d] + extents[d] {
                break;
            }
            c[d] = mins[d];
            d += 1;
        }
    }
}

/// A buffer of any element type, for inputs and outputs whose type is chosen at run time.
#[derive(Clone, PartialEq, Debug)]
pub enum AnyBuffer {
    /// Booleans.
    Bool(Buffer<bool>),
    /// 8-bit unsigned integers.
    U8(Buffer<u8>),
    /// 16-bit unsigned integers.
    U16(Buffer<u16>),
    /// 32-bit unsigned integers.
    U32(Buffer<u32>),
    /// 64-bit unsigned integers.
    U64(Buffer<u64>),
    /// 8-bit signed integers.
    I8(Buffer<i8>),
    /// 16-bit signed integers.
    I16(Buffer<i16>),
    /// 32-bit signed integers.
    I32(Buffer<i32>),
    /// 64-bit signed integers.
    I64(Buffer<i64>),
    /// 16-bit floats.
    F16(Buffer<half::f16>),
    /// 32-bit floats.
    F32(Buffer<f32>),
    /// 64-bit floats.
    F64(Buffer<f64>),
}

/// `$body` with `$b` bound to the typed `Buffer<T>` inside the `AnyBuffer` `$self` (by value,
/// reference or mutable reference, as `$self` is given): the one place that lists the
/// element types, for code generic over `T: Scalar` to run on a buffer chosen at run time.
macro_rules! any_buffer_dispatch {
    ($self:expr, $b:ident => $body:expr) => {
        match $self {
            $crate::lang::buffer::AnyBuffer::Bool($b) => $body,
            $crate::lang::buffer::AnyBuffer::U8($b) => $body,
            $crate::lang::buffer::AnyBuffer::U16($b) => $body,
            $crate::lang::buffer::AnyBuffer::U32($b) => $body,
            $crate::lang::buffer::AnyBuffer::U64($b) => $body,
            $crate::lang::buffer::AnyBuffer::I8($b) => $body,
            $crate::lang::buffer::AnyBuffer::I16($b) => $body,
            $crate::lang::buffer::AnyBuffer::I32($b) => $body,
            $crate::lang::buffer::AnyBuffer::I64($b) => $body,
            $crate::lang::buffer::AnyBuffer::F16($b) => $body,
            $crate::lang::buffer::AnyBuffer::F32($b) => $body,
            $crate::lang::buffer::AnyBuffer::F64($b) => $body,
        }
    };
}
pub(crate) use any_buffer_dispatch;

macro_rules! any_buffer_from {
    ($($t:ty => $variant:ident),*) => {
        $(
            impl From<Buffer<$t>> for AnyBuffer {
                fn from(b: Buffer<$t>) -> AnyBuffer {
                    AnyBuffer::$variant(b)
                }
            }
            impl TryFrom<AnyBuffer> for Buffer<$t> {
                type Error = Error;
                fn try_from(b: AnyBuffer) -> Result<Buffer<$t>> {
                    b.into_typed()
                }
            }
        )*
        impl AnyBuffer {
            /// A zero-filled buffer of element type `ty` over `[mins, mins + extents)`, or an
            /// error as for `Buffer::try_with_mins`.
            pub fn with_mins(ty: Type, mins: &[i64], extents: &[i64]) -> Result<AnyBuffer> {
                $(
                    if ty == <$t as Scalar>::TYPE {
                        return Ok(AnyBuffer::$variant(Buffer::<$t>::try_with_mins(mins, extents)?));
                    }
                )*
                Err(Error::Type(format!("no buffer element type {ty}")))
            }
        }
    };
}

any_buffer_from!(bool => Bool, u8 => U8, u16 => U16, u32 => U32, u64 => U64, i8 => I8, i16 => I16,
    i32 => I32, i64 => I64, half::f16 => F16, f32 => F32, f64 => F64);

impl AnyBuffer {
    /// The element type.
    pub fn ty(&self) -> Type {
        fn ty_of<T: Scalar>(_: &Buffer<T>) -> Type {
            T::TYPE
        }
        any_buffer_dispatch!(self, b => ty_of(b))
    }
    /// Its dimensions.
    pub fn dims(&self) -> &[Dim] {
        any_buffer_dispatch!(self, b => b.dims())
    }
    /// Whether `coord` is inside the box.
    pub fn contains(&self, coord: &[i64]) -> bool {
        any_buffer_dispatch!(self, b => b.contains(coord))
    }
    /// A dense copy of the part of this buffer over `[mins, mins + extents)` (which it must
    /// contain), or an error when the copy cannot be allocated.
    pub fn crop(&self, mins: &[i64], extents: &[i64]) -> Result<AnyBuffer> {
        fn crop<T: Scalar>(b: &Buffer<T>, mins: &[i64], extents: &[i64]) -> Result<AnyBuffer>
        where
            AnyBuffer: From<Buffer<T>>,
        {
            Ok(Buffer::try_from_fn(mins, extents, |c| b.get(c))?.into())
        }
        any_buffer_dispatch!(self, b => crop(b, mins, extents))
    }
    /// This buffer as a `Buffer<T>`, or an error naming both element types when it holds
    /// another type.
    pub fn into_typed<T: Scalar>(self) -> Result<Buffer<T>> {
        let ty = self.ty();
        let typed: Box<dyn std::any::Any> = any_buffer_dispatch!(self, b => Box::new(b));
        typed.downcast::<Buffer<T>>().map(|b| *b).map_err(|_| {
            Error::Type(format!(
                "expected a buffer of {} but it holds {ty}",
                T::TYPE
            ))
        })
    }
    /// The element at `coord` as a value (panics when outside).
    pub fn get_value(&self, coord: &[i64]) -> Value {
        any_buffer_dispatch!(self, b => b.get(coord).to_value())
    }
    /// Stores a value of the buffer's element type at `coord`.
    pub fn set_value(&mut self, coord: &[i64], v: Value) {
        fn set<T: Scalar>(b: &mut Buffer<T>, c: &[i64], v: Value) {
            b.set(c, T::from_value(v))
        }
        any_buffer_dispatch!(self, b => set(b, coord, v))
    }
    /// The element `offset` elements past the element at the mins, following the strides
    /// (see `Buffer::flat_data_index`); `None` when no element lies there.
    pub fn get_flat(&self, offset: i64) -> Option<Value> {
        any_buffer_dispatch!(self, b => b.get_flat(offset).map(Scalar::to_value))
    }
    /// Stores a value of the buffer's element type `offset` elements past the element at the
    /// mins; returns `false`, storing nothing, when no element lies there.
    #[must_use]
    pub fn set_flat(&mut self, offset: i64, v: Value) -> bool {
        any_buffer_dispatch!(self, b => b.set_flat(offset, Scalar::from_value(v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    #[test]
    fn shifted_mins_and_strides() {
        let mut b = Buffer::<u16>::with_mins(&[-2, 10], &[4, 3]);
        b.set(&[-2, 10], 7);
        b.set(&[1, 12], 9);
        assert_eq!(b.get(&[-2, 10]), 7);
        assert_eq!(b.get(&[1, 12]), 9);
        assert_eq!(b.data()[11], 9);
        assert!(!b.contains(&[2, 12]));
        let mut seen = 0;
        b.for_each_coord(|_| seen += 1);
        assert_eq!(seen, 12);
    }

    #[test]
    fn every_way_of_making_a_buffer_starts_it_on_a_64_byte_boundary() {
        let aligned =
            |b: &Buffer<u8>| (b.data().as_ptr() as usize).is_multiple_of(BUFFER_ALIGNMENT);
        for len in [1, 3, 100, 5000, 1 << 20] {
            let zeros = Buffer::<u8>::new(&[len]);
            let ramp = Buffer::from_fn(&[0], &[len], |c| c[0] as u8);
            // The system allocator's vectors are 16-byte aligned: from_parts copies them when
            // they are not on a 64-byte boundary.
            let sevens: Vec<u8> = vec![7; len as usize];
            let parts = Buffer::from_parts(sevens, dense_dims(&[0], &[len]).unwrap()).unwrap();
            let array = ndarray::Array1::from_elem(len as usize, 7u8).into_dyn();
            let from_array = Buffer::from_ndarray(array.view());
            for b in [&zeros, &ramp, &parts, &from_array, &ramp.clone()] {
                assert!(aligned(b), "length {len}");
                assert_eq!(b.data().len(), len as usize);
            }
            assert_eq!(ramp.clone(), ramp);
            assert!(parts.data().iter().all(|&v| v == 7) && parts == from_array);
            assert_eq!(ramp.get(&[len - 1]), (len - 1) as u8);
        }
    }

    #[test]
    fn ndarray_round_trip_maps_rows_to_y() {
        let a = Array2::from_shape_fn((3, 5), |(y, x)| (10 * y + x) as i32);
        let b = Buffer::from_ndarray(a.view().into_dyn());
        assert_eq!((b.width(), b.height()), (5, 3));
        assert_eq!(b.get(&[4, 2]), 24);
        assert_eq!(b.to_ndarray(), a.clone().into_dyn());
        assert_eq!(b.as_ndarray(), a.into_dyn());
        // A transposed (non-contiguous) view is copied into x-fastest order.
        let t = Array2::from_shape_fn((5, 3), |(r, c)| (r * 3 + c) as i32);
        let bt = Buffer::from_ndarray(t.t().into_dyn());
        assert_eq!(bt.get(&[2, 1]), t[(2, 1)]);
    }

    #[test]
    fn flat_offsets_follow_strides_and_skip_padding() {
        // 3 x 2 elements, rows padded to 4, mins (5, -1).
        let dims = vec![
            Dim {
                min: 5,
                extent: 3,
                stride: 1,
            },
            Dim {
                min: -1,
                extent: 2,
                stride: 4,
            },
        ];
        let mut b = Buffer::from_parts((0..8).collect::<Vec<i32>>(), dims).unwrap();
        assert_eq!(b.get_flat(0), Some(b.get(&[5, -1])));
        assert_eq!(b.get_flat(6), Some(b.get(&[7, 0])));
        for padding_or_outside in [-1, 3, 7, 8] {
            assert_eq!(b.get_flat(padding_or_outside), None);
        }
        assert!(b.set_flat(5, 42));
        assert_eq!(b.get(&[6, 0]), 42);
        assert!(!b.set_flat(3, 1));
        // Transposed layout: y is the dense dimension.
        let t = Buffer::from_parts(
            (0..6).collect::<Vec<u8>>(),
            vec![
                Dim {
                    min: 0,
                    extent: 3,
                    stride: 2,
                },
                Dim {
                    min: 0,
                    extent: 2,
                    stride: 1,
                },
            ],
        )
        .unwrap();
        let any = AnyBuffer::from(t.clone());
        for off in 0..6 {
            assert_eq!(any.get_flat(off), Some(Value::UInt(off as u64)));
        }
        assert_eq!(any.get_flat(6), None);
        assert_eq!(t.get(&[2, 1]), 5);
    }

    #[test]
    fn from_parts_rejects_out_of_range_dimensions() {
        let dims = vec![
            Dim {
                min: 0,
                extent: 4,
                stride: 1,
            },
            Dim {
                min: 0,
                extent: 3,
                stride: 4,
            },
        ];
        assert!(Buffer::from_parts(vec![0u8; 11], dims.clone()).is_err());
        assert!(Buffer::from_parts(vec![0u8; 12], dims).is_ok());
    }

    fn dim(extent: i64, stride: i64) -> Dim {
        Dim {
            min: 0,
            extent,
            stride,
        }
    }

    #[test]
    fn from_parts_refuses_dimensions_whose_offsets_overflow() {
        // Six dimensions of extent 2 and stride 2^62 (and 1): offsets wrap 64 bits.
        let mut dims = vec![dim(2, 1)];
        dims.extend((0..5).map(|_| dim(2, 1 << 62)));
        let e = Buffer::from_parts(vec![0u8; 16], dims)
            .unwrap_err()
            .to_string();
        assert!(e.contains("past 2^63"), "{e}");
    }

    #[test]
    fn impossible_sizes_are_errors_naming_the_extents_and_bytes() {
        let e = Buffer::<u8>::try_with_mins(&[0, 0], &[4, -1])
            .unwrap_err()
            .to_string();
        assert!(e.contains("extent -1 of dimension 1"), "{e}");
        let e = Buffer::<f32>::try_with_mins(&[0, 0], &[1 << 20, 1 << 20])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("extents [1048576, 1048576] needs 4398046511104 bytes, more than the 1099511627776 bytes"),
            "{e}"
        );
        let e = Buffer::<u8>::try_from_fn(&[0; 3], &[1 << 40, 1 << 40, 1 << 40], |_| 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("more than 2^64 bytes"), "{e}");
        let e = AnyBuffer::with_mins(Type::u16(), &[0], &[i64::MAX])
            .unwrap_err()
            .to_string();
        assert!(e.contains("one buffer may hold"), "{e}");
        // The apps' largest images are well inside the limit.
        assert_eq!(dense_len(&[6400, 4800, 3], 4).ok(), Some(6400 * 4800 * 3));
    }

    #[test]
    fn aliasing_dimensions_are_detected() {
        assert!(!dims_alias(&[dim(4, 1), dim(3, 4)]));
        assert!(!dims_alias(&[dim(4, 1), dim(3, 5)]), "padded rows");
        assert!(!dims_alias(&[dim(3, 2), dim(2, 1)]), "transposed");
        assert!(
            !dims_alias(&[dim(4, 3), dim(2, 12), dim(3, 1)]),
            "channels innermost"
        );
        assert!(
            !dims_alias(&[dim(4, 1), dim(1, 0)]),
            "extent 1 with stride 0"
        );
        assert!(!dims_alias(&[dim(0, 0), dim(3, 0)]), "no element");
        assert!(dims_alias(&[dim(4, 0)]), "stride 0");
        assert!(dims_alias(&[dim(4, 1), dim(3, 2)]), "overlapping rows");
        assert!(dims_alias(&[dim(4, 2), dim(4, 3)]), "interleaved strides");
        assert!(
            dims_alias(&[dim(3, 1 << 62), dim(2, 1 << 62)]),
            "overflowing span"
        );
    }
}
