//! The buffer ABI shared with generated code (`BufferAbi`, `DimAbi`, both `repr(C)`), and
//! `BoundBuffer`, which describes an `AnyBuffer` in that form for one call.
//!
//! `host` points at the element at the buffer's min coordinates (flat index 0 of generated
//! code), `elem_type_code` is `type_code(ty)`, `elem_bits` the IR type's bit width (1 for
//! bool, which is stored as one byte holding 0 or 1).

use crate::error::{Error, Result};
use crate::ir::{Symbol, Type, TypeCode};
use crate::lang::buffer::{any_buffer_dispatch, AnyBuffer, Buffer, Dim};
use crate::lang::scalar::Scalar;

/// One dimension: coordinates `[min, min + extent)`, elements `stride` apart.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimAbi {
    pub min: i32,
    pub extent: i32,
    pub stride: i32,
}

#[repr(C)]
#[derive(Debug)]
pub struct BufferAbi {
    pub host: *mut u8,
    pub elem_type_code: u8,
    pub elem_bits: u8,
    pub dimensions: i32,
    pub dims: *const DimAbi,
}

/// The ABI code of an element type: 0 int, 1 uint, 2 float, 3 bool.
pub fn type_code(ty: Type) -> u8 {
    match ty.code {
        TypeCode::Int => 0,
        TypeCode::UInt => 1,
        TypeCode::Float => 2,
        TypeCode::Bool => 3,
    }
}

/// A `BufferAbi` together with the dimension array it points to.
pub struct BoundBuffer {
    abi: BufferAbi,
    // Read through `abi.dims`; a Vec's heap storage does not move with the struct.
    _dims: Vec<DimAbi>,
}

impl BoundBuffer {
    /// Describes an input buffer (generated code only reads it) for code whose indices are
    /// 64-bit when `large_buffers` (`Target::large_buffers`), else 32-bit.
    pub fn input(name: Symbol, buffer: &AnyBuffer, large_buffers: bool) -> Result<BoundBuffer> {
        BoundBuffer::new(name, buffer, host_of(buffer), large_buffers)
    }

    /// Describes an output buffer (generated code writes it), as `input`.
    pub fn output(
        name: Symbol,
        buffer: &mut AnyBuffer,
        large_buffers: bool,
    ) -> Result<BoundBuffer> {
        let host = host_of_mut(buffer);
        BoundBuffer::new(name, buffer, host, large_buffers)
    }

    fn new(
        name: Symbol,
        buffer: &AnyBuffer,
        host: *mut u8,
        large_buffers: bool,
    ) -> Result<BoundBuffer> {
        let dims = abi_dims(name, buffer.dims())?;
        check_span(name, buffer.dims(), large_buffers)?;
        let ty = buffer.ty();
        Ok(BoundBuffer {
            abi: BufferAbi {
                host,
                elem_type_code: type_code(ty),
                elem_bits: ty.bits,
                dimensions: dims.len() as i32,
                dims: dims.as_ptr(),
            },
            _dims: dims,
        })
    }

    pub fn abi(&self) -> &BufferAbi {
        &self.abi
    }
}

/// Coordinates are 32-bit: every coordinate of each dimension (`min + extent - 1`) must fit
/// in them. Without large buffers generated code indexes buffers with 32-bit integers, so
/// every element's offset from the first (`span`) must fit too; with them, offsets are
/// 64-bit, which any buffer's fit.
pub(crate) fn check_span(name: Symbol, dims: &[Dim], large_buffers: bool) -> Result<()> {
    if dims.iter().any(|d| d.extent <= 0) {
        return Ok(());
    }
    for (d, dim) in dims.iter().enumerate() {
        let last = dim.min as i128 + dim.extent as i128 - 1;
        if last > i32::MAX as i128 {
            return Err(Error::Buffer(format!(
                "buffer {name} reaches coordinate {last} in dimension {d}, which does not fit in 32 bits"
            )));
        }
    }
    if !large_buffers && needs_large_buffers(dims) {
        return Err(Error::Buffer(format!(
            "buffer {name} spans {} elements from its first to its last, more than 32-bit indices reach (2^31 - 1); compile for `Target::with_large_buffers(true)` to use it",
            span(dims)
        )));
    }
    Ok(())
}

/// The offset of the element farthest from the first: the sum of `(extent - 1) * |stride|`
/// (0 for an empty buffer).
fn span(dims: &[Dim]) -> i128 {
    if dims.iter().any(|d| d.extent <= 0) {
        return 0;
    }
    dims.iter()
        .map(|d| (d.extent as i128 - 1) * (d.stride as i128).abs())
        .sum()
}

/// Whether a buffer of `dims` has elements 2^31 or more from its first, which only code for
/// large buffers (`Target::large_buffers`) indexes.
pub fn needs_large_buffers(dims: &[Dim]) -> bool {
    span(dims) > i32::MAX as i128
}

/// `dims` as generated code reads them, or an error naming the buffer when a min, extent or
/// stride does not fit in the 32 bits the ABI gives it.
pub fn abi_dims(name: Symbol, dims: &[Dim]) -> Result<Vec<DimAbi>> {
    let narrow = |v: i64, what: &str, d: usize| {
        i32::try_from(v).map_err(|_| {
            Error::Buffer(format!(
                "buffer {name} has {what} {v} in dimension {d}, which does not fit in 32 bits"
            ))
        })
    };
    dims.iter()
        .enumerate()
        .map(|(d, dim)| {
            Ok(DimAbi {
                min: narrow(dim.min, "min", d)?,
                extent: narrow(dim.extent, "extent", d)?,
                stride: narrow(dim.stride, "stride", d)?,
            })
        })
        .collect()
}

fn element_ptr<T: Scalar>(b: &Buffer<T>) -> *mut u8 {
    b.data().as_ptr().wrapping_add(b.base_offset()) as *mut u8
}

fn element_ptr_mut<T: Scalar>(b: &mut Buffer<T>) -> *mut u8 {
    let base = b.base_offset();
    b.data_mut().as_mut_ptr().wrapping_add(base) as *mut u8
}

fn host_of(buffer: &AnyBuffer) -> *mut u8 {
    any_buffer_dispatch!(buffer, b => element_ptr(b))
}

fn host_of_mut(buffer: &mut AnyBuffer) -> *mut u8 {
    any_buffer_dispatch!(buffer, b => element_ptr_mut(b))
}
